import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { VectorMatrix, normaliseInto } from '../../../src/retrieval/VectorMatrix.js';

// Rows with exactly four ±1 components (or none) have norm 2, so their unit vectors hold ±0.5 and every dot product
// is an exact multiple of 0.25: the scan and the naive reference compute identical scores and exact ties abound.
const DIM = 6;
const sparse = fc
  .oneof(
    { weight: 1, arbitrary: fc.constant(new Array<number>(DIM).fill(0)) },
    {
      weight: 6,
      arbitrary: fc
        .tuple(
          fc.shuffledSubarray([0, 1, 2, 3, 4, 5], { minLength: 4, maxLength: 4 }),
          fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        )
        .map(([at, neg]) => {
          const v = new Array<number>(DIM).fill(0);
          at.forEach((i, j) => (v[i] = neg[j] ? -1 : 1));
          return v;
        }),
    },
  )
  .map((v) => v.map((x) => x * 3)); // unnormalised on purpose

const dense = fc.array(
  fc.integer({ min: -1000, max: 1000 }).map((x) => x / 100),
  { minLength: 9, maxLength: 9 },
);

type Op = { kind: 'put'; id: number; vector: number[] } | { kind: 'remove'; id: number };
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('put' as const), id: fc.integer({ min: 1, max: 60 }), vector: sparse }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), id: fc.integer({ min: 1, max: 60 }) }) },
);

/** Cosine similarity by the book, sorted by score then id, all-zero rows (NaN in pgvector) last with score 0. */
function naiveTopK(rows: Map<number, number[]>, query: number[], k: number): { ids: number[]; scores: number[] } {
  const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  const ranked = [...rows].map(([id, v]) => {
    const n = norm(v) * norm(query);
    return {
      id,
      key:
        norm(v) === 0
          ? Number.NEGATIVE_INFINITY
          : n === 0
            ? 0
            : v.reduce((s, x, i) => s + x * (query[i] as number), 0) / n,
    };
  });
  ranked.sort((a, b) => b.key - a.key || a.id - b.id);
  const top = ranked.slice(0, k);
  return { ids: top.map((r) => r.id), scores: top.map((r) => (Number.isFinite(r.key) ? r.key : 0)) };
}

describe('VectorMatrix', () => {
  it('returns the same top-K ids and scores as a naive sort, after any puts, replacements and removals', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), sparse, fc.integer({ min: 0, max: 70 }), (ops, query, k) => {
        const matrix = new VectorMatrix(DIM, 4); // a small start makes it grow
        const model = new Map<number, number[]>();
        for (const o of ops) {
          if (o.kind === 'put') {
            matrix.put(o.id, o.vector);
            model.set(o.id, o.vector);
          } else {
            matrix.remove(o.id);
            model.delete(o.id);
          }
        }
        expect(matrix.size).toBe(model.size);
        const got = matrix.topK(query, k);
        const want = naiveTopK(model, query, k);
        expect(Array.from(got.ids)).toEqual(want.ids);
        expect(Array.from(got.scores)).toEqual(want.scores);
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with float64 cosine similarity on dense random vectors to float32 precision', () => {
    fc.assert(
      fc.property(fc.array(dense, { minLength: 1, maxLength: 50 }), dense, (rows, query) => {
        const matrix = new VectorMatrix(9);
        rows.forEach((v, i) => matrix.put(i + 1, v));
        const want = naiveTopK(new Map(rows.map((v, i) => [i + 1, v])), query, rows.length);
        const got = matrix.topK(query, rows.length);
        // Every row comes back once; each score matches its reference score.
        expect(Array.from(got.ids).sort((a, b) => a - b)).toEqual(want.ids.slice().sort((a, b) => a - b));
        const reference = new Map(want.ids.map((id, i) => [id, want.scores[i] as number]));
        got.ids.forEach((id, i) =>
          expect(Math.abs((got.scores[i] as number) - (reference.get(id) as number))).toBeLessThan(1e-6),
        );
        // Best first, all-zero rows (scored 0) last.
        const zero = (id: number) => (rows[id - 1] as number[]).every((x) => x === 0);
        const ranked = Array.from(got.ids).filter((id) => !zero(id));
        expect(Array.from(got.ids).slice(0, ranked.length)).toEqual(ranked);
        for (let i = 1; i < ranked.length; i++)
          expect(got.scores[i - 1]).toBeGreaterThanOrEqual(got.scores[i] as number);
      }),
    );
  });

  it('scores an all-zero query 0 against every row, without NaN', () => {
    const matrix = new VectorMatrix(3);
    matrix.put(7, [1, 2, 3]);
    matrix.put(3, [0, 0, 0]);
    const { ids, scores } = matrix.topK([0, 0, 0], 5);
    expect(Array.from(ids)).toEqual([7, 3]); // the all-zero row still ranks last
    expect(Array.from(scores)).toEqual([0, 0]);
  });

  it('compacts after many removals and still ranks every remaining row', () => {
    const matrix = new VectorMatrix(2);
    for (let id = 1; id <= 3000; id++) matrix.put(id, [Math.cos(id), Math.sin(id)]);
    for (let id = 1; id <= 3000; id++) if (id % 3 !== 0) matrix.remove(id);
    for (let id = 3001; id <= 3010; id++) matrix.put(id, [Math.cos(id), Math.sin(id)]);
    const model = new Map<number, number[]>();
    for (let id = 3; id <= 3010; id += id < 3000 ? 3 : 1) model.set(id, [Math.cos(id), Math.sin(id)]);
    expect(matrix.size).toBe(model.size);
    const got = matrix.topK([1, 0.5], model.size);
    const want = naiveTopK(model, [1, 0.5], model.size);
    expect(new Set(got.ids)).toEqual(new Set(want.ids));
    got.ids.forEach((id, i) =>
      expect(
        Math.abs(Math.cos(id) * 0.8944271909999159 + Math.sin(id) * 0.4472135954999579 - (got.scores[i] as number)),
      ).toBeLessThan(1e-6),
    );
  });

  it('rejects a vector of another dimension', () => {
    const matrix = new VectorMatrix(3);
    expect(() => matrix.put(1, [1, 2])).toThrow('2 dimensions in a 3-dimension matrix');
    expect(() => matrix.topK([1, 2, 3, 4], 1)).toThrow('4 dimensions for a 3-dimension matrix');
  });

  it('normalises to unit length and leaves an all-zero vector zero', () => {
    const out = new Float32Array(4);
    expect(normaliseInto([3, 0, 4, 0], out)).toBe(true);
    expect(Array.from(out)).toEqual([Math.fround(0.6), 0, Math.fround(0.8), 0]);
    expect(normaliseInto([0, 0, 0, 0], out)).toBe(false);
    expect(Array.from(out)).toEqual([0, 0, 0, 0]);
  });
});
