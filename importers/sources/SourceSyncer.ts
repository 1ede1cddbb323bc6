import type { ImportDocuments, Logger } from '../../src/importerPort.js';
import { AppError, ErrorCode, isAppError } from '../../src/errors.js';
import { fitPlanToDocumentLimits } from '../pipeline/fitPlan.js';
import type { DocumentDefaults, ItemOutcome } from '../jobs/types.js';
import type { SpecGuard } from '../openapi/SpecGuard.js';
import { skippedFileWarnings } from '../pipeline/walkDirectory.js';
import { ImportAborted, writePlan, type PlanWriter } from '../pipeline/writePlan.js';
import type { DriverContext, LoadedItem, SourceDriver, SourceRuntime, SyncItem } from './kinds/driver.js';
import type { SourceRepository } from './SourceRepository.js';
import type { SourceItemRecord, SourceRecord, SyncCounts } from './types.js';

/** What a sync needs. */
export interface SyncerDeps {
  repository: SourceRepository;
  documents: ImportDocuments;
  writer: PlanWriter;
  /** Serialises the writes of one spec id (the import service's guard). */
  specGuard: Pick<SpecGuard, 'write'>;
  runtime: SourceRuntime;
  drivers: (source: SourceRecord) => SourceDriver;
  logger: Logger;
}

/** How one sync went. */
export interface SyncReport {
  counts: SyncCounts;
  /** Each item that failed (its documents are kept as they were). */
  failures: { label: string; code: string; message: string }[];
  warnings: string[];
  /** Documents this sync added or updated. */
  writtenIds: string[];
  finalState: Record<string, unknown>;
}

/** Hooks of the job running the sync. */
export interface SyncHooks {
  signal: AbortSignal;
  onBatchWritten(documentIds: readonly string[]): Promise<void>;
  progress(done: number, total: number): Promise<void>;
}

/** A report with nothing done yet. */
export const emptyReport = (): SyncReport => ({
  counts: { added: 0, updated: 0, removed: 0, unchanged: 0, skipped: 0 },
  failures: [],
  warnings: [],
  writtenIds: [],
  finalState: {},
});

/**
 * Brings a source's documents in step with it: imports the items that changed (each as the source's own, so a
 * document of anyone else is a CONFLICT, never overwritten), records each item as it finishes, and once the listing is
 * complete removes the documents of items that are gone. Stopped mid-way, it keeps every finished item; the next sync
 * skips those and does the rest.
 */
export class SourceSyncer {
  constructor(private readonly deps: SyncerDeps) {}

  /** Runs the sync, filling `report` as it goes (a sync that throws leaves in it what it had done). */
  async sync(source: SourceRecord, hooks: SyncHooks, report: SyncReport = emptyReport()): Promise<SyncReport> {
    const { repository, documents } = this.deps;
    const ownedBefore = new Set(await documents.idsOwnedBy(source.id));
    // An item whose documents someone deleted since is imported again: its record no longer vouches for it.
    const previous = new Map(
      [...(await repository.items(source.id))].map(([key, item]) => [
        key,
        item.documentIds.every((id) => ownedBefore.has(id)) ? item : { ...item, fingerprint: '', state: {} },
      ]),
    );
    const driver = this.deps.drivers(source);
    let total = 0;
    let done = 0;
    const context: DriverContext = {
      source,
      previous,
      signal: hooks.signal,
      runtime: this.deps.runtime,
      planDeps: { fetcher: this.deps.runtime.fetcher, config: this.deps.runtime.importConfig },
      defaults: sourceDefaults(source),
      skip: (reason) => {
        report.counts.skipped += 1;
        if (report.warnings.length < 100) report.warnings.push(reason);
      },
      skipFiles: (files) => {
        report.counts.skipped += files.length;
        report.warnings.push(...skippedFileWarnings(files));
      },
      setTotal: (n) => {
        total = n;
      },
    };
    const seen = new Set<string>();
    for await (const item of driver.items(context)) {
      if (hooks.signal.aborted) throw new ImportAborted();
      seen.add(item.key);
      await this.syncItem(source, item, previous.get(item.key), ownedBefore, report, hooks);
      done += 1;
      await hooks.progress(done, Math.max(total, done));
    }
    if (hooks.signal.aborted) throw new ImportAborted();
    // The listing is complete: items that are gone take their documents with them.
    for (const [key, item] of previous) {
      if (seen.has(key)) continue;
      report.counts.removed += await this.removeOwned(source.id, item.documentIds);
      await repository.deleteItem(source.id, key);
    }
    report.counts.removed += await this.sweepStray(source.id);
    report.finalState = driver.finalState?.() ?? {};
    return report;
  }

  private async syncItem(
    source: SourceRecord,
    item: SyncItem,
    previous: SourceItemRecord | undefined,
    ownedBefore: ReadonlySet<string>,
    report: SyncReport,
    hooks: SyncHooks,
  ): Promise<void> {
    const counts = report.counts;
    if (previous && item.fingerprint !== undefined && previous.fingerprint === item.fingerprint) {
      counts.unchanged += previous.documentIds.length;
      return;
    }
    try {
      const loaded = await item.load(previous);
      if ('unchanged' in loaded || (previous && loaded.fingerprint === previous.fingerprint)) {
        counts.unchanged += previous?.documentIds.length ?? 0;
        const state = loaded.state;
        if (previous && state) await this.deps.repository.saveItem(source.id, { ...previous, state });
        return;
      }
      const outcome = await this.write(source, loaded, item.label, hooks, report.writtenIds);
      const added = outcome.documentIds.filter((id) => !ownedBefore.has(id)).length;
      counts.added += added;
      counts.updated += Math.max(0, outcome.changedDocuments - added);
      counts.unchanged += outcome.documentIds.length - outcome.changedDocuments;
      report.warnings.push(...outcome.warnings.map((w) => `${item.label}: ${w}`).slice(0, 20));
      // Documents the item no longer produces (operations gone from a spec) go with the item's new record.
      const kept = new Set(outcome.documentIds);
      counts.removed += await this.removeOwned(
        source.id,
        (previous?.documentIds ?? []).filter((id) => !kept.has(id)),
      );
      await this.deps.repository.saveItem(source.id, {
        key: item.key,
        fingerprint: loaded.fingerprint,
        documentIds: outcome.documentIds,
        state: loaded.state,
      });
    } catch (err) {
      // Stopped (shutdown or timeout): the item is not a failure of its own; the sync ends here.
      if (err instanceof ImportAborted || hooks.signal.aborted) throw new ImportAborted();
      if (!isAppError(err))
        this.deps.logger.error({ err, sourceId: source.id, item: item.label }, 'source item failed');
      const message = isAppError(err) ? err.message : 'unexpected error; see the server log';
      report.failures.push({
        label: item.label,
        code: isAppError(err) ? err.code : ErrorCode.INTERNAL_SERVER_ERROR,
        message,
      });
      if (previous) counts.unchanged += previous.documentIds.length;
    }
  }

  private async write(
    source: SourceRecord,
    loaded: LoadedItem,
    label: string,
    hooks: SyncHooks,
    writtenIds: string[],
  ): Promise<ItemOutcome> {
    // Vanished documents are found by comparing with the item's last record, only among the source's own.
    const plan = fitPlanToDocumentLimits({ ...loaded.plan }, sourceDefaults(source), label, {});
    delete plan.replacePrefix;
    const before = writtenIds.length;
    const outcome = await this.deps.specGuard.write(plan, () =>
      writePlan(plan, this.deps.writer, {
        signal: hooks.signal,
        owner: source.id,
        onBatchWritten: async (_chunks, _fraction, ids) => {
          writtenIds.splice(before, writtenIds.length - before, ...ids);
          await hooks.onBatchWritten(writtenIds);
        },
      }),
    );
    return outcome;
  }

  /** Deletes those of `ids` the source still owns; returns how many. */
  private async removeOwned(sourceId: string, ids: readonly string[]): Promise<number> {
    let removed = 0;
    for (const id of ids) if (await this.deps.documents.deleteOwned(id, sourceId)) removed += 1;
    return removed;
  }

  /** Removes documents the source owns that no item lists (written by a sync stopped before it recorded the item). */
  private async sweepStray(sourceId: string): Promise<number> {
    const listed = new Set([...(await this.deps.repository.items(sourceId)).values()].flatMap((i) => i.documentIds));
    const stray = (await this.deps.documents.idsOwnedBy(sourceId)).filter((id) => !listed.has(id));
    return this.removeOwned(sourceId, stray);
  }
}

/** The document fields a source sets on every document it writes (its metadata is the source's alone, so none kept). */
export function sourceDefaults(source: SourceRecord): DocumentDefaults {
  return { tags: source.tags, metadata: {}, ...(source.documentType ? { documentType: source.documentType } : {}) };
}

/** The error a sync that passed its timeout records. */
export function syncTimedOut(source: SourceRecord): AppError {
  return new AppError(
    ErrorCode.TIMEOUT,
    `the sync of source "${source.name}" passed its timeout of ${Math.round(source.syncTimeoutMs / 1000)} s; the items it finished are kept and the rest are imported by the next sync (raise syncTimeoutSeconds if it keeps happening)`,
    { sourceId: source.id, timeoutMs: source.syncTimeoutMs },
  );
}
