import type {
  BulkLoadSession,
  Db,
  ImportConfig,
  ImportDocuments,
  ImportGraph,
  InputLimits,
  Logger,
  VectorIndexing,
} from '../src/importerPort.js';
import { AppError, ErrorCode, isAppError } from '../src/errors.js';
import type { SafeFetcher } from './http/SafeFetcher.js';
import type { ImportJobRepository } from './jobs/ImportJobRepository.js';
import type { JobContext } from './jobs/ImportJobRunner.js';
import type {
  ImportJobItemRecord,
  ImportJobRecord,
  ImportJobStatus,
  ImportRequest,
  ItemEvent,
  ItemOutcome,
} from './jobs/types.js';
import { SpecGuard } from './openapi/SpecGuard.js';
import type { SpecImportPlan } from './openapi/specOrigin.js';
import { ItemPlanner } from './pipeline/ItemPlanner.js';
import { ImportAborted, writePlan, type PlanWriter } from './pipeline/writePlan.js';
import type { UploadRepository } from './uploads/UploadRepository.js';

/** What running jobs needs. */
export interface ImportJobExecutorDeps {
  db: Db;
  documents: ImportDocuments;
  graph: ImportGraph;
  /** The vector index's upkeep during a large job. */
  indexing: VectorIndexing;
  fetcher: SafeFetcher;
  config: ImportConfig;
  limits: InputLimits;
  logger: Logger;
}

/** How a caller wants a job run. */
export interface SubmitOptions {
  /** Return the queued job at once instead of waiting for it. */
  async?: boolean;
  /** Called after each item (in this process only); the CLI prints these. */
  onItem?: (event: ItemEvent) => void;
  /** Called as a source sync reports progress (in this process only); `cairn sources sync` draws it. */
  onProgress?: (progress: { done: number; total: number }) => void;
}

/** Runs a source's sync as the one item of its job (the sources module registers it). */
export type SourceSyncExecutor = (
  job: ImportJobRecord,
  request: Extract<ImportRequest, { kind: 'source' }>,
  context: {
    signal: AbortSignal;
    onBatchWritten: (documentIds: readonly string[]) => Promise<void>;
    progress: JobContext['progress'];
  },
) => Promise<ItemOutcome>;

/** Runs an extractGraph job to its final status (importers/extract registers it), recording its items in `jobs`. */
export type ExtractJobExecutor = (
  job: ImportJobRecord,
  context: JobContext,
  jobs: ImportJobRepository,
) => Promise<ImportJobStatus>;

/**
 * Executes a job the queue hands over: plans and writes each pending item (extractGraph and source-sync jobs through
 * the executors their modules register), records each item's outcome, and tells this process's listeners.
 */
export class ImportJobExecutor {
  private readonly listeners = new Map<string, (event: ItemEvent) => void>();
  private readonly progressListeners = new Map<string, (progress: { done: number; total: number }) => void>();
  private readonly planner: ItemPlanner;
  private readonly writer: PlanWriter;
  /** Serialises writes per spec id; source syncs write specs through it too. */
  private readonly specGuard: SpecGuard;
  private sourceSync: SourceSyncExecutor | undefined;
  private extractJobs: ExtractJobExecutor | undefined;

  constructor(
    private readonly deps: ImportJobExecutorDeps,
    private readonly jobs: ImportJobRepository,
    uploads: UploadRepository,
  ) {
    this.planner = new ItemPlanner({ fetcher: deps.fetcher, config: deps.config }, uploads, deps.config.uploadMaxBytes);
    this.writer = { documents: deps.documents, graph: deps.graph, limits: deps.limits };
    this.specGuard = new SpecGuard(deps.db, { documents: deps.documents, graph: deps.graph });
  }

  /** Registers what runs a source's sync job. */
  setSourceSyncExecutor(executor: SourceSyncExecutor): void {
    this.sourceSync = executor;
  }

  /** Registers what runs an extractGraph job. */
  setExtractExecutor(executor: ExtractJobExecutor): void {
    this.extractJobs = executor;
  }

  /** Runs `write` as the only writer of the plan's spec id, once the spec may take that id (see SpecGuard). */
  writeSpec<T>(plan: SpecImportPlan, write: () => Promise<T>): Promise<T> {
    return this.specGuard.write(plan, write);
  }

  /** Tells `options`' listeners about the job while `work` runs it in this process. */
  async listening<T>(jobId: string, options: SubmitOptions, work: () => Promise<T>): Promise<T> {
    if (options.onItem) this.listeners.set(jobId, options.onItem);
    if (options.onProgress) this.progressListeners.set(jobId, options.onProgress);
    try {
      return await work();
    } finally {
      this.listeners.delete(jobId);
      this.progressListeners.delete(jobId);
    }
  }

  async execute(job: ImportJobRecord, context: JobContext): Promise<ImportJobStatus> {
    if (job.request.kind === 'extract') {
      if (!this.extractJobs)
        throw new AppError(ErrorCode.INTERNAL_SERVER_ERROR, 'graph extraction is not available in this process');
      const progress = async (done: number, total: number) => {
        await context.progress(done, total);
        this.progressListeners.get(job.id)?.({ done, total });
      };
      return this.extractJobs(job, { ...context, progress }, this.jobs);
    }
    const rebuildFailed = (err: unknown) =>
      this.deps.logger.warn(
        { err, jobId: job.id },
        'HNSW index rebuild after the import failed; searches scan exactly until the next start-up rebuilds it',
      );
    // A large job drops the HNSW index once it is projected to pay off, and rebuilds it when the job ends.
    const status = await this.deps.indexing.bulkLoad((bulk) => this.executeItems(job, context, bulk), {
      deferIndex: this.deps.config.deferVectorIndex,
      logger: this.deps.logger,
      onRebuildError: rebuildFailed,
    });
    // The instance that died may have dropped the index for this load; the rest of it may be too small to drop it again.
    if (context.takenOver) await this.deps.indexing.ensureIndex(this.deps.logger).catch(rebuildFailed);
    return status;
  }

  private async executeItems(
    job: ImportJobRecord,
    context: JobContext,
    bulk: BulkLoadSession,
  ): Promise<ImportJobStatus> {
    const total = job.items.length;
    let embedded = 0;
    let done = job.items.filter((i) => i.status !== 'PENDING').length;
    for (const item of job.items) {
      if (item.status !== 'PENDING') continue;
      if (context.signal.aborted) return 'INTERRUPTED';
      const event: ItemEvent = {
        jobId: job.id,
        ordinal: item.ordinal,
        label: item.label,
        status: 'SUCCEEDED',
        documentIds: [],
        chunkCount: 0,
        embeddedChunkCount: 0,
        changedDocuments: 0,
      };
      try {
        const onProgress = total === 1 ? (d: number, t: number) => context.progress(d, t) : undefined;
        const itemsBefore = done;
        // The item's documents are recorded batch by batch, so a job interrupted mid-item still lists what it wrote.
        const onBatchWritten = async (chunks: number, fraction: number, ids: readonly string[]) => {
          await bulk.progress(embedded + chunks, (itemsBefore + fraction) / total);
          await this.jobs.itemDocumentsWritten(job.id, item.ordinal, ids);
        };
        const outcome = await this.runItem(job, item, context, onBatchWritten, onProgress);
        embedded += outcome.embeddedChunkCount;
        await this.jobs.itemSucceeded(job.id, item.ordinal, outcome);
        Object.assign(event, outcome);
      } catch (err) {
        if (err instanceof ImportAborted) return 'INTERRUPTED';
        const code = isAppError(err) ? err.code : ErrorCode.INTERNAL_SERVER_ERROR;
        const message = isAppError(err) ? err.message : 'unexpected error while importing; see the server log';
        if (!isAppError(err)) this.deps.logger.error({ err, jobId: job.id, item: item.label }, 'import item failed');
        await this.jobs.itemFailed(job.id, item.ordinal, code, message);
        Object.assign(event, { status: 'FAILED', errorCode: code, error: message });
      }
      done += 1;
      if (total > 1) await context.progress(done, total);
      this.listeners.get(job.id)?.(event);
    }
    const items = (await this.jobs.get(job.id))?.items ?? [];
    const failed = items.filter((i) => i.status === 'FAILED').length;
    const succeeded = items.filter((i) => i.status === 'SUCCEEDED').length;
    if (failed === 0) return 'SUCCEEDED';
    return succeeded === 0 ? 'FAILED' : 'PARTIAL';
  }

  private async runItem(
    job: ImportJobRecord,
    item: ImportJobItemRecord,
    context: JobContext,
    onBatchWritten: (chunks: number, fraction: number, ids: readonly string[]) => Promise<void>,
    onProgress: ((done: number, total: number) => Promise<void>) | undefined,
  ): Promise<ItemOutcome> {
    const request = job.request;
    if (request.kind === 'extract') throw new Error('extractGraph jobs run whole, never item by item here');
    if (request.kind === 'source') {
      if (!this.sourceSync)
        throw new AppError(ErrorCode.INTERNAL_SERVER_ERROR, 'source syncs are not available in this process');
      const progress = async (done: number, total: number) => {
        await context.progress(done, total);
        this.progressListeners.get(job.id)?.({ done, total });
      };
      return this.sourceSync(job, request, {
        signal: context.signal,
        progress,
        onBatchWritten: (ids) => onBatchWritten(0, 0, ids),
      });
    }
    const plan = await this.planner.plan(request, item);
    // A spec whose derived id another spec holds fails here (CONFLICT), before anything is written.
    return this.specGuard.write(plan, () =>
      writePlan(plan, this.writer, { signal: context.signal, onBatchWritten, ...(onProgress ? { onProgress } : {}) }),
    );
  }
}
