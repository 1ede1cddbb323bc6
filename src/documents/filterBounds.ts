import { badInput } from '../errors.js';
import type { DocumentFilterSpec } from './types.js';

/** Most values a filter list (types, sources) may hold. */
export const MAX_FILTER_VALUES = 100;
/** Longest `text` a filter may hold. */
export const MAX_FILTER_TEXT_CHARS = 1000;

/**
 * Checks a filter's sizes (BAD_USER_INPUT naming `field`) and returns it: the services that take a filter (listing,
 * search, enrichment) call it, so every entry gets the same bounds.
 */
export function boundedFilter(filter: DocumentFilterSpec, field: string): DocumentFilterSpec {
  if ((filter.types?.length ?? 0) > MAX_FILTER_VALUES)
    throw badInput(`${field}.types`, `give at most ${MAX_FILTER_VALUES} types`);
  if ((filter.sources?.length ?? 0) > MAX_FILTER_VALUES)
    throw badInput(`${field}.sources`, `give at most ${MAX_FILTER_VALUES} sources`);
  if (filter.text !== undefined && filter.text.length > MAX_FILTER_TEXT_CHARS)
    throw badInput(`${field}.text`, `must be at most ${MAX_FILTER_TEXT_CHARS} characters`);
  return filter;
}
