import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { MentionMatcher, type EntityName } from '../../../src/graph/mentions/MentionMatcher.js';
import { NameCache, type NameChange } from '../../../src/graph/mentions/NameCache.js';
import { partialNameMatches, WordIndex } from '../../../src/graph/mentions/queryEntities.js';

// A small vocabulary, so names overlap, nest and share words, with accents, case and parenthetical forms.
const WORDS = ['Mercury', 'mercury', 'Bright', 'Eyes', 'Café', 'cafe', 'Gateway', 'Ledger', 'Big', 'C++', 'ACH'];
const wordArb = fc.constantFrom(...WORDS);
const nameArb = fc
  .tuple(fc.array(wordArb, { minLength: 1, maxLength: 3 }), fc.constantFrom('', ' (film)', ' (planet)'))
  .map(([words, suffix]) => words.join(' ') + suffix);
const idArb = fc.constantFrom(...Array.from({ length: 12 }, (_, i) => `e${i}`));
const changeArb: fc.Arbitrary<NameChange> = fc.oneof(
  fc
    .tuple(idArb, nameArb, fc.array(nameArb, { maxLength: 2 }))
    .map(([entityId, name, aliases]) => ({ entityId, name: { entityId, name, aliases } })),
  idArb.map((entityId) => ({ entityId, name: undefined })),
);
const textArb = fc
  .array(fc.oneof(wordArb, fc.constantFrom('the', 'achievement', 'BIG', 'big', '(film)', ',', "'s", 'Ledger2')), {
    maxLength: 25,
  })
  .map((parts) => parts.join(' '));

/** The names a sequence of changes leaves, as a full rebuild would read them. */
function replay(initial: readonly EntityName[], batches: readonly NameChange[][]): EntityName[] {
  const current = new Map(initial.map((n) => [n.entityId, n]));
  for (const batch of batches)
    for (const c of batch) {
      if (c.name) current.set(c.entityId, c.name);
      else current.delete(c.entityId);
    }
  return [...current.values()];
}

describe('NameCache', () => {
  it('matches like a matcher built from the current names, over any adds, renames and deletions', () => {
    fc.assert(
      fc.property(
        fc.array(changeArb, { maxLength: 8 }),
        fc.array(fc.array(changeArb, { minLength: 1, maxLength: 4 }), { maxLength: 8 }),
        fc.integer({ min: 0, max: 6 }),
        fc.array(textArb, { minLength: 1, maxLength: 4 }),
        (seed, batches, deltaLimit, texts) => {
          const initial = replay([], [seed]);
          const cache = new NameCache(initial, deltaLimit);
          for (const batch of batches) cache.apply(batch);
          const final = replay(initial, batches);
          const rebuilt = new MentionMatcher(final);
          const index = WordIndex.of(final);
          for (const text of texts) {
            expect(cache.matchesIn(text)).toEqual(rebuilt.matchesIn(text));
            expect(partialNameMatches(text, cache, new Set())).toEqual(partialNameMatches(text, index, new Set()));
          }
          expect(cache.stats().names).toBe(final.length);
          expect(cache.stats().pending).toBeLessThanOrEqual(deltaLimit);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('stops matching a deleted entity and matches its new name after a rename', () => {
    const cache = new NameCache([
      { entityId: 'a', name: 'Quartz Ledger', aliases: [] },
      { entityId: 'b', name: 'Billing Gateway', aliases: ['BGW'] },
    ]);
    cache.apply([{ entityId: 'a', name: undefined }]);
    cache.apply([{ entityId: 'b', name: { entityId: 'b', name: 'Payment Gateway', aliases: [] } }]);
    const text = 'Quartz Ledger calls the BGW, now the Payment Gateway.';
    expect([...cache.entitiesIn(text)]).toEqual(['b']);
    expect(cache.matchesIn(text).map((m) => m.pattern)).toEqual(['payment gateway']);
    expect(cache.stats()).toEqual({ names: 1, pending: 2, builds: 1 });
  });

  it('builds the main automaton again once more names changed than the delta holds', () => {
    const cache = new NameCache([], 2);
    cache.apply([{ entityId: 'a', name: { entityId: 'a', name: 'Alpha Node', aliases: [] } }]);
    cache.apply([{ entityId: 'b', name: { entityId: 'b', name: 'Beta Node', aliases: [] } }]);
    expect(cache.stats()).toEqual({ names: 2, pending: 2, builds: 1 });
    cache.apply([{ entityId: 'c', name: { entityId: 'c', name: 'Gamma Node', aliases: [] } }]);
    expect(cache.stats()).toEqual({ names: 3, pending: 0, builds: 2 });
    // Writing a name again unchanged is no change.
    cache.apply([{ entityId: 'c', name: { entityId: 'c', name: 'Gamma Node', aliases: [] } }]);
    expect(cache.stats().pending).toBe(0);
    expect([...cache.entitiesIn('Alpha Node and Gamma Node')].sort()).toEqual(['a', 'c']);
  });
});
