import type { Db, Queryable } from '../db/Db.js';

// PGlite only: a trigger records which chunks' embeddings changed, so the one process that has the store open can keep
// an in-memory copy exactly in sync (see MemoryVectorIndex). A server never gets these objects: it uses HNSW.

/** A log entry with this chunk id means "every embedding was rewritten" (chunk ids start at 1). */
export const REWRITE_MARKER = 0;

const CREATE_SQL = `
CREATE TABLE IF NOT EXISTS chunk_vector_log (
  seq      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  chunk_id bigint NOT NULL
);
CREATE OR REPLACE FUNCTION chunk_vector_log_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO chunk_vector_log (chunk_id) VALUES (OLD.id);
  ELSIF TG_OP = 'INSERT' OR NEW.embedding IS DISTINCT FROM OLD.embedding THEN
    INSERT INTO chunk_vector_log (chunk_id) VALUES (NEW.id);
  END IF;
  RETURN NULL;
END $$;
-- No "UPDATE OF embedding" column list: it would make ALTER COLUMN embedding TYPE (a reindex) fail.
CREATE OR REPLACE TRIGGER chunks_vector_log AFTER INSERT OR DELETE OR UPDATE ON chunks
  FOR EACH ROW EXECUTE FUNCTION chunk_vector_log_row();`;

const DROP_SQL = `
DROP TRIGGER IF EXISTS chunks_vector_log ON chunks;
DROP FUNCTION IF EXISTS chunk_vector_log_row();
DROP TABLE IF EXISTS chunk_vector_log;`;

/**
 * Creates (enabled) or removes (disabled) the embedding change log on PGlite; idempotent, a no-op on a server.
 * Removing it when the in-memory index is off spares writes the trigger and keeps the log from growing unread.
 */
export async function prepareMemoryVectorIndex(db: Db, enabled: boolean): Promise<void> {
  if (db.kind !== 'pglite') return;
  await db.exec(enabled ? CREATE_SQL : DROP_SQL);
}

/**
 * Records that every embedding was rewritten (a column type change fires no row trigger). Call inside the
 * transaction that rewrote them; does nothing where the log does not exist.
 */
export async function logVectorRewrite(q: Queryable): Promise<void> {
  await q.exec(`DO $$ BEGIN
    IF to_regclass('chunk_vector_log') IS NOT NULL THEN INSERT INTO chunk_vector_log (chunk_id) VALUES (${REWRITE_MARKER}); END IF;
  END $$`);
}

/** Pending log entries: the highest sequence number read and the distinct chunk ids touched. */
export interface VectorChanges {
  lastSeq: string;
  chunkIds: number[];
}

/** Reads up to `max` pending entries (oldest first); undefined when none are pending, `more` when some were left. */
export async function readVectorChanges(
  q: Queryable,
  max: number,
): Promise<(VectorChanges & { more: boolean }) | undefined> {
  const { rows } = await q.query<{ seq: string; chunk_id: string }>(
    'SELECT seq::text AS seq, chunk_id::text AS chunk_id FROM chunk_vector_log ORDER BY seq LIMIT $1',
    [max + 1],
  );
  if (rows.length === 0) return undefined;
  const kept = rows.slice(0, max);
  return {
    lastSeq: kept.at(-1)?.seq ?? '0',
    chunkIds: [...new Set(kept.map((r) => Number(r.chunk_id)))],
    more: rows.length > max,
  };
}

/** The newest sequence number in the log, or undefined when it is empty. */
export async function latestVectorChange(q: Queryable): Promise<string | undefined> {
  const { rows } = await q.query<{ seq: string | null }>('SELECT max(seq)::text AS seq FROM chunk_vector_log');
  return rows[0]?.seq ?? undefined;
}

/** Deletes the entries up to `seq` once they are applied (this process is the log's only reader). */
export async function consumeVectorChanges(q: Queryable, seq: string): Promise<void> {
  await q.query('DELETE FROM chunk_vector_log WHERE seq <= $1::bigint', [seq]);
}
