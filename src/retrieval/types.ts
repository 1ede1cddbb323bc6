import type { ChunkRecord, DocumentFilterSpec, DocumentRecord } from '../documents/types.js';

/** One ranked chunk with its document. */
export interface SearchHitRecord {
  chunk: ChunkRecord;
  document: DocumentRecord;
  /** Cosine similarity, 0..1. */
  score: number;
}

/** A validated search request, after caps were applied. */
export interface SearchRequest {
  query: string;
  topK: number;
  minScore: number;
  filter: DocumentFilterSpec;
}
