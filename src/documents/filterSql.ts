import { escapeLike, type SqlParams } from '../db/SqlParams.js';
import { readSpaceSql } from '../db/spaceScope.js';
import type { DocumentFilterSpec } from './types.js';

/** True when a filter sets nothing, so that it only hides expired documents. */
export function isEmptyFilter(filter: DocumentFilterSpec): boolean {
  return (
    !filter.types?.length &&
    !filter.sources?.length &&
    !filter.tagGroups?.length &&
    !filter.text &&
    filter.ownerSourceId === undefined
  );
}

// The one definition of a live (unexpired) document: no expiry, or an expiry still in the future. Expired documents
// stay in the table until the sweep deletes them, so every reader applies this rule.

/** SQL predicate: the document with table alias `alias` is live (use `'documents'` for an unaliased table). */
export function liveDocumentSql(alias = 'd'): string {
  return `(${alias}.expires_at IS NULL OR ${alias}.expires_at > now())`;
}

/** Hides chunks of expired documents through the chunks' own copy of the expiry (migration 009), with no join. */
export function liveChunkSql(alias = 'c'): string {
  return `(${alias}.document_expires_at IS NULL OR ${alias}.document_expires_at > now())`;
}

/** The same rule in JS, for documents already read: live at `nowMs` (epoch milliseconds). */
export function isLiveAt(expiresAt: Date | null, nowMs: number): boolean {
  return expiresAt === null || expiresAt.getTime() > nowMs;
}

/**
 * Builds the WHERE conditions for a document filter on alias `d`, always hiding expired documents and documents of
 * other spaces than the request's.
 * Values go through parameters; the SQL text never contains user input.
 */
export function documentFilterSql(filter: DocumentFilterSpec, params: SqlParams, alias = 'd'): string {
  const where = [liveDocumentSql(alias), readSpaceSql(alias, params)];
  if (filter.types?.length) where.push(`${alias}.document_type = ANY(${params.add(filter.types)}::text[])`);
  if (filter.sources?.length) where.push(`${alias}.source = ANY(${params.add(filter.sources)}::text[])`);
  if (filter.ownerSourceId !== undefined) where.push(`${alias}.source_id = ${params.add(filter.ownerSourceId)}`);
  if (filter.tagGroups?.length) {
    // One containment test per group keeps the GIN index on tags usable.
    const groups = filter.tagGroups.map((g) => `${alias}.tags @> ${params.add(g)}::text[]`);
    where.push(`(${groups.join(' OR ')})`);
  }
  if (filter.text) {
    const p = params.add(`%${escapeLike(filter.text)}%`);
    where.push(`(${alias}.title ILIKE ${p} OR ${alias}.content ILIKE ${p})`);
  }
  return where.join(' AND ');
}

/** How a search statement reaches a filter's documents: a plain join, or a LATERAL lookup per chunk by primary key. */
export type DocumentJoin = 'join' | 'lateral';

/**
 * FROM and WHERE of the chunks (alias `c`) that a search statement ranks in one round trip: with a filter, those whose
 * document passes it (and is live); with an empty one, those live by the chunks' own copy of the expiry, with no join;
 * with none, every chunk; always only the request's space. Statements may read `c.id`, `c.document_id`, `c.embedding`, `c.keyword_tsv` and
 * `c.keyword_length`. `lateral` keeps the documents lookup apart (OFFSET 0), so that the planner cannot hash the
 * whole documents table instead.
 */
export function searchableChunksSql(
  filter: DocumentFilterSpec | undefined,
  params: SqlParams,
  join: DocumentJoin = 'join',
): { from: string; where: string } {
  if (filter === undefined) return { from: 'chunks c', where: readSpaceSql('c', params) };
  if (isEmptyFilter(filter))
    return { from: 'chunks c', where: `${liveChunkSql('c')} AND ${readSpaceSql('c', params)}` };
  const passes = documentFilterSql(filter, params);
  if (join === 'join') return { from: 'chunks c JOIN documents d ON d.id = c.document_id', where: passes };
  return {
    from: `chunks c CROSS JOIN LATERAL (SELECT 1 FROM documents d WHERE d.id = c.document_id AND ${passes} OFFSET 0) passes`,
    where: 'TRUE',
  };
}
