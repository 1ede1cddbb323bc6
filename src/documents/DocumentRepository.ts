import type { Db, Queryable } from '../db/Db.js';
import { advisoryKey32 } from '../db/KeyedLock.js';
import { toDate } from '../db/rowValues.js';
import { SqlParams } from '../db/SqlParams.js';
import { readSpaceSql, spaceSql, writeSpace } from '../db/spaceScope.js';
import { AppError, ErrorCode } from '../errors.js';
import { encodeCursor, type KeysetCursor } from '../shared/cursor.js';
import type { JsonObject } from '../shared/json.js';
import { documentFilterSql, liveDocumentSql } from './filterSql.js';
import type { DocumentFilterSpec, DocumentRecord, DocumentSummary, DocumentTypeName } from './types.js';

/** A document row as the database returns it. */
export interface DocumentRow extends DocumentSummaryRow {
  content: string;
}

/** A document row without its content (DOCUMENT_SUMMARY_COLUMNS). */
export interface DocumentSummaryRow {
  id: string;
  title: string;
  document_type: DocumentTypeName;
  source: string | null;
  tags: string[];
  metadata: JsonObject;
  content_hash: string;
  created_at: Date | string;
  updated_at: Date | string;
  expires_at: Date | string | null;
  space_id?: string;
}

/** Columns selected for a document without its content, in a stable order. */
export const DOCUMENT_SUMMARY_COLUMNS =
  'id, title, document_type, source, tags, metadata, content_hash, created_at, updated_at, expires_at, space_id';

/** Columns selected for a document, in a stable order. */
export const DOCUMENT_COLUMNS = `${DOCUMENT_SUMMARY_COLUMNS}, content`;

/** Maps a database row to a `DocumentRecord`. */
export function toDocumentRecord(row: DocumentRow): DocumentRecord {
  return { ...toDocumentSummary(row), content: row.content };
}

/** Maps a database row, with or without content, to a `DocumentSummary` (any content is left out). */
export function toDocumentSummary(row: DocumentSummaryRow): DocumentSummary {
  return {
    id: row.id,
    title: row.title,
    documentType: row.document_type,
    source: row.source,
    tags: row.tags,
    metadata: row.metadata,
    contentHash: row.content_hash,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    expiresAt: row.expires_at === null ? null : toDate(row.expires_at),
    ...(row.space_id === undefined ? {} : { space: row.space_id }),
  };
}

/** A page of documents (without their content) plus the total for the filter. */
export interface DocumentPage {
  rows: { cursor: string; document: DocumentSummary }[];
  hasNextPage: boolean;
  totalCount: number;
}

/** Row ready to be written: everything but the timestamps the database sets. */
export type DocumentWrite = Omit<DocumentRecord, 'createdAt' | 'updatedAt'>;

/** Reads and writes the `documents` table. */
export class DocumentRepository {
  constructor(private readonly db: Db) {}

  /** Fetches live (unexpired) documents by id, in no particular order. */
  async findByIds(ids: readonly string[], q: Queryable = this.db): Promise<DocumentRecord[]> {
    return (await this.liveRows<DocumentRow>(DOCUMENT_COLUMNS, ids, q)).map(toDocumentRecord);
  }

  /** Fetches live documents by id without their content, in no particular order. */
  async findSummariesByIds(ids: readonly string[]): Promise<DocumentSummary[]> {
    return (await this.liveRows<DocumentSummaryRow>(DOCUMENT_SUMMARY_COLUMNS, ids)).map(toDocumentSummary);
  }

  /** The content of each live document among `ids`; with `maxChars`, only those whose texts fit in it together (in id order). */
  async contentByIds(ids: readonly string[], maxChars = Number.MAX_SAFE_INTEGER): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    // With a budget, only the documents (in id order) whose text fits in it together are read at all.
    const params: unknown[] = [ids, maxChars];
    const { rows } = await this.db.query<{ id: string; content: string }>(
      `SELECT id, content FROM (
         SELECT id, content, sum(length(content)) OVER (ORDER BY id) AS running FROM documents
          WHERE id = ANY($1::text[]) AND ${liveDocumentSql('documents')} AND ${readSpaceSql('documents', params)}) d
        WHERE running <= $2`,
      params,
    );
    return new Map(rows.map((r) => [r.id, r.content]));
  }

  /** The live (unexpired) documents among `ids`. */
  async liveIds(ids: readonly string[]): Promise<string[]> {
    return (await this.liveRows<{ id: string }>('id', ids)).map((r) => r.id);
  }

  /** `columns` of the live (unexpired) documents among `ids`. */
  private async liveRows<R>(columns: string, ids: readonly string[], q: Queryable = this.db): Promise<R[]> {
    if (ids.length === 0) return [];
    const params: unknown[] = [ids];
    const { rows } = await q.query<R>(
      `SELECT ${columns} FROM documents
        WHERE id = ANY($1::text[]) AND ${liveDocumentSql('documents')} AND ${readSpaceSql('documents', params)}`,
      params,
    );
    return rows;
  }

  /**
   * Fetches documents by id including expired ones, locking them for the enclosing transaction. Ids that have no row
   * yet are locked too (a transaction-scoped advisory lock per id, taken in one sorted order): without that, two
   * concurrent creates of one new id both see nothing, and on a server the later one silently overwrote the earlier,
   * while batches inserting the same new ids in different orders deadlocked.
   */
  async lockByIds(q: Queryable, ids: readonly string[]): Promise<Map<string, DocumentRecord>> {
    if (ids.length === 0) return new Map();
    await q.query('SELECT count(pg_advisory_xact_lock($1::int, k)) FROM unnest($2::int[]) AS k', [
      DOCUMENT_LOCK_CLASS,
      documentLockKeys(ids),
    ]);
    const params: unknown[] = [ids];
    const { rows } = await q.query<DocumentRow>(
      `SELECT ${DOCUMENT_COLUMNS} FROM documents
        WHERE id = ANY($1::text[]) AND ${spaceSql('documents', params)} ORDER BY id FOR UPDATE`,
      params,
    );
    return new Map(rows.map((r) => [r.id, toDocumentRecord(r)]));
  }

  /** Inserts or replaces documents in one statement; `created_at` survives replacement, unless the old one had expired. */
  async upsertMany(q: Queryable, docs: readonly DocumentWrite[], owner?: string): Promise<Map<string, DocumentRecord>> {
    if (docs.length === 0) return new Map();
    // Without an owner a write keeps the document's source (a hand edit of a synced document stays the source's).
    const { rows } = await q.query<DocumentSummaryRow>(
      `INSERT INTO documents (id, title, content, document_type, source, tags, metadata, content_hash, expires_at, source_id,
                             space_id)
       SELECT x.id, x.title, x.content, x.document_type, x.source,
              ARRAY(SELECT jsonb_array_elements_text(x.tags::jsonb)), x.metadata::jsonb, x.content_hash, x.expires_at, $10::text,
              $11::text
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                     $9::timestamptz[])
           AS x(id, title, content, document_type, source, tags, metadata, content_hash, expires_at)
       ON CONFLICT (id) DO UPDATE SET
         title = EXCLUDED.title, content = EXCLUDED.content, document_type = EXCLUDED.document_type,
         source = EXCLUDED.source, tags = EXCLUDED.tags, metadata = EXCLUDED.metadata,
         content_hash = EXCLUDED.content_hash, expires_at = EXCLUDED.expires_at, updated_at = now(),
         source_id = coalesce(EXCLUDED.source_id, documents.source_id),
         created_at = CASE WHEN documents.expires_at <= now() THEN now() ELSE documents.created_at END
       WHERE documents.space_id = EXCLUDED.space_id
       RETURNING ${DOCUMENT_SUMMARY_COLUMNS}`,
      [
        docs.map((d) => d.id),
        docs.map((d) => d.title),
        docs.map((d) => d.content),
        docs.map((d) => d.documentType),
        docs.map((d) => d.source),
        docs.map((d) => JSON.stringify(d.tags)),
        docs.map((d) => JSON.stringify(d.metadata)),
        docs.map((d) => d.contentHash),
        docs.map((d) => (d.expiresAt ? d.expiresAt.toISOString() : null)),
        owner ?? null,
        writeSpace(),
      ],
    );
    if (rows.length < new Set(docs.map((d) => d.id)).size) throw idTakenElsewhere(docs, rows);
    // The content just written is the caller's: echoing it back would send every document twice.
    const content = new Map(docs.map((d) => [d.id, d.content]));
    return new Map(rows.map((r) => [r.id, { ...toDocumentSummary(r), content: content.get(r.id) ?? '' }]));
  }

  /** Deletes a document (its chunks cascade); true when it existed. */
  /** Up to `limit` ids of documents of `space`, expired ones included (deleting the space). */
  async idsInSpace(space: string, limit: number): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      'SELECT id FROM documents WHERE space_id = $1 ORDER BY id LIMIT $2',
      [space, limit],
    );
    return rows.map((r) => r.id);
  }

  async delete(id: string, q: Queryable = this.db): Promise<boolean> {
    const params: unknown[] = [id];
    const { rowCount } = await q.query(`DELETE FROM documents d WHERE d.id = $1 AND ${spaceSql('d', params)}`, params);
    return rowCount > 0;
  }

  /** The owning source id (null: none) of each stored document among `ids`. */
  async ownersOf(q: Queryable, ids: readonly string[]): Promise<Map<string, string | null>> {
    if (ids.length === 0) return new Map();
    const { rows } = await q.query<{ id: string; source_id: string | null }>(
      'SELECT id, source_id FROM documents WHERE id = ANY($1::text[])',
      [ids],
    );
    return new Map(rows.map((r) => [r.id, r.source_id]));
  }

  /** Deletes a document only when `owner` owns it; true when it did. */
  async deleteOwned(q: Queryable, id: string, owner: string): Promise<boolean> {
    const { rowCount } = await q.query('DELETE FROM documents WHERE id = $1 AND source_id = $2', [id, owner]);
    return rowCount > 0;
  }

  /** Ids of the documents (expired or not) a source owns. */
  async idsOwnedBy(owner: string): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>('SELECT id FROM documents WHERE source_id = $1 ORDER BY id', [
      owner,
    ]);
    return rows.map((r) => r.id);
  }

  /** Live documents per owning source, for the given sources. */
  async countOwnedBy(owners: readonly string[]): Promise<Map<string, number>> {
    if (owners.length === 0) return new Map();
    const { rows } = await this.db.query<{ source_id: string; n: number }>(
      `SELECT source_id, count(*)::int AS n FROM documents
        WHERE source_id = ANY($1::text[]) AND (expires_at IS NULL OR expires_at > now()) GROUP BY source_id`,
      [owners],
    );
    return new Map(rows.map((r) => [r.source_id, r.n]));
  }

  /** Leaves a source's documents in place, owned by no source; returns how many. */
  async detachOwnedBy(owner: string): Promise<number> {
    const { rowCount } = await this.db.query('UPDATE documents SET source_id = NULL WHERE source_id = $1', [owner]);
    return rowCount;
  }

  /** Ids of all documents (expired or not) whose id starts with `prefix`. */
  async idsWithPrefix(prefix: string): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      `SELECT id FROM documents WHERE starts_with(id, $1) ORDER BY id`,
      [prefix],
    );
    return rows.map((r) => r.id);
  }

  /** Ids of documents whose expiry has passed (at most `limit`). */
  async expiredIds(limit = 1000): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      'SELECT id FROM documents WHERE expires_at IS NOT NULL AND expires_at <= now() ORDER BY expires_at LIMIT $1',
      [limit],
    );
    return rows.map((r) => r.id);
  }

  /** Lists live documents newest first, after an optional keyset cursor. */
  async list(filter: DocumentFilterSpec, first: number, after: KeysetCursor | undefined): Promise<DocumentPage> {
    const params = new SqlParams();
    const where = documentFilterSql(filter, params); // the request's space included
    const countParams = [...params.values];
    let keyset = '';
    if (after) {
      const c = params.add(after.createdAt);
      const i = params.add(after.id);
      keyset = ` AND (d.created_at, d.id) < (${c}::timestamptz, ${i})`;
    }
    const limit = params.add(first + 1);
    const [page, count] = await Promise.all([
      this.db.query<DocumentSummaryRow>(
        `SELECT ${DOCUMENT_SUMMARY_COLUMNS.split(', ')
          .map((c) => `d.${c}`)
          .join(', ')}
           FROM documents d WHERE ${where}${keyset}
          ORDER BY d.created_at DESC, d.id DESC LIMIT ${limit}`,
        params.values,
      ),
      this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM documents d WHERE ${where}`, countParams),
    ]);
    const rows = page.rows.slice(0, first).map((row) => {
      const document = toDocumentSummary(row);
      return { cursor: encodeCursor({ createdAt: document.createdAt.toISOString(), id: document.id }), document };
    });
    return { rows, hasNextPage: page.rows.length > first, totalCount: count.rows[0]?.n ?? 0 };
  }
}

/**
 * Document ids are unique across spaces: an upsert of an id another space holds writes nothing (its WHERE keeps the
 * other space's row), and the write is refused as a whole.
 */
function idTakenElsewhere(docs: readonly DocumentWrite[], written: readonly DocumentSummaryRow[]): AppError {
  const done = new Set(written.map((r) => r.id));
  const id = docs.find((d) => !done.has(d.id))?.id ?? '';
  return new AppError(ErrorCode.CONFLICT, `document id "${id}" cannot be written in this space; choose another id`, {
    id,
  });
}

/** The advisory-lock class of document ids ("CAIR"), apart from the migrations' single-key lock. */
const DOCUMENT_LOCK_CLASS = 0x43414952;

/** One 32-bit key per distinct id, ascending, so every writer takes its locks in the same order. */
export function documentLockKeys(ids: readonly string[]): number[] {
  const keys = new Set(ids.map(advisoryKey32));
  return [...keys].sort((a, b) => a - b);
}

/**
 * The oldest live document whose `metadata[key]` (a string) is one of `values`, locked FOR UPDATE. `key` is spliced
 * into the SQL so that an expression index on `(metadata->>'key')` serves it (migration 012 has one for finalUrl).
 */
export async function lockOldestByMetadataValue(
  q: Queryable,
  key: string,
  values: readonly string[],
): Promise<DocumentRecord | undefined> {
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(key)) throw new Error(`metadata key "${key}" is not a plain identifier`);
  if (values.length === 0) return undefined;
  const { rows } = await q.query<DocumentRow>(
    `SELECT ${DOCUMENT_COLUMNS} FROM documents
      WHERE (metadata->>'${key}') = ANY($1::text[]) AND ${liveDocumentSql('documents')}
      ORDER BY created_at, id LIMIT 1 FOR UPDATE`,
    [values],
  );
  return rows[0] === undefined ? undefined : toDocumentRecord(rows[0]);
}
