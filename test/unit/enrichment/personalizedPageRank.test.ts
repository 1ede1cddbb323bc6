import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { RankGraph } from '../../../src/enrichment/RankGraph.js';

const options = { damping: 0.5, iterations: 100, tolerance: 1e-12 };

describe('personalized PageRank', () => {
  it('spreads relevance from the seeds along edges, more to closer and more strongly linked nodes', () => {
    const g = new RankGraph();
    g.link('seed', 'near', 1);
    g.link('near', 'far', 1);
    g.link('seed', 'strong', 3);
    g.node('alone');
    const r = g.personalizedPageRank(new Map([['seed', 1]]), options);
    expect(r.get('near')!).toBeGreaterThan(r.get('far')!);
    expect(r.get('strong')!).toBeGreaterThan(r.get('near')!);
    expect(r.get('alone')).toBe(0);
  });

  it('is a probability distribution for any graph and restart set (property)', () => {
    const edge = fc.tuple(
      fc.integer({ min: 0, max: 8 }),
      fc.integer({ min: 0, max: 8 }),
      fc.double({ min: 0.1, max: 5, noNaN: true }),
    );
    fc.assert(
      fc.property(fc.array(edge, { maxLength: 30 }), fc.integer({ min: 0, max: 8 }), (edges, seed) => {
        const g = new RankGraph();
        g.node(`n${seed}`);
        for (const [a, b, w] of edges) g.link(`n${a}`, `n${b}`, w);
        const r = g.personalizedPageRank(new Map([[`n${seed}`, 2]]), options);
        const total = [...r.values()].reduce((s, v) => s + v, 0);
        expect(total).toBeCloseTo(1, 6);
        for (const v of r.values()) expect(v).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  it('returns nothing without a restart node in the graph', () => {
    const g = new RankGraph();
    g.link('a', 'b', 1);
    expect(g.personalizedPageRank(new Map([['missing', 1]]), options).size).toBe(0);
  });
});
