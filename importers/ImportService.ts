import { keysetPage, type PageArgs } from '../src/shared/pageSize.js';
import { AppError, ErrorCode } from '../src/errors.js';
import {
  ImportJobExecutor,
  type ExtractJobExecutor,
  type ImportJobExecutorDeps,
  type SourceSyncExecutor,
  type SubmitOptions,
} from './ImportJobExecutor.js';
import { ImportJobRepository, type ImportJobPage } from './jobs/ImportJobRepository.js';
import { ImportJobRunner } from './jobs/ImportJobRunner.js';
import type { ImportJobRecord, ImportJobStatus, ImportRequest } from './jobs/types.js';
import { skippedFileWarnings } from './pipeline/walkDirectory.js';
import type { SpecImportPlan } from './openapi/specOrigin.js';
import { UploadRepository, type UploadRecord } from './uploads/UploadRepository.js';

/** What the import service is built from: what runs jobs, and the queue's settings. */
export interface ImportServiceDeps extends ImportJobExecutorDeps {
  /** PGlite: this process owns the database, so RUNNING jobs found at start were interrupted. */
  exclusive: boolean;
  /** Job concurrency, lease and polling (see JobRunnerOptions). */
  jobs: { concurrency: number; leaseMs: number; pollMs: number };
  /** The time job leases are measured in (tests inject one). */
  now?: () => Date;
}

/**
 * Records imports as jobs and queues them (URL, OpenAPI, uploaded file and folder imports, source syncs and graph
 * extraction); ImportJobExecutor runs what the queue hands over.
 */
export class ImportService {
  private readonly jobs: ImportJobRepository;
  private readonly uploads: UploadRepository;
  private readonly runner: ImportJobRunner;
  private readonly executor: ImportJobExecutor;
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: ImportServiceDeps) {
    this.jobs = new ImportJobRepository(deps.db);
    this.uploads = new UploadRepository(deps.db, deps.config.uploadTtlMs);
    this.executor = new ImportJobExecutor(deps, this.jobs, this.uploads);
    this.runner = new ImportJobRunner(
      this.jobs,
      (job, context) => this.executor.execute(job, context),
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
    this.executor.setSourceSyncExecutor(executor);
  }

  /** Registers what runs an extractGraph job. */
  setExtractExecutor(executor: ExtractJobExecutor): void {
    this.executor.setExtractExecutor(executor);
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
    return this.executor.writeSpec(plan, write);
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
    return this.executor.listening(jobId, options, () => this.runner.run(jobId));
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
