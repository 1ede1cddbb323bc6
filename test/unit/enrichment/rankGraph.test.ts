import { describe, expect, it } from '@jest/globals';
import { rankGraph, type RankingInput } from '../../../src/enrichment/graphRanking.js';
import type { RelationshipRecord } from '../../../src/graph/types.js';
import { fused } from '../../helpers/fusedHit.js';

const rel = (fromId: string, toId: string): RelationshipRecord => ({
  id: `${fromId}->${toId}`,
  fromId,
  toId,
  type: 'RELATES_TO',
  properties: {},
  origin: 'MANUAL',
  createdAt: new Date(0),
});

/**
 * A chain small enough to check by hand: the query names `a`; a → b → c are related; the documents lane holds one
 * chunk (`c-lane`, in `d-lane`) that mentions `a`. Each entity has a home chunk in a document of its own, equally close
 * to the query, and search ranks those documents right after the lane's, so all three are admissible.
 */
function chain(overrides: Partial<RankingInput> = {}): RankingInput {
  return {
    seeds: [{ id: 'a', score: 1, depth: 0, exact: true }],
    hits: [{ chunkId: 'c-lane', documentId: 'd-lane', score: 1, similarity: 0.5, entityIds: ['a'] }],
    pool: [fused('c-lane', 'd-lane', 1), fused('x', 'd-a', 0.5), fused('y', 'd-b', 0.5), fused('z', 'd-c', 0.5)],
    relationships: [rel('a', 'b'), rel('b', 'c')],
    evidence: ['a', 'b', 'c'].map((id) => ({
      entityId: id,
      chunkId: `c-${id}`,
      documentId: `d-${id}`,
      home: true,
      similarity: 0.5,
    })),
    mentionCounts: new Map([
      ['a', 2],
      ['b', 2],
      ['c', 2],
    ]),
    known: new Set(['a', 'b', 'c']),
    names: new Map([
      ['a', { name: 'Alpha Reactor', aliases: [] }],
      ['b', { name: 'Beta Turbine', aliases: [] }],
      ['c', { name: 'Gamma Valve', aliases: [] }],
    ]),
    ...overrides,
  };
}

describe('rankGraph on a three-entity chain', () => {
  it('ranks the named entity first and relevance falls with each hop', () => {
    const { entities } = rankGraph(chain());
    // Only entities with a reason are listed: `a` (named by the query); b and c are not seeds' neighbours here.
    expect(entities.map((e) => e.id)).toEqual(['a']);
    expect(entities[0]?.reason).toEqual({ kind: 'query', entityId: 'a', exact: true });
    const withNeighbours = rankGraph(
      chain({
        seeds: [
          { id: 'a', score: 1, depth: 0, exact: true },
          { id: 'b', score: 0, depth: 1, exact: false, seedId: 'a', via: rel('a', 'b') },
          { id: 'c', score: 0, depth: 2, exact: false, seedId: 'a', via: rel('b', 'c') },
        ],
      }),
    );
    const ids = withNeighbours.entities.map((e) => e.id);
    const score = new Map(withNeighbours.entities.map((e) => [e.id, e.score]));
    expect(ids).toEqual(['a', 'b', 'c']);
    expect(score.get('a')).toBeGreaterThan(score.get('b') ?? 0);
    expect(score.get('b')).toBeGreaterThan(score.get('c') ?? 0);
    expect(score.get('c')).toBeGreaterThan(0);
  });

  it("brings the named entity's home first, one chunk per document, scored relative to the best", () => {
    const result = rankGraph(chain());
    expect(result.namedHomes).toEqual(['d-a']);
    expect(result.chunks[0]).toMatchObject({ chunkId: 'c-a', documentId: 'd-a', home: true, score: 1 });
    // The lane's own document is never brought again; every score is within 0..1, best first after the named home.
    expect(result.chunks.map((c) => c.documentId)).not.toContain('d-lane');
    expect(new Set(result.chunks.map((c) => c.documentId)).size).toBe(result.chunks.length);
    for (const c of result.chunks) expect(c.score).toBeGreaterThanOrEqual(0);
    for (const c of result.chunks) expect(c.score).toBeLessThanOrEqual(1);
  });

  it('gives the restart mass to the lane alone when the query names nothing', () => {
    const result = rankGraph(chain({ seeds: [] }));
    expect(result.namedHomes).toEqual([]);
    // `a` is reached through the lane's chunk (a bridge), not the query.
    expect(result.entities).toEqual([
      expect.objectContaining({ id: 'a', reason: { kind: 'chunk', entityId: 'a', chunkIndex: 0 } }),
    ]);
  });

  it('ignores entities whose records were not read', () => {
    const result = rankGraph(chain({ known: new Set(['b', 'c']) }));
    expect(result.entities).toEqual([]);
    expect(result.namedHomes).toEqual([]);
  });
});
