import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { parseVectorText } from '../../../src/retrieval/vectorText.js';

/** A float4 as pgvector prints it: the shortest decimal that reads back as the same float4. */
function float4Text(x: number): string {
  const f = Math.fround(x);
  for (let p = 1; p <= 9; p++) {
    const s = f.toPrecision(p);
    if (Math.fround(Number(s)) === f) return String(Number(s)).replace(/e([+-])(\d)$/, 'e$10$2'); // 1e-7 → 1e-07, like C
  }
  return String(f);
}

describe('parseVectorText', () => {
  const out = new Float64Array(64);

  it('reads back every float4 exactly, as JSON.parse does', () => {
    fc.assert(
      fc.property(fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { maxLength: 64 }), (values) => {
        const text = `[${values.map(float4Text).join(',')}]`;
        const n = parseVectorText(text, out);
        expect(n).toBe(values.length);
        // Both sides as float4, which is what the index stores.
        expect(Array.from(out.subarray(0, n), Math.fround)).toEqual(
          values.map((v) => Math.fround(Number(float4Text(v)))),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('parses the forms pgvector prints', () => {
    const n = parseVectorText('[0,-0.0195191,1e-07,-2.5e+10,3E-7,123.456,1.1754944e-38]', out);
    expect(Array.from(out.subarray(0, n))).toEqual([0, -0.0195191, 1e-7, -2.5e10, 3e-7, 123.456, 1.1754944e-38]);
    expect(parseVectorText('[]', out)).toBe(0);
  });

  it('falls back to JSON for text it does not expect, and rejects what is not a vector', () => {
    expect(parseVectorText('[ 1, 2 ]', out)).toBe(2);
    expect(Array.from(out.subarray(0, 2))).toEqual([1, 2]);
    expect(parseVectorText('[0.12345678901234567]', out)).toBe(1); // more digits than the fast path keeps exact
    // eslint-disable-next-line no-loss-of-precision -- the literal is the text parsed above, digits beyond a double included
    expect(out[0]).toBe(0.12345678901234567);
    expect(() => parseVectorText('[1,"a"]', out)).toThrow('not a vector');
    expect(() => parseVectorText(`[${new Array(65).fill(1).join(',')}]`, out)).toThrow('not a vector');
  });
});
