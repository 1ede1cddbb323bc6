import type { Db } from '../db/Db.js';
import type { DocumentFilterSpec } from '../documents/types.js';
import type { EmbeddingProvider, EmbeddingProviderName } from '../embeddings/EmbeddingProvider.js';
import { badInput } from '../errors.js';
import { assertStorableText } from '../storableText.js';
import { fuse, type FusedHit } from './fusion.js';
import { loadChunks, loadNeighbors, type LoadedChunk } from '../documents/hitLoader.js';
import { DEFAULT_BM25, KeywordSearch, type Bm25Options } from './KeywordSearch.js';
import {
  FUSION_METHODS,
  SEARCH_MODES,
  type FusionMethod,
  type LaneHit,
  type SearchHitRecord,
  type SearchMode,
  type SearchRequest,
} from './types.js';
import { VectorSearch, type VectorSearchOptions } from './VectorSearch.js';

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
/** Lanes rank this many times more chunks when hits are grouped by document, since one document has several chunks. */
const GROUP_OVERFETCH = 4;
/** Deepest lane ranking when looking for enough distinct documents. */
const MAX_GROUPED_DEPTH = 2000;

/** What `rankWithPool` returns: the ranking before any row is loaded (see `loadRanked`). */
export interface RankedSearch {
  request: SearchRequest;
  /** The chunks `search` would return (minScore, grouping and topK applied), best first, not yet loaded. */
  chosen: FusedHit[];
  /** Every chunk the lanes ranked, fused, best first (ids and scores only). */
  pool: FusedHit[];
  queryVector: Float32Array | undefined;
}

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
    filter: args.filter,
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

/**
 * Search over chunks in three modes: VECTOR (pgvector cosine similarity), KEYWORD (BM25 over title and content, scored
 * in Postgres) and HYBRID (both lanes fused by RRF or a weighted sum of normalised scores).
 */
export class SearchService {
  private readonly tuning: SearchTuning;
  private readonly vectors: VectorSearch;
  private readonly keywords: KeywordSearch;

  constructor(
    private readonly db: Db,
    private readonly embedder: EmbeddingProvider,
    private readonly limits: SearchLimits,
    tuning: Partial<SearchTuning> = {},
    vectorOptions: VectorSearchOptions = {},
  ) {
    this.tuning = {
      ...DEFAULT_SEARCH_TUNING,
      vectorWeight: defaultVectorWeight(embedder.info.provider),
      ...definedOnly(tuning),
    };
    this.vectors = new VectorSearch(db, vectorOptions);
    const bm25: Bm25Options = {
      k1: this.tuning.bm25K1,
      b: this.tuning.bm25B,
      maxCandidateDf: this.tuning.keywordCandidateDf,
    };
    this.keywords = new KeywordSearch(db, bm25);
  }

  /** Prepares the vector lane before the first search (PGlite's in-memory embeddings); resolves to the chunks held. */
  warm(): Promise<number> {
    return this.vectors.warm();
  }

  /** Validates `args` and returns the best chunks with their documents and every lane's scores, best first. */
  async search(args: SearchArgs): Promise<SearchHitRecord[]> {
    return this.run(resolveSearchRequest(args, this.limits, this.tuning));
  }

  /** Runs a resolved request (see `resolveSearchRequest`). */
  async run(request: SearchRequest): Promise<SearchHitRecord[]> {
    const { ranked } = await this.rankAll(request);
    return this.load(choose(ranked, request), request);
  }

  /**
   * `search` in two steps, for context enrichment: the ranking first (what it reuses: the whole fused pool beyond topK
   * and before minScore, and the query's embedding, undefined in KEYWORD mode), so that work depending only on the
   * chosen ids can run while `loadRanked` reads their rows.
   */
  async rankWithPool(args: SearchArgs): Promise<RankedSearch> {
    const request = resolveSearchRequest(args, this.limits, this.tuning);
    const { ranked, vector } = await this.rankAll(request);
    return { request, chosen: choose(ranked, request), pool: ranked, queryVector: vector ? await vector : undefined };
  }

  /** The rows of a ranking's chosen chunks, as `search` returns them. */
  loadRanked(ranked: RankedSearch): Promise<SearchHitRecord[]> {
    return this.load(ranked.chosen, ranked.request);
  }

  private async rankAll(
    request: SearchRequest,
  ): Promise<{ ranked: FusedHit[]; vector: Promise<Float32Array> | undefined }> {
    const vector = request.mode !== 'KEYWORD' ? this.embedQuery(request.query) : undefined;
    for (let depth = this.laneDepth(request); ; depth *= GROUP_OVERFETCH) {
      // The keyword lane needs no embedding: it runs while the query is embedded (on PGlite the queries take turns).
      const [v, k] = await Promise.all([
        vector ? vector.then((q) => this.vectors.search(q, request.filter, depth)) : [],
        request.mode !== 'VECTOR' ? this.keywords.search(request.query, request.filter, depth) : [],
      ]);
      const ranked = this.rank(request, v, k);
      // Grouped by document, many chunks of a few documents can fill the lanes: look deeper while more chunks exist.
      const short = request.groupByDocument && new Set(ranked.map((h) => h.documentId)).size < request.topK;
      const more = v.length >= depth || k.length >= depth;
      if (!short || !more || depth >= MAX_GROUPED_DEPTH) return { ranked, vector };
    }
  }

  /** For each chunk, the share of the query's words it contains (see `KeywordSearch.coverage`). */
  queryCoverage(query: string, chunkIds: readonly string[]): Promise<Map<string, number>> {
    return this.keywords.coverage(query, chunkIds);
  }

  /** For each text with its title, the share of the query's words it holds (see `KeywordSearch.textCoverage`). */
  textCoverage(query: string, texts: readonly { title: string; text: string }[]): Promise<number[]> {
    return this.keywords.textCoverage(query, texts);
  }

  /** Chunks with their documents by id, as hits load them (for context built from chunks found another way). */
  loadChunks(chunkIds: readonly string[]): Promise<Map<string, LoadedChunk>> {
    return loadChunks(this.db, chunkIds);
  }

  /** VECTOR search with a vector the caller already has. */
  async searchByVector(vector: Float32Array, request: SearchRequest): Promise<SearchHitRecord[]> {
    const hits = await this.vectors.search(vector, request.filter, this.laneDepth({ ...request, mode: 'VECTOR' }));
    return this.load(choose(this.rank({ ...request, mode: 'VECTOR' }, hits, []), request), request);
  }

  private async embedQuery(query: string): Promise<Float32Array> {
    const [vector] = await this.embedder.embed([query]);
    return vector as Float32Array;
  }

  /** How many chunks each lane ranks: topK alone, more for fusion and for grouping by document. */
  private laneDepth(request: SearchRequest): number {
    const base = request.mode === 'HYBRID' ? Math.max(request.topK, this.tuning.candidates) : request.topK;
    return request.groupByDocument ? base * GROUP_OVERFETCH : base;
  }

  /** One ordered list from the lanes: single-lane modes keep their lane's order and score. */
  private rank(request: SearchRequest, vector: LaneHit[], keyword: LaneHit[]): FusedHit[] {
    if (request.mode === 'HYBRID') {
      return fuse(vector, keyword, {
        method: request.fusion,
        vectorWeight: request.vectorWeight,
        rrfK: this.tuning.rrfK,
      });
    }
    const lane = request.mode === 'VECTOR' ? vector : keyword;
    return lane.map((h, i) => ({
      chunkId: h.chunkId,
      documentId: h.documentId,
      score: h.score,
      vectorScore: request.mode === 'VECTOR' ? h.score : null,
      keywordScore: request.mode === 'KEYWORD' ? h.score : null,
      vectorRank: request.mode === 'VECTOR' ? i + 1 : null,
      keywordRank: request.mode === 'KEYWORD' ? i + 1 : null,
    }));
  }

  /** Loads the chosen hits' rows and neighbours, in order; a chunk deleted since ranking is left out. */
  private async load(chosen: readonly FusedHit[], request: SearchRequest): Promise<SearchHitRecord[]> {
    const loaded = await loadChunks(
      this.db,
      chosen.map((h) => h.chunkId),
    );
    const hits: SearchHitRecord[] = [];
    for (const h of chosen) {
      const row = loaded.get(h.chunkId);
      if (!row) continue; // deleted between ranking and loading
      hits.push({
        ...row,
        score: h.score,
        vectorScore: h.vectorScore,
        keywordScore: h.keywordScore,
        vectorRank: h.vectorRank,
        keywordRank: h.keywordRank,
        neighbors: [],
      });
    }
    if (request.expandNeighbors > 0) {
      const neighbors = await loadNeighbors(
        this.db,
        hits.map((h) => h.chunk),
        request.expandNeighbors,
      );
      for (const h of hits) h.neighbors = neighbors.get(h.chunk.id) ?? [];
    }
    return hits;
  }
}

/** Applies minScore, grouping by document and topK to a ranking. */
function choose(ranked: readonly FusedHit[], request: SearchRequest): FusedHit[] {
  const chosen: FusedHit[] = [];
  const docs = new Set<string>();
  for (const h of ranked) {
    if (chosen.length >= request.topK || h.score < request.minScore) break;
    if (request.groupByDocument) {
      if (docs.has(h.documentId)) continue;
      docs.add(h.documentId);
    }
    chosen.push(h);
  }
  return chosen;
}

function definedOnly<T extends object>(o: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
