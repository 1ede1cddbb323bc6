import type { Db } from '../db/Db.js';
import { readSpaceSqlFor } from '../db/spaceScope.js';
import { liveDocumentSql } from './filterSql.js';

/** A count keyed by a type, source or tag. */
export interface CountByKey {
  key: string;
  count: number;
}

/** Counts over live documents. */
export interface KnowledgeCounts {
  documentCount: number;
  chunkCount: number;
  byType: CountByKey[];
  bySource: CountByKey[];
  topTags: CountByKey[];
}

/** Aggregates for `knowledgeStats`, over unexpired documents of the request's space only. */
export async function knowledgeCounts(db: Db): Promise<KnowledgeCounts> {
  const params: unknown[] = [];
  const inSpace = readSpaceSqlFor(params);
  const LIVE = `${liveDocumentSql('documents')} AND ${inSpace('documents')}`;
  const [docs, chunks, byType, bySource, topTags] = await Promise.all([
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM documents WHERE ${LIVE}`, params),
    db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM chunks c JOIN documents d ON d.id = c.document_id
        WHERE ${liveDocumentSql('d')} AND ${inSpace('d')}`,
      params,
    ),
    db.query<CountByKey>(
      `SELECT document_type AS key, count(*)::int AS count FROM documents WHERE ${LIVE} GROUP BY 1 ORDER BY 2 DESC, 1`,
      params,
    ),
    db.query<CountByKey>(
      `SELECT source AS key, count(*)::int AS count FROM documents WHERE ${LIVE} AND source IS NOT NULL
        GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 50`,
      params,
    ),
    db.query<CountByKey>(
      `SELECT t AS key, count(*)::int AS count FROM documents, unnest(tags) AS t WHERE ${LIVE}
        GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 20`,
      params,
    ),
  ]);
  return {
    documentCount: docs.rows[0]?.n ?? 0,
    chunkCount: chunks.rows[0]?.n ?? 0,
    byType: byType.rows.map((r) => ({ key: r.key.toUpperCase(), count: r.count })),
    bySource: bySource.rows,
    topTags: topTags.rows,
  };
}
