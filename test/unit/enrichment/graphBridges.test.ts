import { describe, expect, it } from '@jest/globals';
import { bridgeOrder } from '../../../src/enrichment/GraphLane.js';
import { rankGraph, type RankingInput } from '../../../src/enrichment/graphRanking.js';
import { leadsSpecifically } from '../../../src/enrichment/nameEvidence.js';
import { fused } from '../../helpers/fusedHit.js';

/**
 * The documents lane holds `c-lane`; the weaker hits `c-weak1` and `c-weak2` fill the rest of the budget. Search ranks
 * `d-weak1` right after the lane, so evidence from it is always admissible.
 */
function input(overrides: Partial<RankingInput> = {}): RankingInput {
  return {
    seeds: [],
    hits: [{ chunkId: 'c-lane', documentId: 'd-lane', score: 1, similarity: 0.6, entityIds: ['burton', 'topic'] }],
    weaker: [
      { chunkId: 'c-weak1', documentId: 'd-weak1', entityIds: ['topic'] },
      { chunkId: 'c-weak2', documentId: 'd-weak2', entityIds: ['viorst'] },
    ],
    pool: [fused('c-lane', 'd-lane', 1), fused('c-weak1', 'd-weak1', 0.9), fused('c-weak2', 'd-weak2', 0.8)],
    relationships: [],
    evidence: [
      // A rare director's name: the lane's chunk and one paragraph far from the query's words name him.
      { entityId: 'burton', chunkId: 'c-apes', documentId: 'd-apes', home: false, similarity: 0.1 },
      // A topic both the lane and a weaker hit mention, close to the query.
      { entityId: 'topic', chunkId: 'c-weak1b', documentId: 'd-weak1', home: false, similarity: 0.7 },
      // The page of a person only a weaker hit names.
      { entityId: 'viorst', chunkId: 'c-viorst', documentId: 'd-viorst', home: true, similarity: 0.05 },
    ],
    mentionCounts: new Map([
      ['burton', 2],
      ['topic', 12],
      ['viorst', 2],
    ]),
    known: new Set(['burton', 'topic', 'viorst']),
    names: new Map([
      ['burton', { name: 'Tim Burton', aliases: [] }],
      ['topic', { name: 'Film Festival Prize', aliases: [] }],
      ['viorst', { name: 'Judith Viorst', aliases: [] }],
    ]),
    ...overrides,
  };
}

const documents = (i: RankingInput) => rankGraph(i).chunks.map((c) => c.documentId);

describe('graph evidence through bridges the context names', () => {
  it("takes the other chunk naming a rare bridge, however far from the query's words", () => {
    expect(documents(input())).toContain('d-apes');
  });

  it('takes no such chunk for a bridge many chunks mention', () => {
    const common = input({ mentionCounts: new Map([...input().mentionCounts, ['burton', 12]]) });
    expect(documents(common)).not.toContain('d-apes');
  });

  it("reaches the page of an entity only a weaker hit's chunk names", () => {
    const ranked = rankGraph(input());
    const viorst = ranked.chunks.find((c) => c.documentId === 'd-viorst');
    expect(viorst?.home).toBe(true);
    expect(viorst?.reason).toMatchObject({ kind: 'chunk', entityId: 'viorst', chunkIndex: 2 });
  });

  it('puts documents the context does not hold before a weaker hit the context shows anyway', () => {
    // The query names a film; a weaker hit's document mentions it closer to the query than a page the context lacks.
    const film = input({
      seeds: [{ id: 'film', score: 1, depth: 0, exact: true, matched: { form: 'big eyes', sharedWith: 1 } }],
      evidence: [
        { entityId: 'film', chunkId: 'c-weak1b', documentId: 'd-weak1', home: false, similarity: 0.9 },
        { entityId: 'film', chunkId: 'c-review', documentId: 'd-review', home: false, similarity: 0.65 },
      ],
      mentionCounts: new Map([['film', 3]]),
      known: new Set(['film']),
      names: new Map([['film', { name: 'Big Eyes', aliases: [] }]]),
    });
    expect(documents(film)).toEqual(['d-review', 'd-weak1']);
  });
});

describe('bridgeOrder', () => {
  const context = [
    { chunkId: 'c1', documentId: 'd1' },
    { chunkId: 'c2', documentId: 'd2' },
  ];
  const entity = (entityId: string, mentions: number, homeDocumentIds: string[] = []) => ({
    entityId,
    mentions,
    homeDocumentIds,
  });

  it('reads bridges with a page outside the context first, and names that lead nowhere or everywhere last in their chunk', () => {
    const byChunk = new Map([
      ['c1', [entity('alone', 1), entity('everywhere', 400), entity('own-page', 1, ['d1']), entity('rare', 3)]],
      ['c2', [entity('page-elsewhere', 4, ['d9']), entity('rare', 3)]],
    ]);
    expect(bridgeOrder(context, byChunk)).toEqual({
      withHome: ['page-elsewhere'],
      others: ['rare', 'alone', 'own-page', 'everywhere'],
    });
  });

  it('orders bridges by the rank of the first chunk naming them, rarer first', () => {
    const byChunk = new Map([
      ['c1', [entity('b', 9), entity('a', 4)]],
      ['c2', [entity('c', 2)]],
    ]);
    expect(bridgeOrder(context, byChunk).others).toEqual(['a', 'b', 'c']);
  });
});

describe('leadsSpecifically for a bridge', () => {
  it('takes a single plain word the context names for specific up to bridgeSingleWordMentions', () => {
    expect(leadsSpecifically({ name: 'Maharashtra', aliases: [] }, 6)).toBe(true);
    expect(leadsSpecifically({ name: 'Request', aliases: [] }, 40)).toBe(false);
    // Named by the query, the stricter rule holds.
    expect(
      leadsSpecifically({ name: 'Maharashtra', aliases: [] }, 6, {
        exact: true,
        matched: { form: 'maharashtra', sharedWith: 1 },
      }),
    ).toBe(false);
  });
});
