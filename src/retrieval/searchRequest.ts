import { boundedFilter } from '../documents/filterBounds.js';
import type { DocumentFilterSpec } from '../documents/types.js';
import type { EmbeddingProviderName } from '../embeddings/EmbeddingProvider.js';
import { badInput } from '../errors.js';
import { assertStorableText } from '../storableText.js';
import { DEFAULT_BM25 } from './KeywordSearch.js';
import { FUSION_METHODS, SEARCH_MODES, type FusionMethod, type SearchMode, type SearchRequest } from './types.js';

// A search request as a caller gives it, checked and completed with the configured defaults and limits.

/** Retrieval limits from configuration; callers can only tighten them. */
export interface SearchLimits {
  topK: number;
  maxTopK: number;
  minScoreFloor: number;
}

/** Search defaults and tuning (configuration; every field optional, see DEFAULT_SEARCH_TUNING). */
export interface SearchTuning {
  /** Mode when a request names none (CAIRN_SEARCH_MODE). */
  mode: SearchMode;
  /** HYBRID fusion when a request names none (CAIRN_SEARCH_FUSION). */
  fusion: FusionMethod;
  /** Vector lane weight in HYBRID when a request names none, 0..1 (CAIRN_SEARCH_VECTOR_WEIGHT). */
  vectorWeight: number;
  /** RRF's rank offset k (CAIRN_SEARCH_RRF_K). */
  rrfK: number;
  /** Chunks each HYBRID lane ranks before fusion, at least topK (CAIRN_SEARCH_CANDIDATES). */
  candidates: number;
  /** BM25 term-frequency saturation (CAIRN_SEARCH_BM25_K1). */
  bm25K1: number;
  /** BM25 length normalisation (CAIRN_SEARCH_BM25_B). */
  bm25B: number;
  /** Share of chunks above which a query word stops selecting keyword candidates (CAIRN_SEARCH_KEYWORD_CANDIDATE_DF). */
  keywordCandidateDf: number;
}

/** Defaults chosen by the SciFact benchmark (bench/RESULTS.md); `vectorWeight` is the hashing embedder's, see `defaultVectorWeight`. */
export const DEFAULT_SEARCH_TUNING: SearchTuning = {
  mode: 'HYBRID',
  fusion: 'LINEAR',
  vectorWeight: 0.2,
  rrfK: 60,
  candidates: 50,
  bm25K1: DEFAULT_BM25.k1,
  bm25B: DEFAULT_BM25.b,
  keywordCandidateDf: DEFAULT_BM25.maxCandidateDf,
};

/**
 * LINEAR fusion's vector weight when neither the request nor CAIRN_SEARCH_VECTOR_WEIGHT sets one. The hashing
 * embedder's lane is a weaker copy of BM25, so it gets a small weight; a model's lane adds meaning, so it gets an even
 * share. The weight sweeps behind both are in bench/RESULTS.md.
 */
export function defaultVectorWeight(provider: EmbeddingProviderName): number {
  return provider === 'hashing' ? DEFAULT_SEARCH_TUNING.vectorWeight : 0.5;
}

/** What a caller asked for, before defaults and limits. */
export interface SearchArgs {
  query: string;
  topK?: number | null;
  minScore?: number | null;
  filter: DocumentFilterSpec;
  /** VECTOR, KEYWORD or HYBRID (case-insensitive); the configured default when omitted. */
  mode?: SearchMode | string | null;
  /** RRF or LINEAR (case-insensitive), for HYBRID. */
  fusion?: FusionMethod | string | null;
  /** Vector lane weight for HYBRID, 0..1. */
  vectorWeight?: number | null;
  /** At most one hit per document (its best chunk). */
  groupByDocument?: boolean | null;
  /** Neighbouring chunks to return on each side of every hit, 0..MAX_NEIGHBORS. */
  expandNeighbors?: number | null;
}

const MAX_QUERY_CHARS = 8000;
/** Largest `expandNeighbors`. */
export const MAX_NEIGHBORS = 10;
/** Trims query text and checks it is non-empty, not too long and storable (a query may be recorded as a knowledge gap). */
export function validateQueryText(raw: string, field = 'input.query'): string {
  const query = raw.trim();
  if (query === '') throw badInput(field, 'must not be empty');
  if (query.length > MAX_QUERY_CHARS) throw badInput(field, `must be at most ${MAX_QUERY_CHARS} characters`);
  assertStorableText(query, field);
  return query;
}

/** Checks a minimum score is within 0..1. */
export function validateMinScore(value: number, field = 'input.minScore'): number {
  if (!Number.isFinite(value) || value < 0 || value > 1) throw badInput(field, 'must be between 0 and 1');
  return value;
}

/** Applies defaults and caps: `topK` at most the configured maximum, `minScore` at least the configured floor. */
export function resolveSearchRequest(
  args: SearchArgs,
  limits: SearchLimits,
  tuning: SearchTuning = DEFAULT_SEARCH_TUNING,
): SearchRequest {
  const query = validateQueryText(args.query);
  const topK = args.topK ?? limits.topK;
  if (!Number.isInteger(topK) || topK < 1) throw badInput('input.topK', 'must be a positive integer');
  const minScore = validateMinScore(args.minScore ?? 0);
  const vectorWeight = args.vectorWeight ?? tuning.vectorWeight;
  if (!Number.isFinite(vectorWeight) || vectorWeight < 0 || vectorWeight > 1)
    throw badInput('input.vectorWeight', 'must be between 0 and 1');
  const expandNeighbors = args.expandNeighbors ?? 0;
  if (!Number.isInteger(expandNeighbors) || expandNeighbors < 0 || expandNeighbors > MAX_NEIGHBORS) {
    throw badInput('input.expandNeighbors', `must be an integer from 0 to ${MAX_NEIGHBORS}`);
  }
  return {
    query,
    topK: Math.min(topK, limits.maxTopK),
    minScore: Math.max(minScore, limits.minScoreFloor),
    filter: boundedFilter(args.filter, 'input.filter'),
    mode: oneOf(args.mode, SEARCH_MODES, tuning.mode, 'input.mode'),
    fusion: oneOf(args.fusion, FUSION_METHODS, tuning.fusion, 'input.fusion'),
    vectorWeight,
    groupByDocument: args.groupByDocument ?? false,
    expandNeighbors,
  };
}

function oneOf<T extends string>(
  value: string | null | undefined,
  allowed: readonly T[],
  fallback: T,
  field: string,
): T {
  if (value === undefined || value === null) return fallback;
  const upper = value.toUpperCase() as T;
  if (!allowed.includes(upper)) throw badInput(field, `must be one of ${allowed.join(', ')}`);
  return upper;
}
