import { OwnContext } from '../shared/ownContext.js';

/** Timers a recheck runs on (tests inject their own and fire them, so no test waits for time to pass). */
export interface RecheckTimers {
  /** Calls `fn` every `ms`; the promise it returns settles when that recheck has finished. */
  setInterval(fn: () => Promise<void>, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

const realTimers: RecheckTimers = {
  setInterval: (fn, ms) => {
    const handle = setInterval(() => void fn(), ms);
    handle.unref();
    return handle;
  },
  clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
};

/**
 * Re-reads state this process caches from the database (whether any API key exists, the entity names' version) in
 * the background, every `intervalMs` and whenever `run` is called: a request answers from the cache and never waits
 * for, or sends, a recheck. Changes made by this process drop its caches at once and other processes' changes arrive
 * by notification (changeFeed.ts), which runs a recheck; the interval bounds how long a missed notification leaves a
 * cache out of date. An interval of 0 leaves the rechecks to notifications.
 */
export class BackgroundRecheck {
  #handle: unknown;
  #running: Promise<void> | undefined;
  /** A run was asked for while one was under way: it may have read before the change, so one more follows. */
  #again = false;
  /** The context this was built in: a recheck a request asks for carries none of its scope, route or count. */
  readonly #context = new OwnContext();

  constructor(
    private readonly check: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
    private readonly timers: RecheckTimers = realTimers,
  ) {}

  /** Starts the periodic rechecks. */
  start(): void {
    if (this.intervalMs <= 0 || this.#handle !== undefined) return;
    this.#handle = this.#context.run(() => this.timers.setInterval(() => this.run(), this.intervalMs));
  }

  /** Rechecks now, outside any request; resolves when a recheck that started after this call has finished. */
  run(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    const loop = async () => {
      do {
        this.#again = false;
        await this.#context.run(() => this.check()).catch(this.onError);
      } while (this.#again);
    };
    this.#running = loop().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Stops the periodic rechecks and waits for one under way. */
  async stop(): Promise<void> {
    if (this.#handle !== undefined) this.timers.clearInterval(this.#handle);
    this.#handle = undefined;
    this.#again = false;
    await this.#running;
  }
}
