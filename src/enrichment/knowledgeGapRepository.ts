import type { Db } from '../db/Db.js';
import type { DocumentFilterSpec } from '../documents/types.js';

/** A query the knowledge base answered poorly, grouped by its normalised text. */
export interface KnowledgeGapRecord {
  query: string;
  count: number;
  bestScore: number;
  lastSeenAt: Date;
}

/** Lower-case, punctuation-free, single-spaced: "Why does ACH fail?" and "why does ach fail" group together. */
export function normalizeQuery(query: string): string {
  return query.toLowerCase().normalize('NFKC').replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/** Stores and lists knowledge gaps. */
export class KnowledgeGapRepository {
  constructor(private readonly db: Db) {}

  /** Records one poorly answered query. */
  async record(query: string, bestScore: number, filter: DocumentFilterSpec): Promise<void> {
    await this.db.query('INSERT INTO knowledge_gaps (query, normalized, best_score, filters) VALUES ($1, $2, $3, $4::jsonb)', [
      query.slice(0, 2000),
      normalizeQuery(query).slice(0, 2000),
      bestScore,
      JSON.stringify(filter),
    ]);
  }

  /** Gaps grouped by normalised query, most frequent first, then most recent; `offset` pages. */
  async list(first: number, offset: number): Promise<{ gaps: KnowledgeGapRecord[]; totalCount: number }> {
    const [page, total] = await Promise.all([
      this.db.query<{ query: string; count: number; best_score: number; last_seen_at: Date | string }>(
        `SELECT (array_agg(query ORDER BY created_at DESC))[1] AS query, count(*)::int AS count,
                max(best_score)::float8 AS best_score, max(created_at) AS last_seen_at
           FROM knowledge_gaps GROUP BY normalized
          ORDER BY count(*) DESC, max(created_at) DESC, normalized LIMIT $1 OFFSET $2`,
        [first, offset],
      ),
      this.db.query<{ n: number }>('SELECT count(DISTINCT normalized)::int AS n FROM knowledge_gaps'),
    ]);
    return {
      gaps: page.rows.map((r) => ({ query: r.query, count: r.count, bestScore: r.best_score, lastSeenAt: new Date(r.last_seen_at) })),
      totalCount: total.rows[0]?.n ?? 0,
    };
  }
}
