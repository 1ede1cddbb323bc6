import type { Db, Queryable } from '../db/Db.js';
import { readSpaceSql } from '../db/spaceScope.js';
import { VectorArrayParam } from '../db/vector.js';
import type { ChunkRecord } from './types.js';

/** A chunk row as the database returns it. */
export interface ChunkRow {
  id: string | number;
  document_id: string;
  ordinal: number;
  content: string;
  char_start: number;
  char_end: number;
  content_hash: string;
}

/** Columns selected for a chunk (alias `c`). */
export const CHUNK_COLUMNS =
  'c.id::text AS id, c.document_id, c.ordinal, c.content, c.char_start, c.char_end, c.content_hash';

/** Maps a database row to a `ChunkRecord`. */
export function toChunkRecord(row: ChunkRow): ChunkRecord {
  return {
    id: String(row.id),
    documentId: row.document_id,
    ordinal: row.ordinal,
    content: row.content,
    charStart: row.char_start,
    charEnd: row.char_end,
    contentHash: row.content_hash,
  };
}

/** A chunk to insert with its embedding. */
export interface ChunkInsert {
  documentId: string;
  ordinal: number;
  content: string;
  charStart: number;
  charEnd: number;
  contentHash: string;
  embedding: Float32Array;
}

/** Identity and hash of a stored chunk. */
export interface ChunkSummary {
  id: string;
  documentId: string;
  contentHash: string;
}

/** A kept chunk whose position in its document moved. */
export interface ChunkMove {
  id: string;
  ordinal: number;
  charStart: number;
  charEnd: number;
}

// Rows per INSERT: large enough to amortise round trips, small enough to bound one message (~6 MB at 1024 dims).
const INSERT_BATCH = 500;

/** Reads and writes the `chunks` table. */
export class ChunkRepository {
  constructor(private readonly db: Db) {}

  /** Chunks of the given documents, ordered by document and ordinal. */
  async findByDocumentIds(documentIds: readonly string[], q: Queryable = this.db): Promise<ChunkRecord[]> {
    if (documentIds.length === 0) return [];
    const params: unknown[] = [documentIds];
    const { rows } = await q.query<ChunkRow>(
      `SELECT ${CHUNK_COLUMNS} FROM chunks c
        WHERE c.document_id = ANY($1::text[]) AND ${readSpaceSql('c', params)} ORDER BY c.document_id, c.ordinal`,
      params,
    );
    return rows.map(toChunkRecord);
  }

  /**
   * Every chunk of the documents whose chunk texts fit in `maxChars` together (documents in id order, each whole or
   * not at all), so that a request past its text budget never reads the rest; the documents left out are absent.
   */
  async findByDocumentIdsWithin(documentIds: readonly string[], maxChars: number): Promise<ChunkRecord[]> {
    if (documentIds.length === 0) return [];
    const params: unknown[] = [documentIds, maxChars];
    const { rows } = await this.db.query<ChunkRow>(
      `WITH sizes AS (SELECT document_id, sum(sum(length(content))) OVER (ORDER BY document_id) AS running
                        FROM chunks x WHERE x.document_id = ANY($1::text[]) AND ${readSpaceSql('x', params)}
                       GROUP BY document_id)
       SELECT ${CHUNK_COLUMNS} FROM chunks c JOIN sizes s ON s.document_id = c.document_id
        WHERE s.running <= $2 ORDER BY c.document_id, c.ordinal`,
      params,
    );
    return rows.map(toChunkRecord);
  }

  /** The documents among `documentIds` that have chunks. */
  async documentIdsWithChunks(documentIds: readonly string[]): Promise<string[]> {
    if (documentIds.length === 0) return [];
    const params: unknown[] = [documentIds];
    const { rows } = await this.db.query<{ document_id: string }>(
      `SELECT DISTINCT document_id FROM chunks c WHERE c.document_id = ANY($1::text[]) AND ${readSpaceSql('c', params)}`,
      params,
    );
    return rows.map((r) => r.document_id);
  }

  /** Id, position and hash of each chunk of the given documents: enough to diff without reading content. */
  async summariesByDocumentIds(q: Queryable, documentIds: readonly string[]): Promise<ChunkSummary[]> {
    if (documentIds.length === 0) return [];
    const { rows } = await q.query<{ id: string; document_id: string; content_hash: string }>(
      'SELECT id::text AS id, document_id, content_hash FROM chunks WHERE document_id = ANY($1::text[])',
      [documentIds],
    );
    return rows.map((r) => ({ id: r.id, documentId: r.document_id, contentHash: r.content_hash }));
  }

  /** Chunk counts per document id. */
  async countByDocumentIds(documentIds: readonly string[], q: Queryable = this.db): Promise<Map<string, number>> {
    if (documentIds.length === 0) return new Map();
    const params: unknown[] = [documentIds];
    const { rows } = await q.query<{ document_id: string; n: number }>(
      `SELECT document_id, count(*)::int AS n FROM chunks c
        WHERE c.document_id = ANY($1::text[]) AND ${readSpaceSql('c', params)} GROUP BY document_id`,
      params,
    );
    return new Map(rows.map((r) => [r.document_id, r.n]));
  }

  /** Inserts chunks with their vectors in a few multi-row statements; returns their ids in input order. */
  async insertMany(q: Queryable, chunks: readonly ChunkInsert[]): Promise<string[]> {
    const byKey = new Map<string, string>();
    for (let i = 0; i < chunks.length; i += INSERT_BATCH) {
      const batch = chunks.slice(i, i + INSERT_BATCH);
      const { rows } = await q.query<{ id: string; document_id: string; ordinal: number }>(
        `INSERT INTO chunks (document_id, ordinal, content, char_start, char_end, content_hash, embedding)
         SELECT x.d, x.o, x.c, x.s, x.e, x.h, x.v
           FROM unnest($1::text[], $2::int[], $3::text[], $4::int[], $5::int[], $6::text[], $7::vector[])
             AS x(d, o, c, s, e, h, v)
         RETURNING id::text AS id, document_id, ordinal`,
        [
          batch.map((c) => c.documentId),
          batch.map((c) => c.ordinal),
          batch.map((c) => c.content),
          batch.map((c) => c.charStart),
          batch.map((c) => c.charEnd),
          batch.map((c) => c.contentHash),
          new VectorArrayParam(batch.map((c) => c.embedding)),
        ],
      );
      for (const r of rows) byKey.set(`${r.document_id}\u0000${r.ordinal}`, r.id);
    }
    return chunks.map((c) => byKey.get(`${c.documentId}\u0000${c.ordinal}`) as string);
  }

  /** Moves kept chunks to their new ordinals and offsets (the ordinal constraint is checked at commit). */
  async move(q: Queryable, moves: readonly ChunkMove[]): Promise<void> {
    if (moves.length === 0) return;
    await q.query(
      `UPDATE chunks SET ordinal = x.o, char_start = x.s, char_end = x.e
         FROM unnest($1::bigint[], $2::int[], $3::int[], $4::int[]) AS x(id, o, s, e)
        WHERE chunks.id = x.id`,
      [moves.map((m) => m.id), moves.map((m) => m.ordinal), moves.map((m) => m.charStart), moves.map((m) => m.charEnd)],
    );
  }

  /** Deletes chunks by id. */
  async deleteByIds(q: Queryable, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await q.query('DELETE FROM chunks WHERE id = ANY($1::bigint[])', [ids]);
  }
}
