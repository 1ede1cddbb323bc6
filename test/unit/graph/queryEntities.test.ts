import { describe, expect, it } from '@jest/globals';
import { MentionMatcher } from '../../../src/graph/mentions/MentionMatcher.js';
import {
  nameWords,
  partialNameMatches,
  rankQueryEntities,
  specificity,
  WordIndex,
} from '../../../src/graph/mentions/queryEntities.js';

const names = [
  { entityId: 'temple', name: 'Shirley Temple', aliases: [] },
  { entityId: 'temple-word', name: 'Temple', aliases: [] },
  { entityId: 'film', name: 'Bright Eyes (1934 film)', aliases: [] },
  { entityId: 'song', name: 'Bright Eyes (song)', aliases: [] },
  { entityId: 'common', name: 'Film', aliases: [] },
  { entityId: 'aaa', name: 'Bright Star Pictures', aliases: [] },
];
const matcher = new MentionMatcher(names);
const index = WordIndex.of(names);
const rank = (query: string, counts: Record<string, number> = {}) => {
  const exact = matcher.matchesIn(query);
  return rankQueryEntities(
    exact,
    partialNameMatches(query, index, new Set(exact.map((m) => m.entityId))),
    new Map(Object.entries(counts)),
  );
};

describe('query entity linking', () => {
  it('drops a name inside a longer match, and splits an ambiguous span between its entities', () => {
    const out = rank('Did Shirley Temple star in Bright Eyes?');
    expect(
      out
        .filter((e) => e.exact)
        .map((e) => e.entityId)
        .sort(),
    ).toEqual(['film', 'song', 'temple']);
    const score = Object.fromEntries(out.map((e) => [e.entityId, e.score]));
    expect(score.temple).toBeGreaterThan(score.film as number);
    expect(score.film).toBeCloseTo(score.song as number);
    const shared = Object.fromEntries(out.map((e) => [e.entityId, e.sharedWith]));
    expect(shared).toEqual(expect.objectContaining({ temple: 1, film: 2, song: 2 }));
  });

  it('ranks a specific name above a common one, whatever the ids', () => {
    const out = rank('which film did Shirley Temple make', { temple: 3, common: 900 });
    expect(out.map((e) => e.entityId).slice(0, 2)).toEqual(['temple', 'common']);
    expect(specificity(0)).toBe(1);
    expect(specificity(10)).toBeGreaterThan(specificity(1000));
  });

  it('puts partial name matches after every exact one, even when the exact one is common', () => {
    const out = rank('bright star film', { common: 1000 });
    expect(out[0]).toEqual(expect.objectContaining({ entityId: 'common', exact: true }));
    expect(out.slice(1).every((e) => !e.exact)).toBe(true);
    expect(out.map((e) => e.entityId)).toContain('aaa');
    // Disambiguators and one-word names never make a partial match.
    expect(nameWords('Bright Eyes (1934 film)')).toEqual(['bright', 'eyes']);
  });
});
