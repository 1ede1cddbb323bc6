import { setTimeout as delay } from 'node:timers/promises';

/** Milliseconds since some fixed point (Date.now by default; a test's fake clock). */
export type Clock = () => number;
/** Resolves after `ms` (a test's wait advances its fake clock instead); rejects when `signal` aborts. */
export type Wait = (ms: number, signal?: AbortSignal) => Promise<void>;

const MINUTE_MS = 60_000;

const realWait: Wait = (ms, signal) => delay(ms, undefined, signal ? { signal } : {});

/**
 * At most `requestsPerMinute` requests in any sliding minute (CAIRN_EXTRACTION_LLM_REQUESTS_PER_MINUTE). Callers take
 * turns in arrival order; one over the budget waits until the oldest request of the window is a minute old. The SDK's
 * own HTTP retries are not counted: they back off by themselves.
 */
export class RequestRateLimiter {
  readonly #perMinute: number;
  readonly #now: Clock;
  readonly #wait: Wait;
  /** Start times of the requests of the last minute, oldest first. */
  readonly #sent: number[] = [];
  #turn: Promise<void> = Promise.resolve();

  constructor(requestsPerMinute: number, clock: Clock = Date.now, wait: Wait = realWait) {
    if (!Number.isInteger(requestsPerMinute) || requestsPerMinute < 1)
      throw new RangeError(`requestsPerMinute must be a positive integer, got ${requestsPerMinute}`);
    this.#perMinute = requestsPerMinute;
    this.#now = clock;
    this.#wait = wait;
  }

  /** Resolves when one more request may be sent now (and counts it). */
  acquire(signal?: AbortSignal): Promise<void> {
    const mine = this.#turn.then(() => this.#take(signal));
    // The next caller waits for this one's turn, whether it was granted or aborted.
    this.#turn = mine.catch(() => undefined);
    return mine;
  }

  async #take(signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.#now();
      while (this.#sent.length > 0 && (this.#sent[0] ?? 0) <= now - MINUTE_MS) this.#sent.shift();
      if (this.#sent.length < this.#perMinute) {
        this.#sent.push(now);
        return;
      }
      await this.#wait((this.#sent[0] ?? now) + MINUTE_MS - now, signal);
    }
  }
}
