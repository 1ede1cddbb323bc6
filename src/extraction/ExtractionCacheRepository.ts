import type { Db } from '../db/Db.js';
import type { ChunkExtraction } from './types.js';

/** One cached result: what an extractor found in a chunk text, and the tokens it cost then. */
export interface CachedExtraction {
  key: string;
  extractor: string;
  result: ChunkExtraction;
  promptTokens: number;
  completionTokens: number;
}

/** The extraction_cache table: an unchanged chunk is never extracted twice. */
export class ExtractionCacheRepository {
  constructor(private readonly db: Db) {}

  /** The cached results among `keys`. */
  async getMany(keys: readonly string[]): Promise<Map<string, CachedExtraction>> {
    if (keys.length === 0) return new Map();
    const { rows } = await this.db.query<{
      key: string;
      extractor: string;
      result: ChunkExtraction;
      prompt_tokens: number;
      completion_tokens: number;
    }>(
      'SELECT key, extractor, result, prompt_tokens, completion_tokens FROM extraction_cache WHERE key = ANY($1::text[])',
      [[...new Set(keys)]],
    );
    return new Map(
      rows.map((r) => [
        r.key,
        {
          key: r.key,
          extractor: r.extractor,
          result: r.result,
          promptTokens: r.prompt_tokens,
          completionTokens: r.completion_tokens,
        },
      ]),
    );
  }

  /** Stores results (a key stored already keeps its first result: extractors are deterministic). */
  async putMany(entries: readonly CachedExtraction[]): Promise<void> {
    if (entries.length === 0) return;
    await this.db.query(
      `INSERT INTO extraction_cache (key, extractor, result, prompt_tokens, completion_tokens)
       SELECT x.k, x.e, x.r::jsonb, x.p, x.c FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::int[]) AS x(k, e, r, p, c)
       ON CONFLICT (key) DO NOTHING`,
      [
        entries.map((e) => e.key),
        entries.map((e) => e.extractor),
        entries.map((e) => JSON.stringify(e.result)),
        entries.map((e) => e.promptTokens),
        entries.map((e) => e.completionTokens),
      ],
    );
  }
}
