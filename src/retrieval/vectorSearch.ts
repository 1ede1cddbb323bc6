import type { Db, Queryable } from '../db/Db.js';
import { toVectorSql } from '../db/vector.js';
import { SqlParams, documentFilterSql } from '../documents/filterSql.js';
import type { DocumentFilterSpec } from '../documents/types.js';
import type { LaneHit } from './types.js';
import { usesHnsw } from './vectorIndex.js';

const DEFAULT_EF_SEARCH = 40;
const MAX_EF_SEARCH = 1000;

/** Nearest chunks by pgvector's cosine distance: HNSW on a server, an exact scan on PGlite. */
export class VectorSearch {
  constructor(private readonly db: Db) {}

  /** The `limit` chunks nearest to `vector` that pass the filter, best first; `score` is cosine similarity clamped to 0..1. */
  async search(vector: Float32Array, filter: DocumentFilterSpec, limit: number): Promise<LaneHit[]> {
    const params = new SqlParams();
    const q = params.add(toVectorSql(vector));
    const where = documentFilterSql(filter, params);
    const lim = params.add(limit);
    const sql = `SELECT c.id::text AS id, c.document_id, (c.embedding <=> ${q}::vector) AS distance
                   FROM chunks c JOIN documents d ON d.id = c.document_id
                  WHERE c.embedding IS NOT NULL AND ${where}
                  ORDER BY c.embedding <=> ${q}::vector
                  LIMIT ${lim}`;
    let rows = await this.run(sql, params.values, false, limit);
    // An approximate index scan stops after ef_search candidates and filters afterwards, so a selective filter (or
    // many expired documents) can starve it: when it comes back short, an exact scan returns every match that exists.
    if (rows.length < limit && usesHnsw(this.db)) rows = await this.run(sql, params.values, true, limit);
    return rows
      .map((r) => ({ chunkId: r.id, documentId: r.document_id, distance: Number(r.distance) }))
      .sort((a, b) => a.distance - b.distance || a.chunkId.length - b.chunkId.length || (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0))
      .map((r) => ({ chunkId: r.chunkId, documentId: r.documentId, score: Math.max(0, Math.min(1, 1 - r.distance)) }));
  }

  private async run(sql: string, values: unknown[], exact: boolean, limit: number): Promise<VectorRow[]> {
    // HNSW returns at most ef_search candidates (default 40): widen it when more hits are wanted.
    const widen = usesHnsw(this.db) && limit > DEFAULT_EF_SEARCH;
    if (!exact && !widen) return (await this.db.query<VectorRow>(sql, values)).rows;
    return this.db.transaction(async (tx: Queryable) => {
      if (exact) await tx.exec('SET LOCAL enable_indexscan = off');
      else await tx.exec(`SET LOCAL hnsw.ef_search = ${Math.min(MAX_EF_SEARCH, Math.trunc(limit))}`);
      return (await tx.query<VectorRow>(sql, values)).rows;
    });
  }
}

type VectorRow = { id: string; document_id: string; distance: number | string };
