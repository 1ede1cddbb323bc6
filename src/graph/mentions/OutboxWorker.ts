import type { Logger } from '../../logger.js';
import { OwnContext } from '../../shared/ownContext.js';
import type { GraphStore } from '../GraphStore.js';
import type { OutboxRepository } from './OutboxRepository.js';

const BATCH = 500;
const MAX_BACKOFF_MS = 30_000;
/** How often a drain also deletes entries applied more than a day ago (OutboxRepository.prune). */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/**
 * Applies queued mention changes to Neo4j in id order. Operations are idempotent (MERGE / DELETE), so a batch that
 * fails half-way is simply applied again; while Neo4j is down the worker backs off and the backlog waits.
 */
export class OutboxWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private failures = 0;
  private stopped = true;
  private prunedAt = Number.NEGATIVE_INFINITY;
  private readonly context = new OwnContext();

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly store: GraphStore,
    private readonly logger: Logger,
    private readonly intervalMs = 500,
    /** Milliseconds, for the pruning interval (tests pass their own clock). */
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Starts polling. */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Asks for a drain soon (after a write queued something). */
  nudge(): void {
    if (!this.stopped && this.failures === 0) this.context.run(() => this.schedule(0));
  }

  /** Applies everything pending now; resolves to the number of entries applied. Concurrent calls share one run. */
  drain(): Promise<number> {
    this.running ??= this.applyAll().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Stops polling and waits for a run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  private schedule(delay: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      void this.drain()
        .then(() => {
          this.failures = 0;
        })
        .catch((err: unknown) => {
          this.failures++;
          this.logger.warn(
            { err: (err as Error).message, failures: this.failures },
            'graph outbox: Neo4j write failed; will retry',
          );
        })
        .finally(() => {
          if (!this.stopped)
            this.schedule(
              this.failures === 0 ? this.intervalMs : Math.min(MAX_BACKOFF_MS, this.intervalMs * 2 ** this.failures),
            );
        });
    }, delay);
    this.timer.unref();
  }

  private async applyAll(): Promise<number> {
    const apply = this.store.applyMentionOps?.bind(this.store);
    if (!apply) return 0;
    // Applied entries are kept a day (for inspection), then deleted: the table would otherwise grow with every write.
    if (this.now() - this.prunedAt >= PRUNE_EVERY_MS) {
      await this.outbox.prune();
      this.prunedAt = this.now();
    }
    let total = 0;
    for (;;) {
      const batch = await this.outbox.pending(BATCH);
      if (batch.length === 0) return total;
      const ids = batch.map((b) => b.id);
      try {
        await apply(batch.map((b) => b.op));
      } catch (err) {
        await this.outbox.markFailed(ids, (err as Error).message);
        throw err;
      }
      await this.outbox.markDone(ids);
      this.logger.debug({ applied: batch.length }, 'graph outbox applied');
      total += batch.length;
    }
  }
}
