import type { Db } from '../db/Db.js';
import { describeEmbedder, type EmbedderInfo } from '../embeddings/EmbeddingProvider.js';
import { AppError, ErrorCode } from '../errors.js';
import type { Logger } from '../logger.js';
import { logVectorRewrite } from './vectorChangeLog.js';

const EMBEDDER_KEY = 'embedder';

/** The embedder recorded in the store, or undefined for a store that has never embedded. */
export async function readRecordedEmbedder(db: Db): Promise<EmbedderInfo | undefined> {
  const { rows } = await db.query<{ value: EmbedderInfo }>('SELECT value FROM cairn_meta WHERE key = $1', [
    EMBEDDER_KEY,
  ]);
  return rows[0]?.value;
}

/** True when two embedders produce interchangeable vectors. */
export function sameEmbedder(a: EmbedderInfo, b: EmbedderInfo): boolean {
  return a.provider === b.provider && a.model === b.model && a.dimensions === b.dimensions;
}

/** The command that re-embeds every chunk with the configured embedder. */
export const REINDEX_COMMAND = 'npm run cairn -- reindex';

/** Whether this database gets an HNSW index (see docs/operations.md "Storage": PGlite builds HNSW too slowly, so it scans exactly). */
export function usesHnsw(db: Db): boolean {
  return db.kind === 'postgres';
}

/** pgvector's HNSW indexes `halfvec` up to 4,000 dimensions; larger embeddings are scanned exactly. */
const MAX_HALFVEC_HNSW_DIMENSIONS = 4000;

/** The operator class of the current index; an index built with another (e.g. vector_cosine_ops) is rebuilt. */
const HNSW_OPCLASS = 'halfvec_cosine_ops';

/**
 * The build parameters of the current index, as pg_get_indexdef prints them; an index built with others is rebuilt.
 * ef_construction 128 (pgvector's default is 64) builds a better connected graph: recall@10 at ef_search 100 went from
 * 0.938 to 0.955 at 20,000 chunks (bench/RESULTS.md, search notes), for a build 1.7 times as slow and slower inserts.
 */
const HNSW_WITH = "ef_construction='128'";

/** Where a rebuild puts the new index until it replaces the old one, so searches keep an index meanwhile. */
const NEXT_INDEX = 'chunks_embedding_hnsw_next';

/**
 * The expression the HNSW index is built on and searches order by, for embeddings of `dimensions`: the column's
 * half-precision cast, which halves the index (memory and upkeep) at the same recall, while the column and the reported
 * distances keep full precision; undefined above 4,000 dimensions (no index). Both sides of `<=>` use it.
 */
export function hnswExpression(dimensions: number): HnswExpression | undefined {
  const n = Math.trunc(dimensions);
  if (n < 1 || n > MAX_HALFVEC_HNSW_DIMENSIONS) return undefined;
  return { of: (column) => `(${column}::halfvec(${n}))`, cast: `halfvec(${n})`, opclass: HNSW_OPCLASS };
}

/** How embeddings are indexed and compared: the indexed expression of a column reference, the query cast, the opclass. */
export interface HnswExpression {
  of: (column: string) => string;
  cast: string;
  opclass: string;
}

/**
 * Prepares the embedding column for `info`: on a new store, fixes its dimension, builds the index and records the
 * embedder. On an existing store, fails with EMBEDDER_MISMATCH when the configured embedder differs from the recorded one.
 */
export async function prepareVectorIndex(db: Db, info: EmbedderInfo, logger?: Logger): Promise<void> {
  const recorded = await readRecordedEmbedder(db);
  if (recorded && !sameEmbedder(recorded, info)) {
    throw new AppError(
      ErrorCode.EMBEDDER_MISMATCH,
      `The store was built with ${describeEmbedder(recorded)} but the configured embedder is ${describeEmbedder(info)}. ` +
        `Either configure the recorded embedder again (CAIRN_EMBEDDING_PROVIDER=${recorded.provider} ` +
        `CAIRN_EMBEDDING_MODEL=${recorded.model}), or re-embed every chunk with the new one: ${REINDEX_COMMAND}`,
      { recorded, configured: info },
    );
  }
  if (!recorded) await setEmbeddingColumn(db, info);
  else await ensureHnswIndex(db, logger);
}

/** Changes the column to `vector(dimensions)` (clearing vectors if the dimension changes) and records the embedder. */
export async function setEmbeddingColumn(db: Db, info: EmbedderInfo): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.exec('DROP INDEX IF EXISTS chunks_embedding_hnsw');
    await tx.exec(`ALTER TABLE chunks ALTER COLUMN embedding TYPE vector(${Math.trunc(info.dimensions)}) USING NULL`);
    // A type change resets the storage mode: keep vectors inline so scans avoid a TOAST fetch per row.
    await tx.exec('ALTER TABLE chunks ALTER COLUMN embedding SET STORAGE MAIN');
    // The type change cleared every vector without firing row triggers: tell PGlite's in-memory index to reload.
    if (db.kind === 'pglite') await logVectorRewrite(tx);
    await tx.query(
      `INSERT INTO cairn_meta (key, value) VALUES ($1, $2::jsonb)
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [EMBEDDER_KEY, JSON.stringify(info)],
    );
  });
  await ensureHnswIndex(db);
}

/**
 * Builds the HNSW cosine index on a server if it is missing (after a bulk load this is faster than per-row upkeep).
 * The build is CONCURRENTLY, so document writes go on meanwhile; a build that died half-way leaves an invalid index,
 * which is dropped and built again. An index of an earlier release (on the full-precision column, or with other build
 * parameters) is rebuilt beside the old one and then replaces it.
 */
export async function ensureHnswIndex(db: Db, logger?: Logger): Promise<void> {
  if (!usesHnsw(db)) return;
  // Processes starting or finishing loads at once take turns; the later ones find the index built.
  await db.withLock(
    HNSW_BUILD_LOCK_KEY,
    async (conn) => {
      const { rows } = await conn.query<{ valid: boolean; def: string }>(
        "SELECT i.indisvalid AS valid, pg_get_indexdef(i.indexrelid) AS def FROM pg_index i WHERE i.indexrelid = to_regclass('chunks_embedding_hnsw')",
      );
      const def = rows[0]?.def ?? '';
      const halfPrecision = def.includes(HNSW_OPCLASS);
      if (rows[0]?.valid === true && halfPrecision && def.includes(HNSW_WITH)) return;
      // A build that died half-way left an invalid index behind; a rebuild that died, an unfinished next one.
      await conn.exec(`DROP INDEX CONCURRENTLY IF EXISTS ${NEXT_INDEX}`);
      if (rows[0]?.valid !== true) await conn.exec('DROP INDEX CONCURRENTLY IF EXISTS chunks_embedding_hnsw');
      // The column's declared dimension (vector's type modifier) decides how it can be indexed.
      const typmod = await conn.query<{ dims: number }>(
        "SELECT atttypmod AS dims FROM pg_attribute WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'",
      );
      const dims = Number(typmod.rows[0]?.dims ?? -1);
      const index = hnswExpression(dims > 0 ? dims : 0);
      if (!index) return; // over 4,000 dimensions: searches scan exactly
      const build = (name: string) =>
        conn.exec(
          `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON chunks USING hnsw (${index.of('embedding')} ${index.opclass}) WITH (${HNSW_WITH.replace(/'/g, '')})`,
        );
      if (rows[0]?.valid !== true) return build('chunks_embedding_hnsw');
      // An index of an earlier release: build the new one beside it, then swap (searches use an old half-precision one).
      logger?.warn(
        halfPrecision
          ? 'rebuilding the HNSW index with ef_construction 128 (once, after an upgrade); searches use the old one meanwhile'
          : 'rebuilding the HNSW index on the half-precision embeddings (once, after an upgrade); vector searches scan exactly until it is built',
      );
      await build(NEXT_INDEX);
      await conn.exec('DROP INDEX CONCURRENTLY IF EXISTS chunks_embedding_hnsw');
      await conn.exec(`ALTER INDEX ${NEXT_INDEX} RENAME TO chunks_embedding_hnsw`);
    },
    { pollMs: 250 },
  );
}

/** Advisory lock serialising HNSW builds across processes ("cairnh"). */
const HNSW_BUILD_LOCK_KEY = 0x636169726e68;

/** Drops the HNSW index (before a bulk re-embed). */
export async function dropHnswIndex(db: Db): Promise<void> {
  await db.exec('DROP INDEX IF EXISTS chunks_embedding_hnsw');
}
