import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Db } from '../../src/db/Db.js';
import { toVectorSql, VectorArrayParam, VectorParam } from '../../src/db/vector.js';
import { dbTargets, openScratchDb } from '../helpers/databases.js';

/** A seeded generator, so a failure names vectors that can be made again. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

/** Unit vectors (what embedders give), then values of every magnitude, signs, zeros, -0 and rounding boundaries. */
function vectors(): Float32Array[] {
  const next = random(34);
  const unit = Array.from({ length: 40 }, () => {
    const v = Float32Array.from({ length: 1024 }, () => next() * 2 - 1);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
  const wide = Array.from({ length: 20 }, (_, k) =>
    Float32Array.from({ length: 256 }, () => (next() * 2 - 1) * 10 ** (k - 10)),
  );
  const edges = Float32Array.from([0, -0, 5e-8, -5e-8, 4.9999999e-8, 1.5e-7, -1.5e-7, 0.12345675, 1, -1, 123456.78]);
  return [...unit, ...wide, edges];
}

describe.each(dbTargets())('vector parameters in binary form ($name)', (target) => {
  let scratch: Awaited<ReturnType<typeof openScratchDb>>;
  let db: Db;
  beforeAll(async () => {
    scratch = await openScratchDb(target);
    db = scratch.db;
  });
  afterAll(async () => {
    await scratch?.close();
  });

  it('stores the same vectors as the text literal, byte for byte', async () => {
    const sent = vectors();
    const { rows } = await db.query<{ i: number; same: boolean }>(
      `SELECT x.i::int AS i, vector_send(x.b) = vector_send(x.t::vector) AS same
         FROM unnest($1::vector[], $2::text[]) WITH ORDINALITY AS x(b, t, i) ORDER BY x.i`,
      [new VectorArrayParam(sent), sent.map((v) => toVectorSql(v))],
    );
    expect(rows).toHaveLength(sent.length);
    expect(rows.filter((r) => !r.same).map((r) => r.i)).toEqual([]);
  });

  it('sends one vector as a vector parameter, byte for byte as the literal', async () => {
    for (const vector of vectors().slice(-3)) {
      const { rows } = await db.query<{ same: boolean }>(
        'SELECT vector_send($1::vector) = vector_send($2::vector) AS same',
        [new VectorParam(vector), toVectorSql(vector)],
      );
      expect(rows[0]?.same).toBe(true);
    }
  });

  it('sends them inside a transaction too, and an empty array', async () => {
    const counts = await db.transaction(async (tx) => {
      const one = await tx.query<{ n: number }>('SELECT cardinality($1::vector[])::int AS n', [
        new VectorArrayParam([Float32Array.from([0.5, -0.25])]),
      ]);
      const none = await tx.query<{ n: number }>('SELECT cardinality($1::vector[])::int AS n', [
        new VectorArrayParam([]),
      ]);
      return [one.rows[0]?.n, none.rows[0]?.n];
    });
    expect(counts).toEqual([1, 0]);
  });
});
