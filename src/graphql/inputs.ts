import { decodeCursor, type KeysetCursor } from '../shared/cursor.js';
import { parseTagExpression } from '../documents/tagExpression.js';
import type { DocumentFilterSpec, DocumentTypeName } from '../documents/types.js';
import { badInput } from '../errors.js';
import type { DocumentFilter } from './generated/types.js';

/** Largest page a connection returns. */
export const MAX_PAGE_SIZE = 100;
/** Page size when `first` is omitted. */
export const DEFAULT_PAGE_SIZE = 20;

/** Most values a filter list (types, sources) may hold. */
export const MAX_FILTER_VALUES = 100;

/** Converts a GraphQL `DocumentFilter` into a validated filter spec. */
export function toFilterSpec(filter: DocumentFilter | null | undefined, field = 'filter'): DocumentFilterSpec {
  if (!filter) return {};
  if ((filter.types?.length ?? 0) > MAX_FILTER_VALUES) throw badInput(`${field}.types`, `give at most ${MAX_FILTER_VALUES} types`);
  if ((filter.sources?.length ?? 0) > MAX_FILTER_VALUES) throw badInput(`${field}.sources`, `give at most ${MAX_FILTER_VALUES} sources`);
  const spec: DocumentFilterSpec = {};
  if (filter.types?.length) spec.types = filter.types.map((t) => t.toLowerCase() as DocumentTypeName);
  if (filter.sources?.length) spec.sources = filter.sources;
  if (filter.tags !== undefined && filter.tags !== null) spec.tagGroups = parseTagExpression(filter.tags, `${field}.tags`);
  if (filter.text !== undefined && filter.text !== null) {
    const text = filter.text.trim();
    if (text.length > 1000) throw badInput(`${field}.text`, 'must be at most 1000 characters');
    if (text !== '') spec.text = text;
  }
  return spec;
}

/** Validates `first` (capped at MAX_PAGE_SIZE) and decodes `after`. */
export function toPage(first: number | null | undefined, after: string | null | undefined): { first: number; after: KeysetCursor | undefined } {
  const n = first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(n) || n < 0) throw badInput('first', 'must be a non-negative integer');
  return { first: Math.min(n, MAX_PAGE_SIZE), after: after ? decodeCursor(after) : undefined };
}

/** An integer argument with a default, checked against its range. */
export function intIn(value: number | null | undefined, fallback: number, min: number, max: number, field: string): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min || v > max) throw badInput(field, `must be an integer from ${min} to ${max}`);
  return v;
}
