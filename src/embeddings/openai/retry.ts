import { APIConnectionError, APIError, APIUserAbortError } from 'openai';

/** How often and how patiently a failed embeddings request is retried. */
export interface RetryPolicy {
  /** Retries after the first attempt (0 = a single attempt). */
  maxRetries: number;
  /** Delay before the first retry; doubles on every further retry. */
  baseDelayMs: number;
  /** Upper bound for any single delay, including one asked for by `Retry-After`. */
  maxDelayMs: number;
}

/** The last error of a request that failed for good, with the number of attempts made. */
export class RetryFailure extends Error {
  readonly attempts: number;
  readonly lastError: unknown;

  constructor(lastError: unknown, attempts: number) {
    super(lastError instanceof Error ? lastError.message : String(lastError), { cause: lastError });
    this.name = 'RetryFailure';
    this.attempts = attempts;
    this.lastError = lastError;
  }
}

/** Our own per-request timeout fired (the SDK's abort error cannot be told apart reliably across realms). */
export class RequestTimeoutError extends Error {
  readonly timeoutMs: number;

  constructor(timeoutMs: number, cause?: unknown) {
    super(`request timed out after ${timeoutMs} ms`, { cause });
    this.name = 'RequestTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/** Runs `run` with an abort signal that fires after `timeoutMs`; a resulting failure becomes `RequestTimeoutError`. */
export async function withTimeout<T>(timeoutMs: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    return await run(controller.signal);
  } catch (error) {
    throw timedOut ? new RequestTimeoutError(timeoutMs, error) : error;
  } finally {
    clearTimeout(timer);
  }
}

/** HTTP status of an SDK error, if the server answered at all. */
export function statusOf(error: unknown): number | undefined {
  return error instanceof APIError && typeof error.status === 'number' ? error.status : undefined;
}

/** True for failures worth retrying: 408, 429, 5xx, timeouts and connection errors (not other aborts). */
export function isRetryable(error: unknown): boolean {
  if (error instanceof RequestTimeoutError) return true;
  if (error instanceof APIUserAbortError) return false;
  if (error instanceof APIConnectionError) return true;
  const status = statusOf(error);
  return status === 408 || status === 429 || (status !== undefined && status >= 500);
}

/** Delay the server asked for via `retry-after-ms` or `Retry-After` (seconds or HTTP date); undefined if absent/invalid. */
export function retryAfterMs(error: unknown, now: number = Date.now()): number | undefined {
  if (!(error instanceof APIError) || !(error.headers instanceof Headers)) return undefined;
  const ms = error.headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = error.headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with ±25% jitter (so parallel clients do not retry in lockstep), capped at `maxDelayMs`. */
export function backoffDelayMs(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exponential = policy.baseDelayMs * 2 ** retry;
  const jittered = exponential * (0.75 + 0.5 * random());
  return Math.min(policy.maxDelayMs, Math.max(0, jittered));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `attempt` until it succeeds, a non-retryable error occurs or retries run out; failures throw `RetryFailure`. */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  onRetry?: (info: { error: unknown; retry: number; delayMs: number }) => void,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (retry >= policy.maxRetries || !isRetryable(error)) throw new RetryFailure(error, retry + 1);
      const asked = retryAfterMs(error);
      const delayMs = asked !== undefined ? Math.min(asked, policy.maxDelayMs) : backoffDelayMs(retry, policy);
      onRetry?.({ error, retry: retry + 1, delayMs });
      await sleep(delayMs);
    }
  }
}
