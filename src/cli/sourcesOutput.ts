import { UsageError } from './cliErrors.js';

/** One source as `cairn sources list` shows it, whether read here or from a running server. */
export interface SourceListRow {
  name: string;
  kind: string;
  status: string;
  documentCount: number;
  schedule: string | null;
  lastRunAt: string | null;
  nextRunAt: string | null;
}

/** A sync's item counts. */
export interface SyncCounts {
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  skipped: number;
}

/** The sources as an aligned text table. */
export function sourcesTable(sources: readonly SourceListRow[]): string {
  const rows = [
    ['NAME', 'KIND', 'STATUS', 'DOCS', 'SCHEDULE', 'LAST RUN', 'NEXT RUN'],
    ...sources.map((s) => [
      s.name,
      s.kind,
      s.status,
      String(s.documentCount),
      s.schedule ?? 'manual',
      s.lastRunAt ?? '-',
      s.nextRunAt ?? '-',
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** "added 1, updated 0, …" for a sync's last line. */
export function syncSummary(counts: SyncCounts): string {
  return `added ${counts.added}, updated ${counts.updated}, removed ${counts.removed}, unchanged ${counts.unchanged}, skipped ${counts.skipped}`;
}

/** Warnings shown after a sync's last line: files left out and why, items that failed (the first 20). */
export function syncWarnings(warnings: readonly string[]): string {
  const shown = warnings.slice(0, 20).map((w) => `warning: ${w}\n`);
  if (warnings.length > 20) shown.push(`and ${warnings.length - 20} more warnings\n`);
  return shown.join('');
}

/** The action and source name of `cairn sources …`, or a UsageError quoting `usage`. */
export function sourcesAction(args: readonly string[], usage: string): { action: string; target: string | undefined } {
  const [action, target, ...extra] = args;
  if (!action || !['add', 'list', 'sync', 'remove'].includes(action))
    throw new UsageError(action ? `unknown sources action "${action}"; ${usage}` : usage);
  if (action !== 'list' && (!target || extra.length > 0))
    throw new UsageError(`sources ${action} takes exactly one source name; ${usage}`);
  return { action, target };
}
