import type { Db } from '../db/Db.js';
import type { EmbeddingProvider } from '../embeddings/EmbeddingProvider.js';
import { fuse, type FusedHit } from './fusion.js';
import { loadChunks, loadNeighbors, type LoadedChunk } from '../documents/hitLoader.js';
import { KeywordSearch, type Bm25Options } from './KeywordSearch.js';
import {
  DEFAULT_SEARCH_TUNING,
  defaultVectorWeight,
  resolveSearchRequest,
  type SearchArgs,
  type SearchLimits,
  type SearchTuning,
} from './searchRequest.js';
import type { LaneHit, SearchHitRecord, SearchRequest } from './types.js';
import { VectorSearch, type VectorSearchOptions } from './VectorSearch.js';

/** Lanes rank this many times more chunks when hits are grouped by document, since one document has several chunks. */
const GROUP_OVERFETCH = 4;
/** Deepest lane ranking when looking for enough distinct documents. */
const MAX_GROUPED_DEPTH = 2000;

/** What `rankWithPool` returns: the ranking before any row is loaded (see `loadRanked`). */
export interface RankedSearch {
  request: SearchRequest;
  /** The chunks `hits` would return (minScore, grouping and topK applied), best first, not yet loaded. */
  chosen: FusedHit[];
  /** Every chunk the lanes ranked, fused, best first (ids and scores only). */
  pool: FusedHit[];
  queryVector: Float32Array | undefined;
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
  async hits(args: SearchArgs): Promise<SearchHitRecord[]> {
    return this.run(resolveSearchRequest(args, this.limits, this.tuning));
  }

  /** Runs a resolved request (see `resolveSearchRequest`). */
  async run(request: SearchRequest): Promise<SearchHitRecord[]> {
    const { ranked } = await this.rankAll(request);
    return this.load(choose(ranked, request), request);
  }

  /**
   * `hits` in two steps, for context enrichment: the ranking first (what it reuses: the whole fused pool beyond topK
   * and before minScore, and the query's embedding, undefined in KEYWORD mode), so that work depending only on the
   * chosen ids can run while `loadRanked` reads their rows.
   */
  async rankWithPool(args: SearchArgs): Promise<RankedSearch> {
    const request = resolveSearchRequest(args, this.limits, this.tuning);
    const { ranked, vector } = await this.rankAll(request);
    return { request, chosen: choose(ranked, request), pool: ranked, queryVector: vector ? await vector : undefined };
  }

  /** The rows of a ranking's chosen chunks, as `hits` returns them. */
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
