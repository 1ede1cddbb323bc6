import { describe, expect, it } from '@jest/globals';
import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { chunk, embedInBatches, l2Normalize, mapWithConcurrency } from '../../../../src/embeddings/batching.js';
import {
  backoffDelayMs,
  isRetryable,
  RequestTimeoutError,
  retryAfterMs,
  RetryFailure,
  withRetries,
  withTimeout,
} from '../../../../src/embeddings/openai/retry.js';
import { AppError } from '../../../../src/errors.js';

const apiError = (status: number, headers: Record<string, string> = {}) =>
  APIError.generate(status, { message: 'x' }, undefined, new Headers(headers));

describe('retry policy', () => {
  it('retries 408, 429, 5xx, timeouts and connection errors only', () => {
    for (const status of [408, 429, 500, 502, 503]) expect(isRetryable(apiError(status))).toBe(true);
    for (const status of [400, 401, 403, 404, 422]) expect(isRetryable(apiError(status))).toBe(false);
    expect(isRetryable(new APIConnectionError({ message: 'refused' }))).toBe(true);
    expect(isRetryable(new RequestTimeoutError(10))).toBe(true);
    expect(isRetryable(new APIUserAbortError())).toBe(false);
    expect(isRetryable(new Error('bug'))).toBe(false);
  });

  it('reads Retry-After as seconds, as an HTTP date, and retry-after-ms first', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(retryAfterMs(apiError(429, { 'retry-after': '2' }), now)).toBe(2000);
    expect(retryAfterMs(apiError(429, { 'retry-after': 'Tue, 01 Jan 2030 00:00:03 GMT' }), now)).toBe(3000);
    expect(retryAfterMs(apiError(429, { 'retry-after-ms': '150', 'retry-after': '9' }), now)).toBe(150);
    expect(retryAfterMs(apiError(429, { 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(apiError(500), now)).toBeUndefined();
    expect(retryAfterMs(new Error('x'), now)).toBeUndefined();
  });

  it('backs off exponentially with bounded jitter and a cap', () => {
    const policy = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect(backoffDelayMs(0, policy, () => 0)).toBe(75);
    expect(backoffDelayMs(0, policy, () => 1)).toBe(125);
    expect(backoffDelayMs(2, policy, () => 0.5)).toBe(400);
    expect(backoffDelayMs(10, policy, () => 0.5)).toBe(1_000);
  });

  it('stops at maxRetries and reports the attempts made', async () => {
    let calls = 0;
    const failing = withRetries(
      async () => {
        calls++;
        throw apiError(503);
      },
      { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 },
    );
    await expect(failing).rejects.toBeInstanceOf(RetryFailure);
    await expect(failing).rejects.toMatchObject({ attempts: 3 });
    expect(calls).toBe(3);
  });

  it('turns an expired deadline into RequestTimeoutError', async () => {
    const slow = withTimeout(20, (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))));
    await expect(slow).rejects.toBeInstanceOf(RequestTimeoutError);
    await expect(withTimeout(1_000, async () => 'ok')).resolves.toBe('ok');
  });
});

describe('batching helpers', () => {
  it('chunks, maps in order with a concurrency bound, and stops scheduling after a failure', async () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(() => chunk([1], 0)).toThrow(RangeError);

    let inFlight = 0;
    let maxInFlight = 0;
    const out = await mapWithConcurrency([30, 5, 20, 1, 10], 2, async (ms, i) => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await new Promise((r) => setTimeout(r, ms));
      inFlight--;
      return i;
    });
    expect(out).toEqual([0, 1, 2, 3, 4]);
    expect(maxInFlight).toBe(2);

    const started: number[] = [];
    await expect(
      mapWithConcurrency([0, 1, 2, 3, 4, 5], 1, async (n) => {
        started.push(n);
        if (n === 1) throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(started).toEqual([0, 1]);
  });

  it('embedInBatches rejects a batch that returns the wrong number of vectors', async () => {
    await expect(embedInBatches(['a', 'b'], { batchSize: 2, concurrency: 1 }, async () => [new Float32Array(1)])).rejects.toBeInstanceOf(
      AppError,
    );
    expect(await embedInBatches([], { batchSize: 2, concurrency: 1 }, async () => [])).toEqual([]);
  });

  it('l2Normalize returns unit vectors and leaves zero vectors alone', () => {
    expect(Array.from(l2Normalize([3, 4]))).toEqual([0.6000000238418579, 0.800000011920929]);
    expect(Array.from(l2Normalize([0, 0]))).toEqual([0, 0]);
  });
});
