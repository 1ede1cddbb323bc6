import type { Db } from '../db/Db.js';
import { SqlParams } from '../db/SqlParams.js';
import { readSpaceSqlFor } from '../db/spaceScope.js';
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
   * For each text (with its title), the share of the query's lexemes it holds, a lexeme also counting when the text
   * holds a longer one it begins or a shorter one that begins it (both at least 4 letters: "fail" and "failov" from
   * "fails over" and "failover"). Empty when the query has no lexemes (only stop words).
   */
  async textCoverage(query: string, texts: readonly { title: string; text: string }[]): Promise<number[]> {
    if (texts.length === 0) return [];
    // Postgres derives the lexemes (row 0: the query's), this process compares them: the comparison is a few
    // thousand string prefixes, which cost Postgres's executor more than deriving the lexemes did.
    const { rows } = await this.db.query<{ i: number; lexemes: string[] }>(
      `SELECT 0 AS i, tsvector_to_array(keyword_vector('', $1)) AS lexemes
        UNION ALL
       SELECT t.i::int, tsvector_to_array(keyword_vector(t.title, t.body))
         FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(title, body, i)`,
      [query, texts.map((t) => t.title), texts.map((t) => t.text)],
    );
    const byIndex = new Map(rows.map((r) => [Number(r.i), r.lexemes]));
    const wanted = byIndex.get(0) ?? [];
    if (wanted.length === 0) return [];
    return texts.map((_, i) => lexemeCoverage(wanted, byIndex.get(i + 1) ?? []));
  }

  /**
   * The `limit` best chunks by BM25 that pass the filter, best first; `score` is BM25 divided by the most any chunk
   * could score for this query (Σ idf · (k1 + 1)), so 0..1.
   */
  async search(query: string, filter: DocumentFilterSpec, limit: number): Promise<LaneHit[]> {
    const first = await this.rank(query, filter, limit, false);
    // Pruned lexemes may hide matches that a selective filter leaves: when short, use every lexeme.
    if (first.hits.length < limit && first.pruned) return (await this.rank(query, filter, limit, true)).hits;
    return first.hits;
  }

  /**
   * One statement: the query's lexemes with their statistics and candidates (see `querySql`), then the best `limit`
   * chunks. It always returns a row (chunk columns null when nothing matched) that says whether a lexeme was pruned.
   */
  private async rank(
    query: string,
    filter: DocumentFilterSpec,
    limit: number,
    everyLexeme: boolean,
  ): Promise<{ hits: LaneHit[]; pruned: boolean }> {
    const { k1, b, maxCandidateDf } = this.options;
    const params = new SqlParams();
    const terms = querySql({
      query: params.add(query),
      k1: params.add(k1),
      maxCandidateDf: params.add(maxCandidateDf),
      want: params.add(limit),
      readSpaceSql: readSpaceSqlFor(params),
    });
    const pb = params.add(b);
    // Unfiltered, a candidate's own copy of its document's expiry decides; otherwise its document is checked by
    // primary key in a LATERAL subquery: as a plain join the planner hashes the whole documents table instead, which
    // costs more than ranking the candidates.
    const { from, where } = searchableChunksSql(filter, params, 'lateral');
    const lim = params.add(limit);
    // setweight + ts_filter cut each candidate's vector down to the query's lexemes before unnesting it; each lexeme's
    // idf is looked up by its position in the lexeme array.
    const tf = 'greatest(cardinality(u.positions), 1)';
    const sql = `WITH ${terms}
                 SELECT hit.id, hit.document_id, hit.bm25, q.best, q.pruned
                   FROM query q
                   LEFT JOIN LATERAL (
                     SELECT c.id AS key, c.id::text AS id, c.document_id,
                            (SELECT sum(q.idfs[array_position(q.lexemes, u.lexeme)] * ${tf} * (q.k1 + 1)
                                        / (${tf} + q.k1 * (1 - ${pb}::float8 + ${pb}::float8 * c.keyword_length / q.avg_length)))
                               FROM unnest(ts_filter(setweight(c.keyword_tsv, 'A', q.lexemes), '{a}')) u) AS bm25
                       FROM ${from}
                      WHERE c.keyword_tsv @@ ${everyLexeme ? 'q.every' : 'q.candidates'} AND ${where}
                      ORDER BY bm25 DESC, c.id
                      LIMIT ${lim}) hit ON true
                  ORDER BY hit.bm25 DESC NULLS LAST, hit.key`;
    type Row = {
      id: string | null;
      document_id: string | null;
      bm25: number | null;
      best: number | null;
      pruned: boolean | null;
    };
    const rows =
      this.db.kind === 'postgres'
        ? (await this.db.query<Row>(sql, params.values)).rows
        : await this.db.transaction(async (tx) => {
            // PGlite never analyses on its own: without statistics the planner may read every chunk, wide vectors
            // and all, instead of taking candidates from the GIN index.
            await tx.exec('SET LOCAL enable_seqscan = off; SET LOCAL max_parallel_workers_per_gather = 0');
            return (await tx.query<Row>(sql, params.values)).rows;
          });
    const best = Number(rows[0]?.best ?? 0);
    const hits = rows.flatMap((r) =>
      r.id === null || r.document_id === null || !(best > 0)
        ? []
        : [{ chunkId: r.id, documentId: r.document_id, score: Math.min(1, Number(r.bm25) / best) }],
    );
    return { hits, pruned: rows[0]?.pruned === true };
  }
}

/** Parameter placeholders of `querySql`. */
interface QueryParams {
  query: string;
  k1: string;
  maxCandidateDf: string;
  want: string;
  /** The condition keeping statistics' rows to the spaces the request reads. */
  readSpaceSql: (alias: string) => string;
}

/**
 * CTEs ending in `query`, one row: the query's lexemes found in the corpus the request reads (its space and the spaces
 * it may read; statistics are kept per space, so another space moves no score and no candidate), with English stemming,
 * stop words dropped, identifiers split and joined as chunks' are (the same `keyword_vector`): the rarest
 * MAX_QUERY_TERMS, with their BM25 idf (Lucene's variant, never negative); the average chunk length; the best possible
 * score (Σ idf · (k1 + 1)); and two OR tsqueries, `every` lexeme and the `candidates` that select chunks. Candidates
 * are each lexeme found in at most `maxCandidateDf` of the chunks, and at least the rarest ones until their document
 * frequencies add up to `want`: a common lexeme still scores but pulls in no candidates on its own, which keeps the
 * candidate set small, while a query of only common words still finds some.
 */
function querySql(p: QueryParams): string {
  // A lexeme quoted for tsquery input, backslashes and quotes escaped; the text never reaches the SQL itself.
  const quoted = `'''' || replace(replace(t.lexeme, '\\', '\\\\'), '''', '''''') || ''''`;
  const candidate = `(t.rare OR t.covered < ${p.want}::float8)`;
  return `stats AS (
      SELECT coalesce(sum(chunk_count), 0)::float8 AS n, coalesce(sum(total_length), 0)::float8 AS total
        FROM keyword_stats ks WHERE ${p.readSpaceSql('ks')}
    ), found AS (
      SELECT l.lexeme, f.df
        FROM (SELECT DISTINCT x.lexeme FROM unnest(tsvector_to_array(keyword_vector('', ${p.query}))) AS x(lexeme)) l
        CROSS JOIN LATERAL (SELECT coalesce(sum(k.df), 0)::float8 AS df FROM keyword_terms k WHERE k.lexeme = l.lexeme AND ${p.readSpaceSql('k')}) f
       WHERE f.df > 0
       ORDER BY f.df, l.lexeme
       LIMIT ${MAX_QUERY_TERMS}
    ), terms AS (
      SELECT found.lexeme, found.df, ln(1 + (s.n - found.df + 0.5) / (found.df + 0.5)) AS idf,
             coalesce(sum(found.df) OVER (ORDER BY found.df, found.lexeme ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS covered,
             found.df <= ${p.maxCandidateDf}::float8 * s.n AS rare
        FROM found CROSS JOIN stats s
       WHERE s.n > 0
    ), query AS (
      SELECT array_agg(t.lexeme ORDER BY t.df, t.lexeme) AS lexemes,
             array_agg(t.idf ORDER BY t.df, t.lexeme) AS idfs,
             ${p.k1}::float8 AS k1,
             sum(t.idf) * (${p.k1}::float8 + 1) AS best,
             greatest((SELECT total / nullif(n, 0) FROM stats), 1) AS avg_length,
             string_agg(${quoted}, ' | ')::tsquery AS every,
             string_agg(${quoted}, ' | ') FILTER (WHERE ${candidate})::tsquery AS candidates,
             count(*) FILTER (WHERE NOT ${candidate}) > 0 AS pruned
        FROM terms t
    )`;
}

/** Characters in a string (a lexeme's length as Postgres counts it). */
const charLength = (s: string) => [...s].length;

/**
 * The share of `wanted` lexemes that `held` holds, a lexeme also counting when `held` has a longer one it begins or a
 * shorter one that begins it (both at least 4 characters).
 */
export function lexemeCoverage(wanted: readonly string[], held: readonly string[]): number {
  const exact = new Set(held);
  const stems = held.filter((p) => charLength(p) >= 4);
  const found = wanted.filter(
    (l) => exact.has(l) || (charLength(l) >= 4 && stems.some((p) => p.startsWith(l) || l.startsWith(p))),
  ).length;
  return found / wanted.length;
}
