import type { Queryable } from '../db/Db.js';
import { spaceSql } from '../db/spaceScope.js';

// The documents and chunks tables belong to this module. Statements of other modules that must reach them in the same
// round trip (the mention tables' joins, graph evidence) name them through these helpers, filter them with
// filterSql.ts, and read only these columns: documents' id, title, expires_at and the filter's columns; chunks' id,
// document_id, content and embedding. Everything else about them goes through this module's functions.

/** The documents table under `alias`, as a FROM item. */
export function documentsRelation(alias = 'd'): string {
  return `documents ${alias}`;
}

/** The chunks table under `alias`, as a FROM item. */
export function chunksRelation(alias = 'c'): string {
  return `chunks ${alias}`;
}

/** The title of a document of the request's space (expired or not), locked FOR UPDATE for the enclosing transaction; undefined when absent. */
export async function lockDocumentTitle(q: Queryable, documentId: string): Promise<string | undefined> {
  const params: unknown[] = [documentId];
  const { rows } = await q.query<{ title: string }>(
    `SELECT title FROM documents d WHERE d.id = $1 AND ${spaceSql('d', params)} FOR UPDATE`,
    params,
  );
  return rows[0]?.title;
}

/** Locks the live documents among `documentIds` for update (in id order); returns their titles by id. */
export async function lockDocumentTitles(q: Queryable, documentIds: readonly string[]): Promise<Map<string, string>> {
  if (documentIds.length === 0) return new Map();
  const params: unknown[] = [[...new Set(documentIds)]];
  const { rows } = await q.query<{ id: string; title: string }>(
    `SELECT id, title FROM documents d WHERE d.id = ANY($1::text[]) AND ${spaceSql('d', params)} ORDER BY id FOR UPDATE`,
    params,
  );
  return new Map(rows.map((r) => [r.id, r.title]));
}

/** A chunk whose text may contain a phrase, with its document's title. */
export interface PhraseCandidate {
  id: string;
  documentId: string;
  content: string;
  title: string;
}

/**
 * Chunks whose title + content full-text vector matches any of `phrases` (a prefilter: callers confirm the match in the
 * content). Their documents are locked (KEY SHARE, in id order), so that a write or delete of one of them waits for the
 * caller's transaction. The phrases are matched once, and the matching chunks read by id once their documents are
 * locked: a chunk a write replaced meanwhile is left out, and the chunks that write brought are the writer's to link
 * (the mention linker's names lock orders such writes after the names being backfilled).
 */
export async function lockChunksMatchingPhrases(q: Queryable, phrases: readonly string[]): Promise<PhraseCandidate[]> {
  const { rows: matching } = await q.query<{ id: string; document_id: string }>(
    `SELECT c.id::text AS id, c.document_id FROM chunks c WHERE c.keyword_tsv @@ ${PHRASES_TSQUERY}`,
    [phrases],
  );
  if (matching.length === 0) return [];
  const { rows: locked } = await q.query<{ id: string }>(
    'SELECT id FROM documents WHERE id = ANY($1::text[]) ORDER BY id FOR KEY SHARE',
    [[...new Set(matching.map((r) => r.document_id))]],
  );
  const { rows } = await q.query<{ id: string; document_id: string; content: string; title: string }>(
    `SELECT c.id::text AS id, c.document_id, c.content, d.title
       FROM chunks c JOIN documents d ON d.id = c.document_id
      WHERE c.id = ANY($1::bigint[]) AND d.id = ANY($2::text[])`,
    [matching.map((r) => r.id), locked.map((r) => r.id)],
  );
  return rows.map((r) => ({ id: r.id, documentId: r.document_id, content: r.content, title: r.title }));
}

/** One OR tsquery of the phrases in $1 (a text[]): the full-text prefilter for chunks that may name them. */
const PHRASES_TSQUERY = `(SELECT string_agg(q::text, ' | ')::tsquery FROM (
  SELECT phraseto_tsquery('english', p) AS q FROM unnest($1::text[]) AS p) qs WHERE q::text <> '')`;

/**
 * The next `limit` chunks after chunk id `afterId`, in id order, their documents locked like lockChunksMatchingPhrases
 * does (a chunk whose document was replaced meanwhile is left out). `next` is where the following page starts
 * (undefined after the last).
 */
export async function lockChunksAfter(
  q: Queryable,
  afterId: string,
  limit: number,
): Promise<{ chunks: PhraseCandidate[]; next: string | undefined }> {
  const { rows: page } = await q.query<{ id: string; document_id: string }>(
    'SELECT c.id::text AS id, c.document_id FROM chunks c WHERE c.id > $1::bigint ORDER BY c.id LIMIT $2',
    [afterId, limit],
  );
  if (page.length === 0) return { chunks: [], next: undefined };
  const next = page.length < limit ? undefined : (page[page.length - 1] as { id: string }).id;
  const { rows: locked } = await q.query<{ id: string }>(
    'SELECT id FROM documents WHERE id = ANY($1::text[]) ORDER BY id FOR KEY SHARE',
    [[...new Set(page.map((r) => r.document_id))]],
  );
  const { rows } = await q.query<{ id: string; document_id: string; content: string; title: string }>(
    `SELECT c.id::text AS id, c.document_id, c.content, d.title
       FROM chunks c JOIN documents d ON d.id = c.document_id
      WHERE c.id > $1::bigint AND c.id <= $2::bigint AND d.id = ANY($3::text[])`,
    [afterId, (page[page.length - 1] as { id: string }).id, locked.map((r) => r.id)],
  );
  const chunks = rows.map((r) => ({ id: r.id, documentId: r.document_id, content: r.content, title: r.title }));
  return { chunks, next };
}
