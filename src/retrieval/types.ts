import type { ChunkRecord, DocumentFilterSpec, DocumentSummary } from '../documents/types.js';

/** Which ranking a search uses: embeddings, BM25 over words, or both fused. */
export type SearchMode = 'VECTOR' | 'KEYWORD' | 'HYBRID';

/** How HYBRID merges its two ranked lists. */
export type FusionMethod = 'RRF' | 'LINEAR';

/** Every search mode, for validation. */
export const SEARCH_MODES: readonly SearchMode[] = ['VECTOR', 'KEYWORD', 'HYBRID'];

/** Every fusion method, for validation. */
export const FUSION_METHODS: readonly FusionMethod[] = ['RRF', 'LINEAR'];

/** One ranked chunk with its document and the scores behind its rank (SearchService always sets every field). */
export interface SearchHitRecord {
  chunk: ChunkRecord;
  /** The hit's document without its content (see DocumentSummary). */
  document: DocumentSummary;
  /**
   * 0..1, higher is better. VECTOR: cosine similarity. KEYWORD: the chunk's BM25 as a share of the best BM25 any
   * chunk could reach for this query. HYBRID: the fused score (see `fuse`).
   */
  score: number;
  /** Cosine similarity (0..1) when the vector lane ranked the chunk, else null. */
  vectorScore?: number | null;
  /** Normalised BM25 (0..1, as `score` in KEYWORD mode) when the keyword lane ranked the chunk, else null. */
  keywordScore?: number | null;
  /** 1-based rank in the keyword lane, else null. */
  keywordRank?: number | null;
  /** 1-based rank in the vector lane, else null. */
  vectorRank?: number | null;
  /** Neighbouring chunks of the same document in order (up to `expandNeighbors` each side), the hit excluded. */
  neighbors?: ChunkRecord[];
}

/** A validated search request, after defaults and caps were applied. */
export interface SearchRequest {
  query: string;
  topK: number;
  minScore: number;
  filter: DocumentFilterSpec;
  mode: SearchMode;
  fusion: FusionMethod;
  /** Weight of the vector lane in HYBRID (0..1); the keyword lane gets the rest. */
  vectorWeight: number;
  /** At most one hit per document. */
  groupByDocument: boolean;
  /** Neighbouring chunks to return on each side of every hit. */
  expandNeighbors: number;
}

/** A chunk one lane ranked: ids and its lane score, nothing wide. */
export interface LaneHit {
  chunkId: string;
  documentId: string;
  /** The lane's score, 0..1 (cosine similarity, or normalised BM25). */
  score: number;
}
