import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { fuse } from '../../../src/retrieval/fusion.js';
import type { LaneHit } from '../../../src/retrieval/types.js';

const hit = (id: number, score: number, doc = `d${id}`): LaneHit => ({ chunkId: String(id), documentId: doc, score });
const lane = fc
  .uniqueArray(fc.record({ id: fc.integer({ min: 1, max: 40 }), score: fc.double({ min: 0, max: 1, noNaN: true }) }), {
    selector: (h) => h.id,
    maxLength: 20,
  })
  .map((hs) => hs.sort((a, b) => b.score - a.score).map((h) => hit(h.id, h.score)));

// On a 1e-6 grid: scores a few ulps apart (1e-6 and 1.0000000000000027e-6) make min-max normalisation divide by
// rounding error, so scaling them reorders the middle one; real lane scores never differ by less than the grid.
const normalScore = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 1, max: 1_000_000 }).map((n) => n / 1_000_000),
);
const normalLane = fc
  .uniqueArray(fc.record({ id: fc.integer({ min: 1, max: 40 }), score: normalScore }), {
    selector: (h) => h.id,
    maxLength: 20,
  })
  .map((hs) => hs.sort((a, b) => b.score - a.score).map((h) => hit(h.id, h.score)));

describe('fuse', () => {
  it('RRF gives first place in both lanes the best lane score and records each lane rank and score', () => {
    const out = fuse([hit(1, 0.9), hit(2, 0.8)], [hit(1, 0.4), hit(3, 0.3)], {
      method: 'RRF',
      vectorWeight: 0.5,
      rrfK: 60,
    });
    expect(out.map((h) => h.chunkId)).toEqual(['1', '2', '3']);
    expect(out[0]).toEqual({
      chunkId: '1',
      documentId: 'd1',
      score: 0.9,
      vectorScore: 0.9,
      keywordScore: 0.4,
      vectorRank: 1,
      keywordRank: 1,
    });
    expect(out[1]!.keywordRank).toBeNull();
    expect(out[2]!.vectorScore).toBeNull();
    expect(out[1]!.score).toBeCloseTo((0.5 / 62) * 61 * 0.9);
  });

  it('scores a query that nothing matches well low in every hit, so minScore can drop them', () => {
    for (const method of ['RRF', 'LINEAR'] as const) {
      const unrelated = fuse([hit(1, 0), hit(2, 0), hit(3, 0)], [], { method, vectorWeight: 0.2, rrfK: 60 });
      expect(unrelated.map((h) => h.score)).toEqual([0, 0, 0]);
      const weak = fuse([hit(1, 0.37), hit(2, 0.1)], [hit(1, 0.55)], { method, vectorWeight: 0.2, rrfK: 60 });
      expect(weak[0]!.score).toBeCloseTo(0.55);
    }
  });

  it('LINEAR keeps credit for the weakest keyword hit: the third of three exact-identifier matches beats vector noise', () => {
    const keyword = [hit(11, 0.6), hit(12, 0.55), hit(13, 0.5)];
    const vector = [hit(20, 0.42), hit(21, 0.41), hit(13, 0.3), hit(22, 0.29)];
    const order = fuse(vector, keyword, { method: 'LINEAR', vectorWeight: 0.2, rrfK: 60 }).map((h) => h.chunkId);
    expect(order.indexOf('13')).toBeLessThan(order.indexOf('20'));
    expect(order.slice(0, 3)).toEqual(['11', '12', '13']);
  });

  it('LINEAR normalises each lane, so the weight decides between lane winners', () => {
    const vector = [hit(1, 0.9), hit(2, 0.5)];
    const keyword = [hit(2, 0.2), hit(1, 0.1)];
    expect(fuse(vector, keyword, { method: 'LINEAR', vectorWeight: 0.7, rrfK: 60 })[0]!.chunkId).toBe('1');
    expect(fuse(vector, keyword, { method: 'LINEAR', vectorWeight: 0.3, rrfK: 60 })[0]!.chunkId).toBe('2');
    const [top] = fuse(vector, keyword, { method: 'LINEAR', vectorWeight: 0.3, rrfK: 60 });
    expect(top!.score).toBeCloseTo(0.7 * 0.9);
  });

  it('scaling every lane score by t scales every LINEAR score by t and keeps the order (property)', () => {
    fc.assert(
      // Scores and weights away from the subnormal range, where scaling would underflow into ties.
      fc.property(normalLane, normalLane, normalScore, fc.double({ min: 0.01, max: 1, noNaN: true }), (v, k, w, t) => {
        const options = { method: 'LINEAR' as const, vectorWeight: w, rrfK: 60 };
        const scaled = (l: LaneHit[]) => l.map((h) => ({ ...h, score: h.score * t }));
        const base = fuse(v, k, options);
        const out = fuse(scaled(v), scaled(k), options);
        expect(out.map((h) => h.chunkId)).toEqual(base.map((h) => h.chunkId));
        out.forEach((h, i) => expect(h.score).toBeCloseTo(base[i]!.score * t, 9));
      }),
    );
  });

  it('keeps scores in 0..1, sorted, one entry per chunk, and weight 1 or 0 follows one lane (property)', () => {
    fc.assert(
      fc.property(
        lane,
        lane,
        fc.constantFrom('RRF' as const, 'LINEAR' as const),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (v, k, method, w) => {
          const out = fuse(v, k, { method, vectorWeight: w, rrfK: 60 });
          expect(new Set(out.map((h) => h.chunkId)).size).toBe(out.length);
          expect(out.length).toBe(new Set([...v, ...k].map((h) => h.chunkId)).size);
          out.forEach((h, i) => {
            expect(h.score >= 0 && h.score <= 1).toBe(true);
            if (i > 0) expect(out[i - 1]!.score).toBeGreaterThanOrEqual(h.score);
          });
          const vectorOnly = fuse(v, k, { method, vectorWeight: 1, rrfK: 60 })
            .slice(0, v.length)
            .map((h) => h.chunkId);
          if (method === 'RRF') expect(vectorOnly).toEqual(v.map((h) => h.chunkId));
        },
      ),
    );
  });

  it('breaks ties by the better single-lane rank, then by numeric chunk id', () => {
    const out = fuse([hit(10, 0.5), hit(9, 0.5)], [], { method: 'LINEAR', vectorWeight: 1, rrfK: 60 });
    expect(out.map((h) => h.chunkId)).toEqual(['10', '9']);
    const same = fuse([hit(10, 0.5)], [hit(9, 0.5)], { method: 'RRF', vectorWeight: 0.5, rrfK: 60 });
    expect(same.map((h) => h.chunkId)).toEqual(['9', '10']);
  });
});
