import type { FusedHit } from '../../src/retrieval/fusion.js';

/** A search hit as the graph ranking's pool holds it, scored `score` by the vector lane alone. */
export const fused = (chunkId: string, documentId: string, score: number): FusedHit => ({
  chunkId,
  documentId,
  score,
  vectorScore: score,
  keywordScore: null,
  vectorRank: null,
  keywordRank: null,
});
