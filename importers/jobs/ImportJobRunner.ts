import { randomUUID } from 'node:crypto';
import type { Logger } from '../../src/logger.js';
import type { ImportJobRepository } from './ImportJobRepository.js';
import { FINISHED_STATUSES, type ImportJobRecord, type ImportJobStatus } from './types.js';

/** What a job body gets: a signal that fires on shutdown, and a way to report progress. */
export interface JobContext {
  signal: AbortSignal;
  progress(done: number, total: number): Promise<void>;
}

/** Runs one claimed job to its final status. */
export type JobExecutor = (job: ImportJobRecord, context: JobContext) => Promise<ImportJobStatus>;

/** Runner settings. */
export interface JobRunnerOptions {
  /** Background jobs run at once by this process. */
  concurrency: number;
  /** A RUNNING job whose heartbeat is older than this belonged to a process that died. */
  staleMs: number;
  /** How often to look for queued and stale jobs. */
  pollMs: number;
  /** True when this process owns the database alone (PGlite): every RUNNING job at start is from a dead run. */
  exclusive: boolean;
}

/** Claims and runs import jobs: synchronous ones at once, queued ones in the background up to `concurrency`. */
export class ImportJobRunner {
  /** Identifies this process in `import_jobs.runner_id`. */
  readonly runnerId = randomUUID();
  private readonly running = new Map<string, Promise<void>>();
  private readonly stopping = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;

  constructor(
    private readonly jobs: ImportJobRepository,
    private readonly execute: JobExecutor,
    private readonly options: JobRunnerOptions,
    private readonly logger: Logger,
  ) {}

  /** Marks jobs of dead processes INTERRUPTED and starts polling for queued ones. */
  async start(): Promise<void> {
    const interrupted = await this.jobs.interruptStale(this.options.exclusive ? 0 : this.options.staleMs);
    if (interrupted.length > 0) this.logger.warn({ jobs: interrupted }, 'import jobs interrupted by a restart; resume them with resumeImportJob');
    if (this.options.pollMs > 0) {
      this.timer = setInterval(() => void this.tick(), this.options.pollMs);
      this.timer.unref();
    }
    void this.tick();
  }

  /** Looks for queued jobs now (after an async submit). */
  kick(): void {
    void this.tick();
  }

  /** Claims this job and runs it here, resolving when it has finished (whoever ran it). */
  async run(jobId: string): Promise<ImportJobRecord> {
    if (!this.running.has(jobId) && (await this.jobs.claim(jobId, this.runnerId))) this.launch(jobId);
    return this.waitFor(jobId);
  }

  /** Resolves with the job once it has a final status. */
  async waitFor(jobId: string): Promise<ImportJobRecord> {
    for (;;) {
      const local = this.running.get(jobId);
      if (local) await local;
      const job = await this.jobs.get(jobId);
      if (!job) throw new Error(`import job ${jobId} vanished`);
      if (FINISHED_STATUSES.includes(job.status)) return job;
      await new Promise((resolve) => setTimeout(resolve, 200)); // run by another process: poll
    }
  }

  /** Stops polling, signals running jobs to stop between items, and waits for them. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.stopping.abort();
    await Promise.allSettled([...this.running.values()]);
  }

  private async tick(): Promise<void> {
    if (this.ticking || this.stopping.signal.aborted) return;
    this.ticking = true;
    try {
      if (this.running.size > 0) await this.jobs.heartbeat(this.runnerId);
      if (!this.options.exclusive) await this.jobs.interruptStale(this.options.staleMs, this.runnerId);
      while (this.running.size < this.options.concurrency && !this.stopping.signal.aborted) {
        const id = await this.jobs.claimNext(this.runnerId);
        if (!id) break;
        this.launch(id);
      }
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'import job poll failed');
    } finally {
      this.ticking = false;
    }
  }

  private launch(jobId: string): void {
    const body = (async () => {
      let status: ImportJobStatus = 'FAILED';
      try {
        const job = await this.jobs.get(jobId);
        if (!job) return;
        const context: JobContext = {
          signal: this.stopping.signal,
          progress: (done, total) => this.jobs.setProgress(jobId, done, total),
        };
        status = await this.execute(job, context);
      } catch (err) {
        this.logger.error({ err, jobId }, 'import job crashed');
      }
      await this.jobs.finish(jobId, status).catch((err: unknown) => this.logger.error({ err, jobId }, 'could not record the end of an import job'));
    })();
    const tracked = body.finally(() => {
      this.running.delete(jobId);
      if (!this.stopping.signal.aborted) void this.tick();
    });
    this.running.set(jobId, tracked);
  }
}
