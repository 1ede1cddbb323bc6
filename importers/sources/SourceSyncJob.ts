import type { DocumentExtractor, Logger } from '../../src/importerPort.js';
import { AppError, ErrorCode, isAppError } from '../../src/errors.js';
import type { SourceSyncExecutor } from '../ImportJobExecutor.js';
import type { ImportJobRecord, ItemOutcome } from '../jobs/types.js';
import { ImportAborted } from '../pipeline/writePlan.js';
import type { SourceRepository, SyncResult } from './SourceRepository.js';
import { emptyReport, syncTimedOut, type SourceSyncer, type SyncReport } from './SourceSyncer.js';
import type { SourceRecord } from './types.js';

/** The default deadline: a timer. */
function timerDeadline(ms: number): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  return { signal: controller.signal, dispose: () => clearTimeout(timer) };
}

/** The body of a source's sync job: runs the syncer under the source's deadline and records how it ended. */
export class SourceSyncJob {
  constructor(
    private readonly repository: SourceRepository,
    private readonly syncer: SourceSyncer,
    private readonly now: () => Date,
    private readonly deps: {
      logger: Logger;
      /** A signal that fires once a sync has run for `ms` (tests inject one they fire themselves). */
      deadline?: (ms: number) => { signal: AbortSignal; dispose(): void };
    },
    /** What queues a sync's documents with the source's extractors, once the extractGraph service has set it. */
    private readonly extractorOf: () => Pick<DocumentExtractor, 'enqueue'> | undefined,
  ) {}

  /** The body of a source's sync job. */
  async run(job: ImportJobRecord, sourceId: string, context: Parameters<SourceSyncExecutor>[2]): Promise<ItemOutcome> {
    const source = await this.repository.get(sourceId);
    if (!source)
      throw new AppError(ErrorCode.NOT_FOUND, `source "${sourceId}" was removed before its sync ran`, { id: sourceId });
    await this.repository.markStarted(source.id, job.id, this.now());
    const timeout = (this.deps.deadline ?? timerDeadline)(source.syncTimeoutMs);
    const report = emptyReport();
    try {
      await this.syncer.sync(
        source,
        {
          signal: AbortSignal.any([context.signal, timeout.signal]),
          onBatchWritten: this.batchHook(source, context),
          progress: context.progress,
        },
        report,
      );
    } catch (err) {
      const shutdown = context.signal.aborted;
      const error = timeout.signal.aborted && !shutdown ? syncTimedOut(source) : err;
      const recorded = shutdown
        ? {
            code: 'INTERRUPTED',
            message:
              'the sync was stopped by a shutdown; the items it finished are kept and the next sync does the rest',
          }
        : {
            code: isAppError(error) ? error.code : ErrorCode.INTERNAL_SERVER_ERROR,
            message: isAppError(error) ? error.message : 'unexpected error; see the server log',
          };
      if (!isAppError(error) && !(error instanceof ImportAborted))
        this.deps.logger.error({ err: error, sourceId }, 'source sync failed');
      await this.repository.markFinished(source.id, {
        status: 'FAILED',
        counts: report.counts,
        error: recorded,
        finishedAt: this.now(),
      });
      throw shutdown ? new ImportAborted() : error;
    } finally {
      timeout.dispose();
    }
    const result = finishedResult(report, this.now());
    await this.repository.markFinished(source.id, result);
    if (result.status === 'FAILED')
      throw new AppError(ErrorCode.INVALID_FILE, result.error?.message ?? 'every item failed', { sourceId });
    const c = report.counts;
    return {
      documentIds: report.writtenIds,
      chunkCount: 0,
      embeddedChunkCount: 0,
      changedDocuments: c.added + c.updated + c.removed,
      warnings: [...report.failures.map((f) => `${f.label}: ${f.code}: ${f.message}`), ...report.warnings].slice(
        0,
        200,
      ),
    };
  }

  /**
   * The batch hook of a sync: records the documents on the job and, for a source that chose its extractors, queues
   * those not queued yet in this sync with them (the document write itself queued them with the configured ones).
   */
  private batchHook(source: SourceRecord, context: Parameters<SourceSyncExecutor>[2]) {
    const queued = new Set<string>();
    return async (ids: readonly string[]) => {
      await context.onBatchWritten(ids);
      const extractors = source.extractors;
      const extractor = this.extractorOf();
      if (!extractor || extractors === null) return;
      const fresh = ids.filter((id) => !queued.has(id));
      if (fresh.length === 0) return;
      for (const id of fresh) queued.add(id);
      // The documents are written (and queued with the configured extractors): a failure here must not fail the sync.
      await extractor
        .enqueue(fresh, { extractors })
        .catch((err: unknown) =>
          this.deps.logger.warn(
            { err: (err as Error).message, sourceId: source.id },
            "could not queue a sync's documents with the source's extractors",
          ),
        );
    };
  }
}

/** How a sync that got through its listing ended: PARTIAL when items failed, FAILED when nothing else was there. */
function finishedResult(report: SyncReport, finishedAt: Date): SyncResult {
  const failures = report.failures;
  const first = failures[0];
  if (!first) return { status: 'SUCCEEDED', counts: report.counts, error: null, state: report.finalState, finishedAt };
  const c = report.counts;
  const nothingElse = c.added + c.updated + c.unchanged === 0;
  const shown = failures
    .slice(0, 3)
    .map((f) => `${f.label}: ${f.message}`)
    .join('; ');
  const message = `${failures.length} item(s) failed and kept their previous documents: ${shown}${failures.length > 3 ? '; …' : ''}`;
  return {
    status: nothingElse ? 'FAILED' : 'PARTIAL',
    counts: c,
    error: { code: first.code, message },
    state: report.finalState,
    finishedAt,
  };
}
