import { AppError, ErrorCode } from '../errors.js';

/** How `embedInBatches` splits and schedules work. */
export interface BatchingOptions {
  /** Maximum number of texts per back-end call. */
  batchSize: number;
  /** Maximum number of back-end calls in flight at once. */
  concurrency: number;
}

/** Splits items into consecutive chunks of at most `size` items. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunk size must be a positive integer, got ${size}`);
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

/**
 * Maps `fn` over items with at most `limit` calls in flight; results keep input order.
 * On the first failure no new calls are started and the promise rejects with that error.
 */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`concurrency must be a positive integer, got ${limit}`);
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;

  // Each worker pulls the next index until the list is exhausted or a sibling failed.
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as T, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };

  const workers = Array.from({ length: Math.min(limit, items.length) }, () => worker());
  await Promise.all(workers);
  return results;
}

/**
 * Embeds texts in batches of `batchSize` with at most `concurrency` batches in flight, preserving order.
 * Throws `EMBEDDING_UNAVAILABLE` if a batch returns the wrong number of vectors.
 */
export async function embedInBatches(
  texts: readonly string[],
  options: BatchingOptions,
  embedBatch: (batch: string[], batchIndex: number) => Promise<Float32Array[]>,
): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  const batches = chunk(texts, options.batchSize);
  const results = await mapWithConcurrency(batches, options.concurrency, async (batch, batchIndex) => {
    const vectors = await embedBatch(batch, batchIndex);
    if (vectors.length !== batch.length) {
      throw new AppError(
        ErrorCode.EMBEDDING_UNAVAILABLE,
        `The embedder returned ${vectors.length} vectors for a batch of ${batch.length} texts`,
        { expected: batch.length, got: vectors.length },
      );
    }
    return vectors;
  });
  return results.flat();
}

/** L2-normalises a vector into a new Float32Array; an all-zero vector stays zero (there is no direction to keep). */
export function l2Normalize(values: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(values);
  let sum = 0;
  for (const v of out) sum += v * v;
  const norm = Math.sqrt(sum);
  if (norm > 0 && Number.isFinite(norm)) {
    for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) / norm;
  }
  return out;
}
