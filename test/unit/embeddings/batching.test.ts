import { describe, expect, it } from '@jest/globals';
import { chunk, embedInBatches, l2Normalize, mapWithConcurrency } from '../../../src/embeddings/batching.js';
import { AppError } from '../../../src/errors.js';
import { eventually } from '../../helpers/eventually.js';

describe('batching helpers', () => {
  it('chunks, maps in order with a concurrency bound, and stops scheduling after a failure', async () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(() => chunk([1], 0)).toThrow(RangeError);

    // Each task waits until the test finishes it, last started first: results keep the input's order all the same.
    let inFlight = 0;
    let maxInFlight = 0;
    const waiting: (() => void)[] = [];
    const mapping = mapWithConcurrency([0, 1, 2, 3, 4], 2, async (n) => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await new Promise<void>((finish) => waiting.push(finish));
      inFlight--;
      return n;
    });
    for (let finished = 0; finished < 5; finished++) {
      await eventually(() => waiting.length > 0, { what: 'a task to start' });
      waiting.pop()?.();
    }
    expect(await mapping).toEqual([0, 1, 2, 3, 4]);
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
    await expect(
      embedInBatches(['a', 'b'], { batchSize: 2, concurrency: 1 }, async () => [new Float32Array(1)]),
    ).rejects.toBeInstanceOf(AppError);
    expect(await embedInBatches([], { batchSize: 2, concurrency: 1 }, async () => [])).toEqual([]);
  });

  it('l2Normalize returns unit vectors and leaves zero vectors alone', () => {
    expect(Array.from(l2Normalize([3, 4]))).toEqual([0.6000000238418579, 0.800000011920929]);
    expect(Array.from(l2Normalize([0, 0]))).toEqual([0, 0]);
  });
});
