import type { Db } from '../db/Db.js';
import { SqlParams } from '../db/sqlParams.js';
import { searchableChunksSql } from '../documents/filterSql.js';
import type { DocumentFilterSpec } from '../documents/types.js';
import type { LaneHit } from './types.js';

/** BM25 parameters and the candidate-pruning threshold. */
export interface Bm25Options {
  /** Term-frequency saturation (1.2 is the usual choice). */
  k1: number;
  /** Length normalisation, 0 (none) to 1 (full); 0.75 is the usual choice. */
  b: number;
  /**
   * Lexemes found in more than this share of chunks still score, but do not pull in candidates on their own, which keeps
   * the candidate set small (a chunk holding only such common words rarely ranks).
   */
  maxCandidateDf: number;
}

/** Defaults measured on SciFact (see bench). */
export const DEFAULT_BM25: Bm25Options = { k1: 1.2, b: 0.75, maxCandidateDf: 0.02 };

/** Queries use at most this many distinct lexemes, the rarest ones. */
const MAX_QUERY_TERMS = 64;

/** A query lexeme with its statistics. */
export interface QueryTerm {
  lexeme: string;
  df: number;
  idf: number;
}

/** What `terms` found for a query: its lexemes present in the corpus and the corpus totals. */
export interface QueryTerms {
  terms: QueryTerm[];
  chunkCount: number;
  avgLength: number;
}

/** Quotes a lexeme for tsquery input (the whole query is then passed as a parameter, never spliced into SQL). */
export function tsqueryLexeme(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** An OR tsquery over lexemes, as text for a `$n::tsquery` parameter. */
export function orTsquery(lexemes: readonly string[]): string {
  return lexemes.map(tsqueryLexeme).join(' | ');
}

/** BM25's inverse document frequency (Lucene's variant, never negative). */
export function bm25Idf(df: number, n: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * The lexemes that select candidates: every one found in at most `maxCandidateDf` of the chunks, and at least the rarest
 * ones until their document frequencies add up to `want` (so a query of only common words still finds candidates).
 */
export function candidateLexemes(terms: readonly QueryTerm[], chunkCount: number, maxCandidateDf: number, want: number): string[] {
  const sorted = [...terms].sort((a, b) => a.df - b.df);
  const out: string[] = [];
  let covered = 0;
  for (const t of sorted) {
    if (t.df <= maxCandidateDf * chunkCount || covered < want) {
      out.push(t.lexeme);
      covered += t.df;
    }
  }
  return out;
}

/**
 * BM25 over `chunks.keyword_tsv` (title + content), scored in SQL: candidates come from the GIN index with an OR
 * query, term frequencies from the tsvector positions, document frequencies and lengths from `keyword_terms` and
 * `keyword_stats`, which triggers keep current.
 */
export class KeywordSearch {
  constructor(
    private readonly db: Db,
    private readonly options: Bm25Options = DEFAULT_BM25,
  ) {}

  /**
   * The query's lexemes (English stemming, stop words dropped, identifiers split and joined as chunks' are: the same
   * `keyword_vector`) that occur in the corpus, with their statistics.
   */
  async terms(query: string): Promise<QueryTerms> {
    const { rows } = await this.db.query<{ lexeme: string; df: number; chunk_count: number; total_length: number }>(
      `SELECT l.lexeme, coalesce((SELECT sum(t.df) FROM keyword_terms t WHERE t.lexeme = l.lexeme), 0)::float8 AS df,
              s.chunk_count, s.total_length
         FROM unnest(tsvector_to_array(keyword_vector('', $1))) AS l(lexeme)
        CROSS JOIN (SELECT coalesce(sum(chunk_count), 0)::float8 AS chunk_count,
                           coalesce(sum(total_length), 0)::float8 AS total_length FROM keyword_stats) s`,
      [query],
    );
    const chunkCount = Number(rows[0]?.chunk_count ?? 0);
    const avgLength = chunkCount > 0 ? Number(rows[0]?.total_length ?? 0) / chunkCount : 0;
    const terms = rows
      .filter((r) => Number(r.df) > 0)
      .map((r) => ({ lexeme: r.lexeme, df: Number(r.df), idf: bm25Idf(Number(r.df), chunkCount) }))
      .sort((a, b) => a.df - b.df || (a.lexeme < b.lexeme ? -1 : 1))
      .slice(0, MAX_QUERY_TERMS);
    return { terms, chunkCount, avgLength };
  }

  /**
   * For each chunk, the share of the query's lexemes (as `terms` derives them, whether the corpus has them or not) that
   * it contains: how much of the question a chunk speaks to, whatever its score.
   */
  async coverage(query: string, chunkIds: readonly string[]): Promise<Map<string, number>> {
    if (chunkIds.length === 0) return new Map();
    const params = new SqlParams();
    const text = params.add(query);
    const ids = params.add(chunkIds);
    const { from, where } = searchableChunksSql(undefined, params);
    const { rows } = await this.db.query<{ id: string; coverage: number }>(
      `SELECT c.id::text AS id, coalesce(avg((l = ANY(tsvector_to_array(c.keyword_tsv)))::int), 0)::float8 AS coverage
         FROM ${from} CROSS JOIN unnest(tsvector_to_array(keyword_vector('', ${text}))) AS l
        WHERE c.id = ANY(${ids}::bigint[]) AND ${where} GROUP BY c.id`,
      params.values,
    );
    return new Map(rows.map((r) => [r.id, Number(r.coverage)]));
  }

  /**
   * The `limit` best chunks by BM25 that pass the filter, best first; `score` is BM25 divided by the most any chunk
   * could score for this query (Σ idf · (k1 + 1)), so 0..1.
   */
  async search(query: string, filter: DocumentFilterSpec, limit: number): Promise<LaneHit[]> {
    const stats = await this.terms(query);
    if (stats.terms.length === 0 || stats.chunkCount <= 0) return [];
    const all = stats.terms.map((t) => t.lexeme);
    const pruned = candidateLexemes(stats.terms, stats.chunkCount, this.options.maxCandidateDf, limit);
    let hits = await this.rank(stats, pruned, filter, limit);
    // Pruned lexemes may hide matches that a selective filter leaves: when short, use every lexeme.
    if (hits.length < limit && pruned.length < all.length) hits = await this.rank(stats, all, filter, limit);
    return hits;
  }

  private async rank(stats: QueryTerms, candidateTerms: readonly string[], filter: DocumentFilterSpec, limit: number): Promise<LaneHit[]> {
    const { k1, b } = this.options;
    const params = new SqlParams();
    const lexemes = params.add(stats.terms.map((t) => t.lexeme));
    const idfs = params.add(stats.terms.map((t) => t.idf));
    const tsquery = params.add(orTsquery(candidateTerms));
    const pk1 = params.add(k1);
    const pb = params.add(b);
    const avg = params.add(Math.max(stats.avgLength, 1));
    // Unfiltered, a candidate's own copy of its document's expiry decides; otherwise its document is checked by
    // primary key in a LATERAL subquery: as a plain join the planner hashes the whole documents table instead, which
    // costs more than ranking the candidates.
    const { from, where } = searchableChunksSql(filter, params, 'lateral');
    const lim = params.add(limit);
    // setweight + ts_filter cut each candidate's vector down to the query's lexemes before unnesting it; each lexeme's
    // idf is looked up by its position in the lexeme array.
    const tf = 'greatest(cardinality(u.positions), 1)';
    const sql = `SELECT c.id::text AS id, c.document_id,
                        (SELECT sum((${idfs}::float8[])[array_position(${lexemes}::text[], u.lexeme)] * ${tf} * (${pk1}::float8 + 1)
                                    / (${tf} + ${pk1}::float8 * (1 - ${pb}::float8 + ${pb}::float8 * c.keyword_length / ${avg}::float8)))
                           FROM unnest(ts_filter(setweight(c.keyword_tsv, 'A', ${lexemes}::text[]), '{a}')) u) AS bm25
                   FROM ${from}
                  WHERE c.keyword_tsv @@ ${tsquery}::tsquery AND ${where}
                  ORDER BY bm25 DESC, c.id
                  LIMIT ${lim}`;
    type Row = { id: string; document_id: string; bm25: number };
    const rows =
      this.db.kind === 'postgres'
        ? (await this.db.query<Row>(sql, params.values)).rows
        : await this.db.transaction(async (tx) => {
            // PGlite never analyses on its own: without statistics the planner may read every chunk, wide vectors
            // and all, instead of taking candidates from the GIN index.
            await tx.exec('SET LOCAL enable_seqscan = off; SET LOCAL max_parallel_workers_per_gather = 0');
            return (await tx.query<Row>(sql, params.values)).rows;
          });
    const best = stats.terms.reduce((sum, t) => sum + t.idf, 0) * (k1 + 1);
    return rows.map((r) => ({ chunkId: r.id, documentId: r.document_id, score: Math.min(1, Number(r.bm25) / best) }));
  }
}
