import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { bm25Idf, candidateLexemes, orTsquery, tsqueryLexeme } from '../../../src/retrieval/KeywordSearch.js';

describe('keyword search helpers', () => {
  it('quotes lexemes for tsquery input, doubling quotes and escaping backslashes', () => {
    expect(tsqueryLexeme("o'neil")).toBe("'o''neil'");
    expect(tsqueryLexeme('a\\b')).toBe("'a\\\\b'");
    expect(orTsquery(['ach', 'bank'])).toBe("'ach' | 'bank'");
  });

  it('quoted lexemes always form one balanced token (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (s) => {
        const q = tsqueryLexeme(s);
        expect(q.startsWith("'") && q.endsWith("'")).toBe(true);
        const inner = q.slice(1, -1).replace(/''/g, '').replace(/\\\\/g, '');
        expect(inner).not.toContain("'");
      }),
    );
  });

  it('idf is positive and falls as document frequency rises', () => {
    expect(bm25Idf(1, 1000)).toBeGreaterThan(bm25Idf(10, 1000));
    expect(bm25Idf(10, 1000)).toBeGreaterThan(bm25Idf(999, 1000));
    expect(bm25Idf(1000, 1000)).toBeGreaterThan(0);
  });

  it('selects rare lexemes as candidates, and the rarest common ones when rare ones cover too little', () => {
    const terms = [
      { lexeme: 'common', df: 500, idf: 1 },
      { lexeme: 'rare', df: 3, idf: 5 },
      { lexeme: 'mid', df: 40, idf: 3 },
      { lexeme: 'commoner', df: 900, idf: 0.5 },
    ];
    expect(candidateLexemes(terms, 1000, 0.05, 10)).toEqual(['rare', 'mid']);
    expect(candidateLexemes(terms, 1000, 0.05, 100)).toEqual(['rare', 'mid', 'common']);
    expect(candidateLexemes(terms, 1000, 0.001, 1)).toEqual(['rare']);
    expect(candidateLexemes([], 1000, 0.05, 10)).toEqual([]);
  });
});
