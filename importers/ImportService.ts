import {
  type BulkLoadSession,
  type Db,
  type ImportDocuments,
  type ImportGraph,
  type ImportConfig,
  type InputLimits,
  type Logger,
  type VectorIndexing,
} from '../src/importerPort.js';
import { keysetPage, type PageArgs } from '../src/shared/pageSize.js';
import { AppError, ErrorCode, isAppError } from '../src/errors.js';
import type { SafeFetcher } from './http/SafeFetcher.js';
import { ImportJobRepository, type ImportJobPage } from './jobs/ImportJobRepository.js';
import { ImportJobRunner, type JobContext } from './jobs/ImportJobRunner.js';
import type {
  ImportJobItemRecord,
  ImportJobRecord,
  ImportJobStatus,
  ImportRequest,
  ItemEvent,
  ItemOutcome,
} from './jobs/types.js';
import { ItemPlanner } from './pipeline/ItemPlanner.js';
import { ImportAborted, writePlan, type PlanWriter } from './pipeline/writePlan.js';
import { skippedFileWarnings } from './pipeline/walkDirectory.js';
import { SpecGuard } from './openapi/SpecGuard.js';
import type { SpecImportPlan } from './openapi/specOrigin.js';
import { UploadRepository, type UploadRecord } from './uploads/UploadRepository.js';

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

/** What the import service is built from. */
export interface ImportServiceDeps {
  db: Db;
  documents: ImportDocuments;
  graph: ImportGraph;
  /** The vector index's upkeep during a large job. */
  indexing: VectorIndexing;
  fetcher: SafeFetcher;
  config: ImportConfig;
  limits: InputLimits;
  logger: Logger;
  /** PGlite: this process owns the database, so RUNNING jobs found at start were interrupted. */
  exclusive: boolean;
  /** Job concurrency, lease and polling (see JobRunnerOptions). */
  jobs: { concurrency: number; leaseMs: number; pollMs: number };
  /** The time job leases are measured in (tests inject one). */
  now?: () => Date;
}

/** Records imports as jobs and runs them: URL, OpenAPI, uploaded file and folder imports. */
export class ImportService {
  private readonly jobs: ImportJobRepository;
  private readonly uploads: UploadRepository;
  private readonly runner: ImportJobRunner;
  private readonly listeners = new Map<string, (event: ItemEvent) => void>();
  private readonly progressListeners = new Map<string, (progress: { done: number; total: number }) => void>();
  private readonly planner: ItemPlanner;
  private readonly writer: PlanWriter;
  /** Serialises writes per spec id; source syncs write specs through it too. */
  private readonly specGuard: SpecGuard;
  private sourceSync: SourceSyncExecutor | undefined;
  private extractJobs: ExtractJobExecutor | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: ImportServiceDeps) {
    this.jobs = new ImportJobRepository(deps.db);
    this.uploads = new UploadRepository(deps.db, deps.config.uploadTtlMs);
    this.planner = new ItemPlanner(
      { fetcher: deps.fetcher, config: deps.config },
      this.uploads,
      deps.config.uploadMaxBytes,
    );
    this.writer = { documents: deps.documents, graph: deps.graph, limits: deps.limits };
    this.specGuard = new SpecGuard(deps.db, { documents: deps.documents, graph: deps.graph });
    this.runner = new ImportJobRunner(
      this.jobs,
      (job, context) => this.execute(job, context),
      // A server on a shared database hands its jobs back on shutdown; a one-shot CLI (no polling) stops its own.
      {
        ...deps.jobs,
        exclusive: deps.exclusive,
        handBackOnStop: !deps.exclusive && deps.jobs.pollMs > 0,
        ...(deps.now ? { now: deps.now } : {}),
      },
      deps.logger,
    );
  }

  /** Starts the queue (taking over jobs whose process died) and the upload sweep. */
  async start(): Promise<void> {
    await this.runner.start();
    this.sweepTimer = setInterval(() => {
      this.uploads
        .deleteExpired()
        .catch((err: unknown) => this.deps.logger.warn({ err: (err as Error).message }, 'upload sweep failed'));
    }, 10 * 60_000);
    this.sweepTimer.unref();
  }

  /** Lets running jobs stop between items (they end INTERRUPTED) and waits for them. */
  async stop(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await this.runner.stop();
  }

  /** Registers what runs a source's sync job. */
  setSourceSyncExecutor(executor: SourceSyncExecutor): void {
    this.sourceSync = executor;
  }

  /** Registers what runs an extractGraph job. */
  setExtractExecutor(executor: ExtractJobExecutor): void {
    this.extractJobs = executor;
  }

  /** Records a job for a validated request and runs it (or queues it when `async`). */
  async submit(request: ImportRequest, options: SubmitOptions = {}): Promise<ImportJobRecord> {
    return this.run((await this.record(request)).id, options);
  }

  /** Records a QUEUED job without starting it (a caller that must note the job first starts it with `run`). */
  async record(request: ImportRequest, labels: readonly string[] = itemLabels(request)): Promise<ImportJobRecord> {
    const job = await this.jobs.create(request, labels);
    const warnings = request.kind === 'directory' ? skippedFileWarnings(request.skipped ?? []) : [];
    if (warnings.length === 0) return job;
    await this.jobs.addWarnings(job.id, warnings);
    return { ...job, warnings: [...job.warnings, ...warnings] };
  }

  /** A job by id, or undefined. */
  job(id: string): Promise<ImportJobRecord | undefined> {
    return this.jobs.get(id);
  }

  /** One page of jobs newest first (`first` 0 to 100, default 20; `after` an earlier page's cursor), of one status or all. */
  async listJobs(page: PageArgs, status?: ImportJobStatus): Promise<ImportJobPage> {
    const { first, after } = keysetPage(page);
    return this.jobs.list(first, after, status);
  }

  /** A source's sync jobs, newest first. */
  jobsForSource(sourceId: string, first: number): Promise<ImportJobRecord[]> {
    return this.jobs.listForSource(sourceId, first);
  }

  /** Lets the queue take recorded jobs now rather than at its next poll. */
  kickQueue(): void {
    this.runner.kick();
  }

  /** Waits until a job that runs elsewhere (another caller here, or another instance) ends. */
  waitFor(jobId: string): Promise<ImportJobRecord> {
    return this.runner.waitFor(jobId);
  }

  /** Runs `write` as the only writer of the plan's spec id, once the spec may take that id (see SpecGuard). */
  writeSpec<T>(plan: SpecImportPlan, write: () => Promise<T>): Promise<T> {
    return this.specGuard.write(plan, write);
  }

  /** Keeps an uploaded file until it is imported or expires. */
  saveUpload(fileName: string, contentType: string | null, bytes: Buffer): Promise<UploadRecord> {
    return this.uploads.save(fileName, contentType, bytes);
  }

  /** An unexpired upload (without its bytes), or undefined. */
  findUpload(id: string): Promise<UploadRecord | undefined> {
    return this.uploads.find(id);
  }

  /** Runs a recorded job here (or, when `async`, lets the queue take it). */
  run(jobId: string, options: SubmitOptions = {}): Promise<ImportJobRecord> {
    return this.launch(jobId, options);
  }

  /** Runs the pending and failed items of an INTERRUPTED, FAILED or PARTIAL job again. */
  async resume(jobId: string, options: SubmitOptions = {}): Promise<ImportJobRecord> {
    const job = await this.jobs.get(jobId);
    if (!job)
      throw new AppError(ErrorCode.NOT_FOUND, `import job "${jobId}" does not exist`, { kind: 'ImportJob', id: jobId });
    if (!(await this.jobs.requeue(jobId))) {
      throw new AppError(
        ErrorCode.CONFLICT,
        `import job "${jobId}" is ${job.status}; only INTERRUPTED, FAILED or PARTIAL jobs can be resumed`,
        {
          id: jobId,
          status: job.status,
        },
      );
    }
    return this.launch(jobId, options);
  }

  private async launch(jobId: string, options: SubmitOptions): Promise<ImportJobRecord> {
    if (options.async) {
      this.runner.kick();
      return (await this.jobs.get(jobId)) as ImportJobRecord;
    }
    if (options.onItem) this.listeners.set(jobId, options.onItem);
    if (options.onProgress) this.progressListeners.set(jobId, options.onProgress);
    try {
      return await this.runner.run(jobId);
    } finally {
      this.listeners.delete(jobId);
      this.progressListeners.delete(jobId);
    }
  }

  private async execute(job: ImportJobRecord, context: JobContext): Promise<ImportJobStatus> {
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

/** One label per item: what the job reports in progress and errors. */
function itemLabels(request: ImportRequest): string[] {
  switch (request.kind) {
    case 'url':
      return request.urls;
    case 'openapi':
      return [request.url ?? request.file ?? `inline spec${request.title ? ` "${request.title}"` : ''}`];
    case 'upload':
      return [request.fileName];
    case 'directory':
      return request.files;
    case 'source':
      return [`sync of source "${request.sourceName}"`];
    case 'extract':
      return []; // its documents: the caller gives them (see record)
  }
}
