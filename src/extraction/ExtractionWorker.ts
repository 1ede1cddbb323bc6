import { runInSpace } from '../db/spaceScope.js';
import type { Logger } from '../logger.js';
import { OwnContext } from '../shared/ownContext.js';
import type { ExtractionPipeline } from './ExtractionPipeline.js';
import type { ClaimedDocument, ExtractionQueueRepository, ExtractionResult } from './ExtractionQueueRepository.js';
import type { DocumentExtractionOutcome } from './types.js';

/** Timers the worker uses (tests inject their own, so no test waits for time to pass). */
export interface WorkerTimers {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** Worker settings (config.extraction). */
export interface ExtractionWorkerOptions {
  /** Batches in hand at once; each batch also runs its extractors on this many documents at once. */
  concurrency: number;
  /** Documents claimed together and reconciled in one round. */
  batchDocuments: number;
  /** How often to look for queued work; 0: only when nudged. */
  pollMs: number;
  leaseMs: number;
  maxAttempts: number;
  /** True when this process owns the database alone (PGlite): every lease at start is from a dead run. */
  exclusive: boolean;
  now?: () => Date;
  timers?: WorkerTimers;
}

/** How long a document that failed for a passing reason (database, graph store) waits before its next claim. */
const RETRY_AFTER_MS = 5000;
/**
 * While documents keep coming, an idle pass (the mention backfill, which reads every chunk) starts at most after this
 * many times its last duration has passed since it ended: it then takes at most a fifth of the time.
 */
const IDLE_GAP_FACTOR = 4;

const realTimers: WorkerTimers = {
  setInterval: (fn, ms) => {
    const handle = setInterval(fn, ms);
    handle.unref();
    return handle;
  },
  clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
};

/**
 * Extracts queued documents in the background, in batches: claims up to `batchDocuments` at once (at most
 * `concurrency` batches in hand) under a lease it renews every third of `leaseMs`, reconciles each batch in one round,
 * and takes over documents whose lease ran out (their instance died). Nothing is lost on a crash: the row stays
 * queued until its outcome is recorded, and a rerun replaces the document's evidence whole.
 */
export class ExtractionWorker {
  private readonly running = new Map<string, { claim: ClaimedDocument; done: Promise<void> }>();
  private batches = 0;
  private readonly stopping = new AbortController();
  private readonly now: () => Date;
  private readonly timers: WorkerTimers;
  private handles: unknown[] = [];
  private ticking: Promise<void> | undefined;
  private again = false;
  private started = false;
  private claiming: Promise<unknown> = Promise.resolve();
  private idleRun: Promise<void> | undefined;
  private idleAllowedAt = 0;
  private readonly context = new OwnContext();

  /** `idle`: work for when the queue is empty (the deferred mention backfill); drain waits for it. */
  constructor(
    private readonly queue: ExtractionQueueRepository,
    private readonly pipeline: ExtractionPipeline,
    private readonly options: ExtractionWorkerOptions,
    private readonly logger: Logger,
    private readonly idle: () => Promise<void> = () => Promise.resolve(),
  ) {
    this.now = options.now ?? (() => new Date());
    this.timers = options.timers ?? realTimers;
  }

  /** Voids a dead run's leases (PGlite), then renews leases and polls for work. */
  async start(): Promise<void> {
    if (this.options.exclusive) await this.queue.expireAllLeases();
    this.started = true;
    this.handles.push(this.timers.setInterval(() => void this.renewLeases(), Math.max(100, this.options.leaseMs / 3)));
    if (this.options.pollMs > 0) this.handles.push(this.timers.setInterval(() => this.nudge(), this.options.pollMs));
    this.nudge();
  }

  /** Looks for work now (a write queued some); nothing before `start`. */
  nudge(): void {
    this.context.run(() => this.lookForWork());
  }

  private lookForWork(): void {
    if (!this.started || this.stopping.signal.aborted) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = this.tick().finally(() => {
      this.ticking = undefined;
      if (this.again) {
        this.again = false;
        this.lookForWork();
      }
    });
  }

  /** Claims and extracts until the queue has nothing this worker may take; resolves when all of it is done. */
  async drain(): Promise<void> {
    // A document finished meanwhile may queue others again (documents linking to its new page entity): look again
    // until nothing is pending or running, a bounded number of times (another instance's running documents end it).
    for (let round = 0; round < 100; round++) {
      await this.ticking;
      const claimed = await this.claimAndRun();
      await Promise.all([...this.running.values()].map((r) => r.done));
      if (claimed !== 0 || this.running.size !== 0) continue;
      // A poll of this worker may be claiming right now: its documents count as running until it is awaited above.
      const counts = await this.queue.statusCounts();
      if (counts.pending + counts.running === 0) {
        // A pass already running may have read its work before the last batch: one more after it.
        await this.idleRun;
        await this.runIdle(true);
        return;
      }
    }
  }

  /** Extends the leases of the documents this worker holds. */
  async renewLeases(): Promise<void> {
    const ids = [...this.running.keys()];
    if (ids.length === 0) return;
    await this.queue
      .renew(ids, new Date(this.now().getTime() + this.options.leaseMs))
      .catch((err: unknown) => this.logger.warn({ err }, 'could not renew extraction leases'));
  }

  /** Stops polling and waits for the documents being extracted (an aborted one is queued again at once). */
  async stop(): Promise<void> {
    this.stopping.abort();
    for (const h of this.handles) this.timers.clearInterval(h);
    this.handles = [];
    await this.ticking;
    await Promise.all([...this.running.values()].map((r) => r.done));
    await this.idleRun;
  }

  /** Runs the idle work unless it is running; unforced, only when IDLE_GAP_FACTOR allows. */
  private runIdle(force: boolean): Promise<void> {
    if (this.idleRun) return this.idleRun;
    const started = this.now().getTime();
    if (!force && (started < this.idleAllowedAt || this.stopping.signal.aborted)) return Promise.resolve();
    this.idleRun = this.idle()
      .catch((err: unknown) => this.logger.warn({ err }, 'idle extraction work failed; retrying later'))
      .finally(() => {
        const ended = this.now().getTime();
        this.idleAllowedAt = ended + (ended - started) * IDLE_GAP_FACTOR;
        this.idleRun = undefined;
      });
    return this.idleRun;
  }

  private async tick(): Promise<void> {
    try {
      await this.claimAndRun();
    } catch (err) {
      this.logger.warn({ err }, 'could not claim documents to extract');
    }
  }

  /** One claim at a time, so that this worker never holds more than `concurrency` batches. */
  private claimAndRun(): Promise<number> {
    const next = this.claiming.then(() => this.claimOnce());
    this.claiming = next.catch(() => undefined);
    return next;
  }

  private async claimOnce(): Promise<number> {
    if (this.batches >= this.options.concurrency || this.stopping.signal.aborted) return 0;
    const now = this.now();
    const claims = await this.queue.claim(
      now,
      new Date(now.getTime() + this.options.leaseMs),
      this.options.batchDocuments,
      this.options.maxAttempts,
    );
    if (claims.length === 0) {
      if (this.batches === 0) void this.runIdle(false);
      return 0;
    }
    this.batches += 1;
    const done = this.process(claims).finally(() => {
      this.batches -= 1;
      for (const claim of claims) this.running.delete(claim.documentId);
      this.nudge();
    });
    for (const claim of claims) this.running.set(claim.documentId, { claim, done });
    return claims.length;
  }

  /** Extracts a batch, each space's documents in their space (reads, names and writes stay there). */
  private async process(claims: readonly ClaimedDocument[]): Promise<void> {
    const bySpace = new Map<string, ClaimedDocument[]>();
    for (const claim of claims) bySpace.set(claim.space, [...(bySpace.get(claim.space) ?? []), claim]);
    for (const [space, own] of bySpace) await runInSpace(space, () => this.processInSpace(own));
  }

  /** Extracts one space's claims and records each document's outcome; a document that failed alone is retried alone. */
  private async processInSpace(claims: readonly ClaimedDocument[]): Promise<void> {
    const signal = this.stopping.signal;
    let results: Map<string, DocumentExtractionOutcome | Error>;
    try {
      results = await this.pipeline.extractBatch(
        claims.map((c) => ({ documentId: c.documentId, removed: c.removed, extractors: c.extractors })),
        { signal, parallel: this.options.concurrency },
      );
    } catch (err) {
      await this.retry(claims, err);
      return;
    }
    const finished = claims.flatMap((claim) => {
      const r = results.get(claim.documentId);
      return r === undefined || r instanceof Error ? [] : [{ claim, result: toResult(r) }];
    });
    try {
      await this.queue.finishMany(finished);
    } catch (err) {
      await this.retry(
        finished.map((f) => f.claim),
        err,
      );
    }
    for (const claim of claims) {
      const r = results.get(claim.documentId);
      if (r === undefined || r instanceof Error) await this.retry([claim], r ?? new Error('not extracted'));
    }
  }

  /** Queues claims again after an error that may pass (the database or graph store was away): later, or at once. */
  private async retry(claims: readonly ClaimedDocument[], err: unknown): Promise<void> {
    const signal = this.stopping.signal;
    const message = err instanceof Error ? err.message : String(err);
    const retryAt = signal.aborted ? this.now() : new Date(this.now().getTime() + RETRY_AFTER_MS);
    for (const claim of claims) {
      if (!signal.aborted) this.logger.warn({ err, documentId: claim.documentId }, 'extraction failed; retrying later');
      await this.queue
        .retryLater(claim, message, retryAt)
        .catch((e: unknown) => this.logger.warn({ err: e }, 'could not queue an extraction again'));
    }
  }
}

/** What the queue records of an outcome. */
export function toResult(outcome: DocumentExtractionOutcome): ExtractionResult {
  return {
    status: outcome.status === 'FAILED' ? 'FAILED' : 'DONE',
    ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    warnings: outcome.warnings,
    entities: outcome.entities,
    relationships: outcome.relationships,
  };
}
