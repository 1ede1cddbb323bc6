import type { SessionLock } from './db/sessionLock.js';
import type { Logger } from './logger.js';

/** Background work that must run in one process at a time. */
export interface LeaderTask {
  start(): void;
  stop(): Promise<void>;
}

/** Timers, injectable so tests advance time themselves. */
export interface LeaderTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: LeaderTimers = {
  set: (fn, ms) => setTimeout(fn, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Runs `tasks` in the one process holding the leader lock (a session advisory lock on its own connection). Every
 * `retryMs` the others try to take it and the leader confirms it still holds it; when the leader's process or
 * connection dies, Postgres releases the lock and the next try elsewhere takes over.
 */
export class Leadership {
  private leader = false;
  private timer: unknown;
  private stopped = true;
  private attempt: Promise<void> | undefined;
  private readonly timers: LeaderTimers;

  constructor(
    private readonly lock: SessionLock,
    private readonly tasks: readonly LeaderTask[],
    private readonly options: { retryMs: number; logger: Logger; timers?: LeaderTimers },
  ) {
    this.timers = options.timers ?? realTimers;
  }

  /** True while this process runs the leader's tasks. */
  get isLeader(): boolean {
    return this.leader;
  }

  /** Tries at once, then every `retryMs`; resolves after the first try. */
  start(): Promise<void> {
    this.stopped = false;
    return this.check();
  }

  /**
   * Called when the lock's connection dropped: the tasks stop now, and this process competes again at its next retry
   * like any other (it does not take the freed lock straight back).
   */
  lost(): void {
    void (this.attempt ?? Promise.resolve()).then(async () => {
      // A lock released by stop() is no loss: only a leader that did not choose to stop warns.
      if (this.leader && !this.stopped) await this.step(false);
    });
  }

  /** One try (never two at once): takes or confirms the lock, and starts or stops the tasks to match. */
  check(): Promise<void> {
    this.attempt ??= this.tryOnce().finally(() => {
      this.attempt = undefined;
      this.schedule();
    });
    return this.attempt;
  }

  /** Stops the tasks and gives the lock up. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.clear(this.timer);
    await this.attempt;
    if (this.leader) await this.step(false, 'stopping');
    await this.lock.release();
  }

  private async tryOnce(): Promise<void> {
    if (this.stopped) return;
    const held = await this.lock.tryAcquire();
    if (held !== this.leader && !this.stopped) await this.step(held);
  }

  /** Starts or stops the tasks; `why` tells a lock lost to the database (a warning) from a clean stop (quiet). */
  private async step(leader: boolean, why: 'lost' | 'stopping' = 'lost'): Promise<void> {
    this.leader = leader;
    if (leader) {
      for (const t of this.tasks) t.start();
      this.options.logger.info('this process is the leader: it runs the expiry sweep and the graph outbox');
      return;
    }
    await Promise.all(this.tasks.map((t) => t.stop().catch(() => undefined)));
    if (why === 'stopping') this.options.logger.debug('leader stopping: background work stopped, lock released');
    else this.options.logger.warn('this process lost the leader lock: its background work stopped');
  }

  private schedule(): void {
    this.timers.clear(this.timer);
    if (!this.stopped) this.timer = this.timers.set(() => void this.check(), this.options.retryMs);
  }
}
