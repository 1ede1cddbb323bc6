import type { DocumentFilterSpec } from './types.js';

/** Collects positional parameters while SQL text is assembled from fixed fragments only. */
export class SqlParams {
  readonly values: unknown[] = [];

  /** Adds a value and returns its placeholder (`$n`). */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Escapes LIKE wildcards so user text matches literally. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** True when a filter sets nothing, so that it only hides expired documents. */
export function isEmptyFilter(filter: DocumentFilterSpec): boolean {
  return !filter.types?.length && !filter.sources?.length && !filter.tagGroups?.length && !filter.text && filter.ownerSourceId === undefined;
}

/** Hides chunks of expired documents through the chunks' own copy of the expiry (migration 009), with no join. */
export function liveChunkSql(alias = 'c'): string {
  return `(${alias}.document_expires_at IS NULL OR ${alias}.document_expires_at > now())`;
}

/**
 * Builds the WHERE conditions for a document filter on alias `d`, always hiding expired documents.
 * Values go through parameters; the SQL text never contains user input.
 */
export function documentFilterSql(filter: DocumentFilterSpec, params: SqlParams, alias = 'd'): string {
  const where = [`(${alias}.expires_at IS NULL OR ${alias}.expires_at > now())`];
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
