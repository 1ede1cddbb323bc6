import { boundedFilter } from '../documents/filterBounds.js';
import type { DocumentFilterSpec } from '../documents/types.js';
import { badInput } from '../errors.js';
import { validateMinScore, validateQueryText } from '../retrieval/searchRequest.js';
import { intIn } from '../shared/intIn.js';
import type { EnrichRequest } from './types.js';

/** What a caller of enrichContext asked for, before defaults and bounds (fields named as the API's `input`). */
export interface EnrichArgs {
  query: string;
  topK?: number | null;
  maxEntities?: number | null;
  graphDepth?: number | null;
  maxChars?: number | null;
  filter?: DocumentFilterSpec | null;
  /** VECTOR, KEYWORD or HYBRID (search checks it); search's default when omitted. */
  mode?: string | null;
  minScore?: number | null;
  graphShare?: number | null;
  expandNeighbors?: number | null;
}

/** The configured defaults and caps of an enrichContext request. */
export interface EnrichDefaults {
  /** Default passages (CAIRN_RAG_TOP_K) and the cap on any request's (CAIRN_RAG_MAX_TOP_K). */
  topK: number;
  maxTopK: number;
  maxEntities: number;
  maxChars: number;
  graphShare: number;
  expandNeighbors: number;
}

/** Most relationship hops a request may follow. */
export const MAX_GRAPH_DEPTH = 3;
/** Largest character budget a request may ask for. */
export const MAX_CONTEXT_CHARS = 1_000_000;

/**
 * Checks a request's bounds (BAD_USER_INPUT naming the `input.` field and its range) and fills in the configured
 * defaults; `topK` is capped at the configured maximum.
 */
export function resolveEnrichRequest(args: EnrichArgs, defaults: EnrichDefaults): EnrichRequest {
  return {
    query: validateQueryText(args.query),
    topK: Math.min(intIn(args.topK, defaults.topK, 1, 1000, 'input.topK'), defaults.maxTopK),
    maxEntities: intIn(args.maxEntities, defaults.maxEntities, 0, 100, 'input.maxEntities'),
    graphDepth: intIn(args.graphDepth, 1, 1, MAX_GRAPH_DEPTH, 'input.graphDepth'),
    maxChars: intIn(args.maxChars, defaults.maxChars, 200, MAX_CONTEXT_CHARS, 'input.maxChars'),
    filter: boundedFilter(args.filter ?? {}, 'input.filter'),
    mode: args.mode ?? undefined,
    minScore: args.minScore == null ? undefined : validateMinScore(args.minScore),
    graphShare: args.graphShare == null ? defaults.graphShare : shareIn(args.graphShare, 'input.graphShare'),
    expandNeighbors: intIn(args.expandNeighbors, defaults.expandNeighbors, 0, 10, 'input.expandNeighbors'),
  };
}

/** A share (0..1) given by a caller. */
function shareIn(value: number, field: string): number {
  if (!Number.isFinite(value) || value < 0 || value > 1) throw badInput(field, 'must be between 0 and 1');
  return value;
}
