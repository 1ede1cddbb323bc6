import { randomUUID } from 'node:crypto';
import { runInJob, runInSpace, runOutsideSpaces, type Logger } from '../../src/importerPort.js';
import type { ImportJobRepository, JobLease } from './ImportJobRepository.js';
import { FINISHED_STATUSES, type ImportJobRecord, type ImportJobStatus } from './types.js';

/** What a job body gets: a signal that fires on shutdown or a lost lease, and a way to report progress. */
export interface JobContext {
  signal: AbortSignal;
  progress(done: number, total: number): Promise<void>;
  /** The job was taken over from an instance that died: what that one left half-done may need repair. */
  takenOver: boolean;
}

/** Runs one claimed job to its final status. */
export type JobExecutor = (job: ImportJobRecord, context: JobContext) => Promise<ImportJobStatus>;

/** Runner settings. */
export interface JobRunnerOptions {
  /** Background jobs run at once by this process. */
  concurrency: number;
  /** How long a claim holds without renewal; renewed every third of it while the job runs. */
  leaseMs: number;
  /** How often to look for queued jobs and jobs whose lease ran out; 0 runs only the jobs handed to `run`. */
  pollMs: number;
  /** True when this process owns the database alone (PGlite): every RUNNING job at start is from a dead run. */
  exclusive: boolean;
  /**
   * On `stop`, put the jobs stopped here back in the queue for another instance (a server sharing its database, in a
   * rolling restart) instead of ending them INTERRUPTED.
   */
  handBackOnStop?: boolean;
  /** The time leases are measured in (tests inject one). */
  now?: () => Date;
}

/** Claims after which a job whose lease keeps running out is marked INTERRUPTED instead of taken over again. */
export const MAX_JOB_ATTEMPTS = 3;

/** A job running here, and how to stop it. */
interface LocalJob {
  done: Promise<void>;
  abort: AbortController;
}

/**
 * Claims and runs import jobs: synchronous ones at once, queued ones in the background up to `concurrency`. Every
 * claim is a lease in the job's row, renewed while the job runs; any instance takes over a job whose lease ran out.
 */
export class ImportJobRunner {
  /** Identifies this process in `import_jobs.runner_id`. */
  readonly runnerId = randomUUID();
  private readonly running = new Map<string, LocalJob>();
  private readonly stopping = new AbortController();
  private readonly now: () => Date;
  private pollTimer: NodeJS.Timeout | undefined;
  private leaseTimer: NodeJS.Timeout | undefined;
  private ticking = false;

  constructor(
    private readonly jobs: ImportJobRepository,
    private readonly execute: JobExecutor,
    private readonly options: JobRunnerOptions,
    private readonly logger: Logger,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /** Voids the leases of a dead run (PGlite), starts renewing leases and polling for queued and abandoned jobs. */
  async start(): Promise<void> {
    if (this.options.exclusive) {
      const abandoned = await this.jobs.expireAllLeases();
      if (abandoned > 0)
        this.logger.warn(
          { jobs: abandoned },
          'import jobs left running by a stopped process; they resume from their committed items',
        );
    }
    this.leaseTimer = setInterval(() => void this.renewLeases(), Math.max(100, Math.floor(this.options.leaseMs / 3)));
    this.leaseTimer.unref();
    if (this.options.pollMs > 0) {
      this.pollTimer = setInterval(() => void this.tick(), this.options.pollMs);
      this.pollTimer.unref();
      void this.tick();
    }
  }

  /** Looks for queued jobs now (after an async submit, or when a job here ends), unless this runner does not poll. */
  kick(): void {
    // A one-shot process (a CLI run) takes no one else's job: it would stop it half-done when it exits. The poll looks
    // at every space's jobs, whichever request kicked it.
    if (this.options.pollMs > 0) void runOutsideSpaces(() => this.tick());
  }

  /** Claims this job and runs it here, resolving when it has finished (whoever ran it). */
  async run(jobId: string): Promise<ImportJobRecord> {
    if (!this.running.has(jobId) && (await this.jobs.claim(jobId, this.runnerId, this.lease()))) this.launch(jobId);
    return this.waitFor(jobId);
  }

  /** Resolves with the job once it has a final status. */
  async waitFor(jobId: string): Promise<ImportJobRecord> {
    for (;;) {
      const local = this.running.get(jobId);
      if (local) await local.done;
      const job = await this.jobs.get(jobId);
      if (!job) throw new Error(`import job ${jobId} vanished`);
      if (FINISHED_STATUSES.includes(job.status)) return job;
      await new Promise((resolve) => setTimeout(resolve, 200)); // run by another process: poll
    }
  }

  /** Stops polling, signals running jobs to stop between items, and waits for them. */
  async stop(): Promise<void> {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.stopping.abort();
    await Promise.allSettled([...this.running.values()].map((job) => job.done));
    if (this.leaseTimer) clearInterval(this.leaseTimer);
  }

  /** Renews the leases of the jobs running here; a job another instance took over meanwhile is stopped here. */
  async renewLeases(): Promise<void> {
    if (this.running.size === 0) return;
    // Only jobs claimed before the renewal starts: one claimed meanwhile may be missing from its answer.
    const claimed = [...this.running];
    try {
      const held = new Set(await this.jobs.renewLeases(this.runnerId, this.lease()));
      for (const [jobId, job] of claimed) {
        if (held.has(jobId) || job.abort.signal.aborted || !this.running.has(jobId)) continue;
        this.logger.warn({ jobId }, 'import job lease lost (another instance took the job over); stopping it here');
        job.abort.abort();
      }
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'could not renew import job leases');
    }
  }

  /** Claims queued jobs and jobs whose lease ran out, up to the concurrency limit. */
  async tick(): Promise<void> {
    if (this.ticking || this.stopping.signal.aborted) return;
    this.ticking = true;
    try {
      const exhausted = await this.jobs.interruptExhausted(this.now(), MAX_JOB_ATTEMPTS);
      if (exhausted.length > 0)
        this.logger.error(
          { jobs: exhausted },
          `import jobs lost their instance ${MAX_JOB_ATTEMPTS} times; marked INTERRUPTED (resume them with resumeImportJob)`,
        );
      while (this.running.size < this.options.concurrency && !this.stopping.signal.aborted) {
        const claimed = await this.jobs.claimNext(this.runnerId, this.lease(), MAX_JOB_ATTEMPTS);
        if (!claimed) break;
        if (claimed.takenOverFrom !== null)
          this.logger.warn(
            { jobId: claimed.id, from: claimed.takenOverFrom },
            'took over an import job whose lease ran out',
          );
        this.launch(claimed.id, claimed.takenOverFrom !== null);
      }
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'import job poll failed');
    } finally {
      this.ticking = false;
    }
  }

  private lease(): JobLease {
    const now = this.now();
    return { now, until: new Date(now.getTime() + this.options.leaseMs) };
  }

  private launch(jobId: string, takenOver = false): void {
    const abort = new AbortController();
    const signal = AbortSignal.any([this.stopping.signal, abort.signal]);
    // The job is read whatever space set it off, and runs in its own space: its documents land where it was made.
    const body = runOutsideSpaces(async () => {
      let status: ImportJobStatus = 'FAILED';
      try {
        const job = await this.jobs.get(jobId);
        if (!job) return;
        const context: JobContext = {
          signal,
          takenOver,
          progress: (done, total) => this.jobs.setProgress(jobId, done, total),
        };
        // The audit log records every change the job makes as the job's, so that undoing the job reverts it.
        status = await runInSpace(job.space, () => runInJob(jobId, () => this.execute(job, context)));
      } catch (err) {
        this.logger.error({ err, jobId }, 'import job crashed');
      }
      const handBack = status === 'INTERRUPTED' && this.stopping.signal.aborted && this.options.handBackOnStop === true;
      const end = handBack ? this.jobs.handBack(jobId, this.runnerId) : this.jobs.finish(jobId, this.runnerId, status);
      await end.catch((err: unknown) => this.logger.error({ err, jobId }, 'could not record the end of an import job'));
    });
    const done = body.finally(() => {
      this.running.delete(jobId);
      if (!this.stopping.signal.aborted) this.kick();
    });
    this.running.set(jobId, { done, abort });
  }
}
