import { readFileSync } from 'node:fs';
import type { SourceRecord } from '../../importers/index.js';
import type { RawSourceInput } from '../../importers/index.js';
import { validateExtractors } from '../../importers/index.js';
import { isAppError } from '../errors.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { createServices } from '../services.js';
import { UsageError } from './cliErrors.js';
import { sourcesAction, sourcesTable, syncSummary, syncWarnings } from './sourcesOutput.js';
import { progressReporter } from './progress.js';

/** Options of `cairn sources` (flags of main's parser). */
export interface SourcesCommandOptions {
  json: boolean;
  kind?: string | undefined;
  url?: string | undefined;
  branch?: string | undefined;
  include: string[];
  exclude: string[];
  path?: string | undefined;
  sitemap?: string | undefined;
  prefix?: string | undefined;
  maxPages?: string | undefined;
  concurrency?: string | undefined;
  delayMs?: string | undefined;
  tags: string[];
  type?: string | undefined;
  /** Comma list of extractors (structural, offline, llm). */
  extractors?: string | undefined;
  schedule?: string | undefined;
  timeout?: string | undefined;
  /** A file holding the private deploy key of a GIT source over ssh (a key never goes on the command line). */
  deployKeyFile?: string | undefined;
  knownHostsFile?: string | undefined;
  keepDocuments: boolean;
}

export const USAGE =
  'usage: cairn sources add <name> --kind GIT|SITE|OPENAPI|FOLDER [--url U] [--branch B] [--include G]… [--exclude G]… [--path P] ' +
  '[--sitemap U] [--prefix P] [--max-pages N] [--concurrency N] [--delay-ms N] [--tag T]… [--type T] [--extractors structural,offline,llm] [--schedule S] [--timeout SECONDS] [--deploy-key FILE] [--known-hosts FILE] ' +
  '| sources list [--json] | sources sync <name|id> [--json] | sources remove <name|id> [--keep-documents]';

function int(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw.trim())) throw new UsageError(`${flag} must be a whole number, got "${raw}"`);
  return Number(raw);
}

function readOption(file: string | undefined, flag: string): string | null {
  if (file === undefined) return null;
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

/** `--extractors`: checked names (a model for `llm` is checked where the source is created). */
function extractorList(raw: string | undefined): string[] | null {
  if (raw === undefined) return null;
  try {
    return validateExtractors(raw.split(','), '--extractors', { llmModel: true });
  } catch (err) {
    throw isAppError(err) ? new UsageError(err.message) : err;
  }
}

/** The flags of `sources add` as a source input. */
export function rawInput(name: string, o: SourcesCommandOptions): RawSourceInput {
  const kind = o.kind?.toUpperCase();
  if (!kind) throw new UsageError(`sources add needs --kind GIT, SITE, OPENAPI or FOLDER; ${USAGE}`);
  return {
    name,
    kind: kind as RawSourceInput['kind'],
    url: o.url ?? null,
    branch: o.branch ?? null,
    include: o.include.length > 0 ? o.include : null,
    exclude: o.exclude.length > 0 ? o.exclude : null,
    path: o.path ?? null,
    sitemapUrl: o.sitemap ?? null,
    pathPrefix: o.prefix ?? null,
    maxPages: int(o.maxPages, '--max-pages') ?? null,
    concurrency: int(o.concurrency, '--concurrency') ?? null,
    delayMs: int(o.delayMs, '--delay-ms') ?? null,
    tags: o.tags,
    documentType: o.type?.toLowerCase() ?? null,
    extractors: extractorList(o.extractors),
    schedule: o.schedule ?? null,
    syncTimeoutSeconds: int(o.timeout, '--timeout') ?? null,
    deployKey: readOption(o.deployKeyFile, '--deploy-key'),
    sshKnownHosts: readOption(o.knownHostsFile, '--known-hosts'),
  };
}

const iso = (d: Date | null): string => (d ? d.toISOString() : '-');

function toJson(s: SourceRecord, documentCount?: number) {
  return {
    id: s.id,
    name: s.name,
    kind: s.kind,
    config: s.config,
    ...(s.deployKey
      ? { deployKeyPublicKey: s.deployKey.publicKey, deployKeyFingerprint: s.deployKey.fingerprint }
      : {}),
    tags: s.tags,
    schedule: s.schedule,
    status: s.status,
    lastRunAt: s.lastRunAt?.toISOString() ?? null,
    nextRunAt: s.nextRunAt?.toISOString() ?? null,
    counts: s.counts,
    lastError: s.lastError,
    ...(documentCount !== undefined ? { documentCount } : {}),
  };
}

/** `cairn sources add|list|sync|remove`: registers, lists, syncs (here, with progress) and removes sources. */
export async function sourcesCommand(
  config: Config,
  logger: Logger,
  args: string[],
  opts: SourcesCommandOptions,
): Promise<number> {
  const { action, target } = sourcesAction(args, USAGE);
  const services = await createServices(config, logger, { importQueue: false });
  try {
    const sources = services.sources;
    switch (action) {
      case 'add': {
        const source = await sources.create(rawInput(target as string, opts));
        process.stdout.write(
          opts.json
            ? `${JSON.stringify(toJson(source))}\n`
            : `Added ${source.kind} source "${source.name}" (${source.id}); ${source.schedule ? `next sync ${iso(source.nextRunAt)}` : 'it syncs on request: cairn sources sync'}.\n${source.deployKey ? `Its deploy key (add it to the repository's deploy keys, read-only): ${source.deployKey.publicKey}\n` : ''}`,
        );
        return 0;
      }
      case 'list': {
        const all = await sources.list();
        const counts = await sources.documentCounts(all.map((s) => s.id));
        process.stdout.write(
          opts.json
            ? `${JSON.stringify(all.map((s) => toJson(s, counts.get(s.id) ?? 0)))}\n`
            : `${all.length === 0 ? 'No sources.' : sourcesTable(all.map((s) => ({ ...s, documentCount: counts.get(s.id) ?? 0, lastRunAt: s.lastRunAt?.toISOString() ?? null, nextRunAt: s.nextRunAt?.toISOString() ?? null })))}\n`,
        );
        return 0;
      }
      case 'sync': {
        const source = await sources.byIdOrNameOrFail(target as string);
        // The sync runs in this process, which reports each item as it finishes.
        const job = await sources.sync(source.id, { async: false, onProgress: progressReporter('items', opts.json) });
        const after = await sources.byIdOrNameOrFail(source.id);
        if (opts.json)
          process.stdout.write(
            `${JSON.stringify({ event: 'summary', jobId: job.id, jobStatus: job.status, ...toJson(after), warnings: job.warnings })}\n`,
          );
        else
          process.stderr.write(
            `\nSync of "${after.name}" ${after.status}: ${syncSummary(after.counts)}.${after.lastError ? `\n${after.lastErrorCode}: ${after.lastError}` : ''}\n${syncWarnings(job.warnings)}`,
          );
        return after.status === 'SUCCEEDED' ? 0 : 1;
      }
      default: {
        const result = await sources.delete(target as string, opts.keepDocuments);
        process.stdout.write(
          opts.json
            ? `${JSON.stringify({ id: result.source.id, documentsRemoved: result.documentsRemoved, documentsKept: result.documentsKept })}\n`
            : `Removed source "${result.source.name}": ${result.documentsRemoved} document(s) removed, ${result.documentsKept} kept.\n`,
        );
        return 0;
      }
    }
  } finally {
    await services.close();
  }
}
