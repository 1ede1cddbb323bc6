import { describe, expect, it } from '@jest/globals';
import { resolveEnrichRequest, type EnrichDefaults } from '../../../src/enrichment/enrichRequest.js';

const DEFAULTS: EnrichDefaults = {
  topK: 3,
  maxTopK: 8,
  maxEntities: 5,
  maxChars: 6000,
  graphShare: 0.3,
  expandNeighbors: 2,
};

describe('resolveEnrichRequest', () => {
  it('fills in the configured defaults', () => {
    expect(resolveEnrichRequest({ query: '  keys  ' }, DEFAULTS)).toEqual({
      query: 'keys',
      topK: 3,
      maxEntities: 5,
      graphDepth: 1,
      maxChars: 6000,
      filter: {},
      mode: undefined,
      minScore: undefined,
      graphShare: 0.3,
      expandNeighbors: 2,
    });
  });

  it('caps topK at the configured maximum and keeps what the caller set within bounds', () => {
    const request = resolveEnrichRequest(
      { query: 'keys', topK: 1000, maxEntities: 0, graphDepth: 3, maxChars: 200, graphShare: 0, minScore: 0.5 },
      DEFAULTS,
    );
    expect(request).toMatchObject({
      topK: 8,
      maxEntities: 0,
      graphDepth: 3,
      maxChars: 200,
      graphShare: 0,
      minScore: 0.5,
    });
  });

  it.each([
    [{ topK: 0 }, 'input.topK: must be an integer from 1 to 1000'],
    [{ topK: 1.5 }, 'input.topK: must be an integer from 1 to 1000'],
    [{ maxEntities: 101 }, 'input.maxEntities: must be an integer from 0 to 100'],
    [{ maxChars: 1_000_001 }, 'input.maxChars: must be an integer from 200 to 1000000'],
    [{ expandNeighbors: 11 }, 'input.expandNeighbors: must be an integer from 0 to 10'],
    [{ minScore: -0.1 }, 'input.minScore: must be between 0 and 1'],
    [{ graphShare: Number.NaN }, 'input.graphShare: must be between 0 and 1'],
    [{ filter: { sources: Array.from({ length: 101 }, () => 's') } }, 'input.filter.sources: give at most 100 sources'],
  ])('refuses %j', (args, message) => {
    expect(() => resolveEnrichRequest({ query: 'keys', ...args }, DEFAULTS)).toThrow(message);
  });
});
