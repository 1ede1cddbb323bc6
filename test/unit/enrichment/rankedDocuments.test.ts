import { describe, expect, it } from '@jest/globals';
import { rankedDocuments } from '../../../src/enrichment/rankedDocuments.js';
import type { EnrichedChunkRecord, EnrichLane } from '../../../src/enrichment/types.js';

/** A cited chunk of `documentId` from `lane`; only the fields the ranking reads are meaningful. */
function cited(documentId: string, lane: EnrichLane, citation: number): EnrichedChunkRecord {
  return {
    hit: { document: { id: documentId } },
    lane,
    why: '',
    citation,
  } as unknown as EnrichedChunkRecord;
}

describe('the documents enrichContext returns, as a ranking', () => {
  it("puts graph evidence after the documents lane's weaker hits it was cited before", () => {
    // Reading order: the lane's hits, evidence next to the chunk it came through, then weaker hits filling the budget.
    const chunks = [
      cited('a', 'DOCUMENTS', 1),
      cited('b', 'DOCUMENTS', 2),
      cited('g1', 'GRAPH', 3),
      cited('c', 'DOCUMENTS', 4),
      cited('g2', 'GRAPH', 5),
      cited('d', 'DOCUMENTS', 6),
    ];
    expect(rankedDocuments(chunks, []).map((d) => d.id)).toEqual(['a', 'b', 'c', 'd', 'g1', 'g2']);
  });

  it('leads with the homes of entities the query names, whichever lane brought them', () => {
    const chunks = [cited('home', 'GRAPH', 1), cited('a', 'DOCUMENTS', 2), cited('g', 'GRAPH', 3)];
    expect(rankedDocuments(chunks, ['home']).map((d) => d.id)).toEqual(['home', 'a', 'g']);
  });

  it('ranks a document the documents lane returned by that, even when graph evidence cites it first', () => {
    const chunks = [cited('a', 'DOCUMENTS', 1), cited('b', 'GRAPH', 2), cited('b', 'DOCUMENTS', 3)];
    expect(rankedDocuments(chunks, []).map((d) => d.id)).toEqual(['a', 'b']);
  });
});
