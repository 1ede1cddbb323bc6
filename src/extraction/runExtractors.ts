import { createHash } from 'node:crypto';
import type { CachedExtraction, ExtractionCacheRepository } from './ExtractionCacheRepository.js';
import {
  ChunkExtractionError,
  type ChunkExtraction,
  type ChunkForExtraction,
  type DocumentForExtraction,
  type Extractor,
  type TokenBudget,
} from './types.js';

/** Chunks one extractor call gets, so that a token budget can stop a document between calls (the model's: fewer). */
const CHUNKS_PER_CALL = 16;
const MODEL_CHUNKS_PER_CALL = 4;

/** The cache key of one chunk for one extractor: its text, the extractor, its fingerprint and the chunk's context. */
export function extractionCacheKey(
  extractor: Extractor,
  document: DocumentForExtraction,
  chunk: ChunkForExtraction,
): string {
  return createHash('sha256')
    .update(
      [chunk.content, extractor.name, extractor.fingerprint, extractor.contextKey(document, chunk)].join('\u0000'),
    )
    .digest('hex');
}

/** What one extractor found in a document's chunks (undefined: not extracted, because it failed or the budget ran out). */
export interface ExtractorRun {
  extractor: Extractor;
  results: (ChunkExtraction | undefined)[];
  warnings: string[];
  /** Chunks the extractor could not extract, with the reason. */
  failures: string[];
  tokens: number;
  budgetExhausted: boolean;
}

/** Runs one extractor over the chunks the cache does not hold, stores what it found and spends its tokens. */
export async function runExtractor(
  extractor: Extractor,
  document: DocumentForExtraction,
  chunks: readonly ChunkForExtraction[],
  cache: ExtractionCacheRepository,
  options: { budget?: TokenBudget; signal?: AbortSignal },
): Promise<ExtractorRun> {
  const keys = chunks.map((c) => extractionCacheKey(extractor, document, c));
  const cached = await cache.getMany(keys);
  const run: ExtractorRun = { extractor, results: [], warnings: [], failures: [], tokens: 0, budgetExhausted: false };
  const fresh = new Map<number, ChunkExtraction>();
  const missing = chunks.map((c, i) => ({ c, i })).filter(({ i }) => !cached.has(keys[i] as string));
  const perCall = extractor.name === 'llm' ? MODEL_CHUNKS_PER_CALL : CHUNKS_PER_CALL;
  for (let at = 0; at < missing.length; at += perCall) {
    if (options.budget?.exhausted()) {
      run.budgetExhausted = true;
      break;
    }
    options.signal?.throwIfAborted();
    const slice = missing.slice(at, at + perCall);
    const found = await extractSlice(
      extractor,
      document,
      slice.map((s) => s.c),
      options.signal,
      run.failures,
    );
    const entries: CachedExtraction[] = [];
    slice.forEach(({ i }, n) => {
      const result = found[n];
      if (!result) return;
      fresh.set(i, result);
      const promptTokens = result.usage?.promptTokens ?? 0;
      const completionTokens = result.usage?.completionTokens ?? 0;
      run.tokens += promptTokens + completionTokens;
      options.budget?.spend(promptTokens + completionTokens);
      entries.push({ key: keys[i] as string, extractor: extractor.name, result, promptTokens, completionTokens });
    });
    await cache.putMany(entries);
  }
  run.results = chunks.map((_, i) => fresh.get(i) ?? cached.get(keys[i] as string)?.result);
  for (const r of fresh.values()) run.warnings.push(...r.warnings.map((w) => `${extractor.name}: ${w}`));
  return run;
}

/**
 * Each chunk of the slice in its own call, all at once (the extractor bounds its own concurrency), so that a chunk
 * that fails costs only itself: a multi-chunk call that throws would lose the answers it already had.
 */
async function extractSlice(
  extractor: Extractor,
  document: DocumentForExtraction,
  chunks: readonly ChunkForExtraction[],
  signal: AbortSignal | undefined,
  failures: string[],
): Promise<(ChunkExtraction | undefined)[]> {
  const settled = await Promise.allSettled(chunks.map((chunk) => extractor.extract(document, [chunk], signal)));
  return settled.map((outcome, i) => {
    if (outcome.status === 'fulfilled') return outcome.value[0];
    const err: unknown = outcome.reason;
    if (!(err instanceof ChunkExtractionError)) throw err;
    failures.push(`${extractor.name}: chunk ${chunks[i]?.id ?? err.chunkId}: ${err.message}`);
    return undefined;
  });
}
