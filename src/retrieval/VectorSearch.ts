import type { Db, Queryable } from '../db/Db.js';
import { VectorParam } from '../db/vector.js';
import { SqlParams } from '../db/SqlParams.js';
import { searchableChunksSql } from '../documents/filterSql.js';
import type { DocumentFilterSpec } from '../documents/types.js';
import type { Logger } from '../logger.js';
import { memoryVectorIndexFor, type MemoryVectorIndex } from './MemoryVectorIndex.js';
import type { LaneHit } from './types.js';
import { hnswExpression, usesHnsw } from './vectorIndex.js';

/** pgvector's own default hnsw.ef_search. */
const PGVECTOR_EF_SEARCH = 40;
const MAX_EF_SEARCH = 1000;

/** Options of the vector lane. */
export interface VectorSearchOptions {
  /** On PGlite, hold up to this many embeddings in memory and scan them there; 0 (the default) always scans in SQL. */
  memoryIndexMaxChunks?: number;
  /** The connections' hnsw.ef_search (CAIRN_HNSW_EF_SEARCH); larger limits widen it for the one query. */
  efSearch?: number;
  logger?: Logger;
}

/**
 * Nearest chunks by cosine distance: HNSW on a server; on PGlite an exact scan, of an in-memory copy of the
 * embeddings when enabled (see MemoryVectorIndex), else in SQL.
 */
export class VectorSearch {
  private readonly memory: MemoryVectorIndex | undefined;
  private readonly efSearch: number;

  constructor(
    private readonly db: Db,
    options: VectorSearchOptions = {},
  ) {
    const maxChunks = options.memoryIndexMaxChunks ?? 0;
    this.efSearch = options.efSearch ?? PGVECTOR_EF_SEARCH;
    this.memory =
      db.kind === 'pglite' && maxChunks > 0
        ? memoryVectorIndexFor(db, { maxChunks, logger: options.logger })
        : undefined;
  }

  /** Loads PGlite's in-memory copy of the embeddings now (else the first search does); resolves to the chunks held. */
  async warm(): Promise<number> {
    if (!this.memory?.enabled) return 0;
    await this.memory.sync();
    return this.memory.size;
  }

  /** The `limit` chunks nearest to `vector` that pass the filter, best first; `score` is cosine similarity clamped to 0..1. */
  async search(vector: Float32Array, filter: DocumentFilterSpec, limit: number): Promise<LaneHit[]> {
    if (this.memory?.enabled) {
      const hits = await this.searchMemory(this.memory, vector, filter, limit);
      if (hits) return hits;
    }
    return this.searchSql(vector, filter, limit);
  }

  /**
   * Ranks in memory, then keeps the best candidates that exist and pass the filter (and expiry) in SQL; undefined
   * when the index cannot answer or too few candidates pass, so that the exact SQL scan returns every match.
   */
  private async searchMemory(
    index: MemoryVectorIndex,
    vector: Float32Array,
    filter: DocumentFilterSpec,
    limit: number,
  ): Promise<LaneHit[] | undefined> {
    // Rounded as vector parameters are (see toVectorSql), so that both paths compare the same query.
    const query = Float32Array.from(vector, (v) => Math.round(v * 1e7) / 1e7);
    const nearest = await index.nearest(query, limit * 4 + 50);
    if (!nearest) return undefined;
    const { ids, scores } = nearest.hits;
    if (ids.length === 0) return [];
    const params = new SqlParams();
    const idList = params.add(Array.from(ids, String));
    const { from, where } = searchableChunksSql(filter, params);
    const { rows } = await this.db.query<{ id: string; document_id: string }>(
      `SELECT c.id::text AS id, c.document_id FROM ${from} WHERE c.id = ANY(${idList}::bigint[]) AND c.embedding IS NOT NULL AND ${where}`,
      params.values,
    );
    const passed = new Map(rows.map((r) => [r.id, r.document_id]));
    const kept: VectorRow[] = [];
    for (let i = 0; i < ids.length && kept.length < limit; i++) {
      const id = String(ids[i]);
      const documentId = passed.get(id);
      // pgvector clamps the similarity to -1..1 and reports 1 − similarity.
      if (documentId !== undefined)
        kept.push({ id, document_id: documentId, distance: 1 - Math.max(-1, Math.min(1, scores[i] as number)) });
    }
    if (kept.length < limit && ids.length < nearest.total) return undefined;
    return toLaneHits(kept);
  }

  private async searchSql(vector: Float32Array, filter: DocumentFilterSpec, limit: number): Promise<LaneHit[]> {
    const params = new SqlParams();
    const q = params.add(new VectorParam(vector));
    const { from, where } = searchableChunksSql(filter, params);
    const lim = params.add(limit);
    // On a server, order by the expression the HNSW index is built on (the half-precision cast), but report the
    // full-precision distance, by which toLaneHits re-sorts the candidates.
    const on = usesHnsw(this.db) ? hnswExpression(vector.length) : undefined;
    const distance = `c.embedding <=> ${q}::vector`;
    const sql = (order: string) => `SELECT c.id::text AS id, c.document_id, (${distance}) AS distance
                   FROM ${from}
                  WHERE c.embedding IS NOT NULL AND ${where}
                  ORDER BY ${order}
                  LIMIT ${lim}`;
    let rows = await this.run(
      sql(on ? `${on.of('c.embedding')} <=> ${q}::${on.cast}` : distance),
      params.values,
      false,
      limit,
    );
    // An approximate index scan filters its candidates afterwards; iterative scans go on through the index while the
    // filter (or expiry) removes them, up to hnsw.max_scan_tuples: when it still comes back short, an exact scan
    // returns every match that exists.
    if (rows.length < limit && on) rows = await this.run(sql(distance), params.values, true, limit);
    return toLaneHits(rows);
  }

  /** Runs an approximate (HNSW) ranking; `exact` ones order by the full-precision distance, which no index serves. */
  private async run(sql: string, values: unknown[], exact: boolean, limit: number): Promise<VectorRow[]> {
    // HNSW returns at most ef_search candidates: widen it when more hits are wanted.
    const widen = !exact && usesHnsw(this.db) && limit > this.efSearch;
    if (!widen) return (await this.db.query<VectorRow>(sql, values)).rows;
    return this.db.transaction(async (tx: Queryable) => {
      await tx.exec(`SET LOCAL hnsw.ef_search = ${Math.min(MAX_EF_SEARCH, Math.trunc(limit))}`);
      return (await tx.query<VectorRow>(sql, values)).rows;
    });
  }
}

type VectorRow = { id: string; document_id: string; distance: number | string };

/** Best first by distance, ties by chunk id (numerically); scores are 1 − distance clamped to 0..1. */
function toLaneHits(rows: VectorRow[]): LaneHit[] {
  return (
    rows
      // pgvector's cosine distance to an all-zero vector (a query without word tokens) is NaN: that is similarity 0.
      .map((r) => ({
        chunkId: r.id,
        documentId: r.document_id,
        distance: Number.isNaN(Number(r.distance)) ? 1 : Number(r.distance),
      }))
      .sort(
        (a, b) =>
          a.distance - b.distance ||
          a.chunkId.length - b.chunkId.length ||
          (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0),
      )
      .map((r) => ({ chunkId: r.chunkId, documentId: r.documentId, score: Math.max(0, Math.min(1, 1 - r.distance)) }))
  );
}
