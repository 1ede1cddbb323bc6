import { describe, expect, it } from '@jest/globals';
import type { AppError } from '../../../src/errors.js';
import { DEFAULT_SEARCH_TUNING, resolveSearchRequest } from '../../../src/retrieval/searchRequest.js';

const limits = { topK: 3, maxTopK: 50, minScoreFloor: 0.1 };

function error(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected an error');
}

describe('resolveSearchRequest', () => {
  it('applies configured defaults and caps', () => {
    const r = resolveSearchRequest({ query: '  ach  ', filter: {}, topK: 500 }, limits);
    expect(r).toEqual({
      query: 'ach',
      topK: 50,
      minScore: 0.1,
      filter: {},
      mode: DEFAULT_SEARCH_TUNING.mode,
      fusion: DEFAULT_SEARCH_TUNING.fusion,
      vectorWeight: DEFAULT_SEARCH_TUNING.vectorWeight,
      groupByDocument: false,
      expandNeighbors: 0,
    });
    const tuned = resolveSearchRequest({ query: 'x', filter: {} }, limits, {
      ...DEFAULT_SEARCH_TUNING,
      mode: 'KEYWORD',
      fusion: 'RRF',
      vectorWeight: 0.9,
    });
    expect([tuned.mode, tuned.fusion, tuned.vectorWeight, tuned.topK]).toEqual(['KEYWORD', 'RRF', 0.9, 3]);
  });

  it('accepts modes and fusions in any case', () => {
    const r = resolveSearchRequest(
      { query: 'x', filter: {}, mode: 'vector', fusion: 'rrf', groupByDocument: true, expandNeighbors: 2 },
      limits,
    );
    expect([r.mode, r.fusion, r.groupByDocument, r.expandNeighbors]).toEqual(['VECTOR', 'RRF', true, 2]);
  });

  it('names the bad field', () => {
    expect(error(() => resolveSearchRequest({ query: 'x', filter: {}, mode: 'FUZZY' }, limits)).message).toContain(
      'input.mode',
    );
    expect(error(() => resolveSearchRequest({ query: 'x', filter: {}, fusion: 'MAX' }, limits)).message).toContain(
      'input.fusion',
    );
    expect(error(() => resolveSearchRequest({ query: 'x', filter: {}, vectorWeight: 1.5 }, limits)).message).toContain(
      'input.vectorWeight',
    );
    expect(
      error(() => resolveSearchRequest({ query: 'x', filter: {}, expandNeighbors: 11 }, limits)).message,
    ).toContain('input.expandNeighbors');
    expect(error(() => resolveSearchRequest({ query: ' ', filter: {} }, limits)).code).toBe('BAD_USER_INPUT');
  });
});
