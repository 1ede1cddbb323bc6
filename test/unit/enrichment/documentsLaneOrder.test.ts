import { describe, expect, it } from '@jest/globals';
import { documentsLaneChunks, documentsLaneSearch } from '../../../src/enrichment/documentsLaneOrder.js';
import type { FusedHit } from '../../../src/retrieval/fusion.js';
import type { RankedSearch } from '../../../src/retrieval/SearchService.js';

function hit(chunkId: string, documentId: string, score: number): FusedHit {
  return { chunkId, documentId, score, vectorScore: null, keywordScore: score, vectorRank: null, keywordRank: null };
}

/** A grouped ranking of `pool`: each document's best chunk, for the first topK documents at or above minScore. */
function groupedRanking(pool: FusedHit[], topK: number, minScore = 0): RankedSearch {
  const chosen: FusedHit[] = [];
  for (const h of pool) {
    if (chosen.length >= topK || h.score < minScore) break;
    if (!chosen.some((c) => c.documentId === h.documentId)) chosen.push(h);
  }
  const request = {
    query: 'q',
    topK,
    minScore,
    filter: {},
    mode: 'HYBRID' as const,
    fusion: 'LINEAR' as const,
    vectorWeight: 0.2,
    groupByDocument: true,
    expandNeighbors: 0,
  };
  return { request, chosen, pool, queryVector: undefined };
}

// Page A holds three good chunks, page B the single best one, C and D weaker ones.
const POOL = [
  hit('b1', 'B', 0.9),
  hit('a1', 'A', 0.8),
  hit('a2', 'A', 0.7),
  hit('a3', 'A', 0.6),
  hit('c1', 'C', 0.5),
  hit('d1', 'D', 0.4),
];

describe('the documents lane', () => {
  it('searches grouped by document', () => {
    expect(documentsLaneSearch({ query: 'q', filter: {}, topK: 3 }).groupByDocument).toBe(true);
  });

  it("puts each page's best chunk first, in grouped order, then the other best chunks", () => {
    const lane = documentsLaneChunks(groupedRanking(POOL, 3)).chosen;
    expect(lane.map((h) => h.chunkId)).toEqual(['b1', 'a1', 'c1', 'a2']);
  });

  it('keeps the rest of the ranking as it was', () => {
    const ranked = groupedRanking(POOL, 2);
    const lane = documentsLaneChunks(ranked);
    expect(lane.pool).toBe(ranked.pool);
    expect(lane.request).toBe(ranked.request);
    expect(lane.chosen.map((h) => h.chunkId)).toEqual(['b1', 'a1']);
  });

  it('adds no chunk under minScore and no chunk of a page it did not choose', () => {
    expect(documentsLaneChunks(groupedRanking(POOL, 3, 0.75)).chosen.map((h) => h.chunkId)).toEqual(['b1', 'a1']);
    const narrow = { ...groupedRanking(POOL, 3), chosen: [POOL[0] as FusedHit] };
    expect(documentsLaneChunks(narrow).chosen.map((h) => h.chunkId)).toEqual(['b1']);
  });

  it('is empty when nothing was chosen', () => {
    expect(documentsLaneChunks(groupedRanking([], 3)).chosen).toEqual([]);
  });
});
