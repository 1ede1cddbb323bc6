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
        fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }),
        fc.array(textArb, { minLength: 1, maxLength: 4 }),
        (seed, batches, caps, texts) => {
          const initial = replay([], [seed]);
          const cache = new NameCache(initial, caps);
          for (const batch of batches) cache.apply(batch);
          const final = replay(initial, batches);
          const rebuilt = new MentionMatcher(final);
          const index = WordIndex.of(final);
          // Every name ever written, so old names of renamed and deleted entities are in the text too.
          const history = [seed, ...batches].flat().flatMap((c) => (c.name ? [c.name.name, ...c.name.aliases] : []));
          for (const text of [...texts, history.join(', ')]) {
            expect(cache.matchesIn(text)).toEqual(rebuilt.matchesIn(text));
            expect(partialNameMatches(text, cache, new Set())).toEqual(partialNameMatches(text, index, new Set()));
          }
          expect(cache.stats().names).toBe(final.length);
          expect(cache.stats().pending).toBeLessThanOrEqual(caps.reduce((a, b) => a + b, 0));
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

  it('moves changes from the newest delta to older ones, and builds the main automaton when the oldest overflows', () => {
    const cache = new NameCache([], [3, 1]);
    const add = (id: string, name: string) =>
      cache.apply([{ entityId: id, name: { entityId: id, name, aliases: [] } }]);
    add('a', 'Alpha Node');
    expect(cache.stats()).toEqual({ names: 1, pending: 1, builds: 1 });
    add('b', 'Beta Node');
    add('c', 'Gamma Node');
    expect(cache.stats()).toEqual({ names: 3, pending: 3, builds: 1 });
    add('d', 'Delta Node');
    expect(cache.stats()).toEqual({ names: 4, pending: 0, builds: 2 });
    // Writing a name again unchanged is no change.
    add('d', 'Delta Node');
    expect(cache.stats().pending).toBe(0);
    // A rename in the newest delta shadows the old name in the older delta.
    add('e', 'Epsilon Node');
    add('f', 'Zeta Node');
    add('e', 'Eta Node');
    expect(cache.stats()).toEqual({ names: 6, pending: 3, builds: 2 });
    expect(
      cache.matchesIn('Alpha Node, Epsilon Node, Eta Node, Zeta Node').map((m) => `${m.entityId}:${m.pattern}`),
    ).toEqual(['a:alpha node', 'e:eta node', 'f:zeta node']);
  });
});
