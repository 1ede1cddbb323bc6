import type { Db } from '../db/Db.js';
import { jsonParam } from '../db/rowValues.js';
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
    // One JSON document: escaping each result's JSON into a text array cost more than storing it.
    await this.db.query(
      `INSERT INTO extraction_cache (key, extractor, result, prompt_tokens, completion_tokens)
       SELECT x.k, x.e, x.r, x.p, x.c FROM jsonb_to_recordset($1::jsonb) AS x(k text, e text, r jsonb, p int, c int)
       ON CONFLICT (key) DO NOTHING`,
      [
        jsonParam(
          entries.map((e) => ({ k: e.key, e: e.extractor, r: e.result, p: e.promptTokens, c: e.completionTokens })),
        ),
      ],
    );
  }
}
