import { badInput } from '../errors.js';

/** Largest page a listing returns, whatever `first` asks. */
export const MAX_PAGE_SIZE = 100;
/** Page size when `first` is omitted. */
export const DEFAULT_PAGE_SIZE = 20;

/** A listing's `first`: its default when omitted, capped at MAX_PAGE_SIZE; BAD_USER_INPUT when negative. */
export function pageSize(first: number | null | undefined): number {
  const n = first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(n) || n < 0) throw badInput('first', 'must be a non-negative integer');
  return Math.min(n, MAX_PAGE_SIZE);
}
