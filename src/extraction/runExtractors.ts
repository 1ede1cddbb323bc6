import { DEFAULT_SPACE, writeSpace } from '../db/spaceScope.js';
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

/**
 * The cache key of one chunk for one extractor: its text, the extractor, its fingerprint and the chunk's context, and
 * the running space unless it is `default`: a space never reuses (nor, by the tokens a job spends, learns of) another
 * space's text.
 */
export function extractionCacheKey(
  extractor: Extractor,
  document: DocumentForExtraction,
  chunk: ChunkForExtraction,
): string {
  const space = writeSpace();
  const parts = [chunk.content, extractor.name, extractor.fingerprint, extractor.contextKey(document, chunk)];
  return createHash('sha256')
    .update((space === DEFAULT_SPACE ? parts : [...parts, space]).join('\u0000'))
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

/** A document and its chunks, as one extractor run reads them. */
export interface DocumentChunks {
  document: DocumentForExtraction;
  chunks: readonly ChunkForExtraction[];
}

/** What an extractor run may be given: a token budget, an abort signal, and how many documents it extracts at once. */
export interface RunOptions {
  budget?: TokenBudget;
  signal?: AbortSignal;
  parallel?: number;
}

/** Runs one extractor over the chunks the cache does not hold, stores what it found and spends its tokens. */
export async function runExtractor(
  extractor: Extractor,
  document: DocumentForExtraction,
  chunks: readonly ChunkForExtraction[],
  cache: ExtractionCacheRepository,
  options: RunOptions,
): Promise<ExtractorRun> {
  const [run] = await runExtractorOnMany(extractor, [{ document, chunks }], cache, options);
  if (run instanceof Error || run === undefined) throw run ?? new Error('no extractor run');
  return run;
}

/**
 * Runs one extractor over a batch of documents: one cache read and one cache write for all of them (the model's
 * results are stored call by call: they cost tokens). A document whose extraction threw gets its error, and the
 * others go on; an abort ends the whole batch.
 */
export async function runExtractorOnMany(
  extractor: Extractor,
  documents: readonly DocumentChunks[],
  cache: ExtractionCacheRepository,
  options: RunOptions,
): Promise<(ExtractorRun | Error)[]> {
  const keys = documents.map((d) => d.chunks.map((c) => extractionCacheKey(extractor, d.document, c)));
  const cached = await cache.getMany(keys.flat());
  const later: CachedExtraction[] = [];
  const store = async (entries: CachedExtraction[]) => {
    if (extractor.name === 'llm') await cache.putMany(entries);
    else later.push(...entries);
  };
  const runs: (ExtractorRun | Error)[] = [];
  await eachAtMost(documents.length, options.parallel ?? 1, async (i) => {
    const d = documents[i] as DocumentChunks;
    try {
      runs[i] = await extractDocument(extractor, d, keys[i] as string[], cached, store, options);
    } catch (err) {
      if (options.signal?.aborted) throw err;
      runs[i] = err instanceof Error ? err : new Error(String(err));
    }
  });
  await cache.putMany(later);
  return runs;
}

async function extractDocument(
  extractor: Extractor,
  { document, chunks }: DocumentChunks,
  keys: readonly string[],
  cached: ReadonlyMap<string, CachedExtraction>,
  store: (entries: CachedExtraction[]) => Promise<void>,
  options: RunOptions,
): Promise<ExtractorRun> {
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
    await store(entries);
  }
  run.results = chunks.map((_, i) => fresh.get(i) ?? cached.get(keys[i] as string)?.result);
  for (const r of fresh.values()) run.warnings.push(...r.warnings.map((w) => `${extractor.name}: ${w}`));
  return run;
}

/** Calls `fn` for 0…n-1, at most `limit` at once, in order of start. */
async function eachAtMost(n: number, limit: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, n)) }, lane));
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
