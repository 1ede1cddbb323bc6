import type { Queryable } from '../db/Db.js';
import { VectorArrayParam } from '../db/vector.js';

// The chunks' embedding column, read and written for retrieval: reindex re-embeds chunks, and PGlite's in-memory
// vector index loads the vectors. Ids are chunk ids (bigint, as text); vectors come as pgvector text ("[0.1,…]").

/** A chunk to (re-)embed: its id and the text its embedding is computed from. */
export interface ChunkToEmbed {
  id: string;
  title: string;
  content: string;
}

/** A stored embedding, as pgvector prints it. */
export interface StoredEmbedding {
  id: string;
  vector: string;
}

/** Forgets every chunk's embedding, so that a re-embed visits them all. */
export async function clearChunkEmbeddings(q: Queryable): Promise<void> {
  await q.query('UPDATE chunks SET embedding = NULL');
}

/** How many chunks have an embedding (`embedded`) or lack one. */
export async function countChunksByEmbedding(q: Queryable, embedded: boolean): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM chunks WHERE embedding IS ${embedded ? 'NOT ' : ''}NULL`,
  );
  return rows[0]?.n ?? 0;
}

/** The next `limit` chunks without an embedding after chunk id `afterId`, in id order, with their document's title. */
export async function chunksWithoutEmbedding(q: Queryable, afterId: string, limit: number): Promise<ChunkToEmbed[]> {
  const { rows } = await q.query<ChunkToEmbed>(
    `SELECT c.id::text AS id, d.title, c.content FROM chunks c JOIN documents d ON d.id = c.document_id
      WHERE c.embedding IS NULL AND c.id > $1::bigint ORDER BY c.id LIMIT $2`,
    [afterId, limit],
  );
  return rows;
}

/** Stores `vectors[i]` as the embedding of chunk `ids[i]`, in one statement. */
export async function writeChunkEmbeddings(
  q: Queryable,
  ids: readonly string[],
  vectors: readonly Float32Array[],
): Promise<void> {
  await q.query(
    `UPDATE chunks SET embedding = x.v FROM unnest($1::bigint[], $2::vector[]) AS x(id, v) WHERE chunks.id = x.id`,
    [ids, new VectorArrayParam(vectors)],
  );
}

/** The embeddings of those of `ids` that exist and have one, in no particular order. */
export async function chunkEmbeddingsByIds(q: Queryable, ids: readonly number[]): Promise<StoredEmbedding[]> {
  const { rows } = await q.query<StoredEmbedding>(
    'SELECT id::text AS id, embedding::text AS vector FROM chunks WHERE id = ANY($1::bigint[]) AND embedding IS NOT NULL',
    [ids],
  );
  return rows;
}

/** The next `limit` embeddings after chunk id `afterId`, in id order (chunks without one are skipped). */
export async function chunkEmbeddingPage(q: Queryable, afterId: string, limit: number): Promise<StoredEmbedding[]> {
  const { rows } = await q.query<StoredEmbedding>(
    // "ORDER BY id" would sort by the text alias: name the column.
    `SELECT c.id::text AS id, c.embedding::text AS vector FROM chunks c
      WHERE c.embedding IS NOT NULL AND c.id > $1::bigint ORDER BY c.id LIMIT $2`,
    [afterId, limit],
  );
  return rows;
}
