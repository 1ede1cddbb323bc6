import { badInput } from '../errors.js';
import { decodeCursor, type KeysetCursor } from './cursor.js';

/** Largest page a listing returns, whatever `first` asks. */
export const MAX_PAGE_SIZE = 100;
/** Page size when `first` is omitted. */
export const DEFAULT_PAGE_SIZE = 20;

/** A listing's page as a caller asks for it: `first` and the opaque cursor of the previous page, both unchecked. */
export interface PageArgs {
  first?: number | null;
  after?: string | null;
  /** The name of `after` in errors (default `after`). */
  afterField?: string;
}

/** A listing's `first`: its default when omitted, capped at MAX_PAGE_SIZE; BAD_USER_INPUT when negative. */
export function pageSize(first: number | null | undefined): number {
  const n = first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(n) || n < 0) throw badInput('first', 'must be a non-negative integer');
  return Math.min(n, MAX_PAGE_SIZE);
}

/** A keyset listing's page checked: `first` by `pageSize`, `after` decoded (BAD_USER_INPUT when not our cursor). */
export function keysetPage(page: PageArgs): { first: number; after: KeysetCursor | undefined } {
  return { first: pageSize(page.first), after: page.after ? decodeCursor(page.after, page.afterField) : undefined };
}
