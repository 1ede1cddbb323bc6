import { type ImportRequest, skippedFileWarnings } from '../../importers/index.js';

/**
 * Tells which files of a folder are not imported, before the import starts: one NDJSON `skipped` event per file with
 * `--json`, else one line per reason on stderr (the job's warnings repeat them).
 */
export function printSkipped(request: ImportRequest, json: boolean): void {
  if (request.kind !== 'directory' || !request.skipped?.length) return;
  if (json) {
    for (const s of request.skipped) process.stdout.write(`${JSON.stringify({ event: 'skipped', ...s })}\n`);
    return;
  }
  for (const w of skippedFileWarnings(request.skipped)) process.stderr.write(`${w}\n`);
}
