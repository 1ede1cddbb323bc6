import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { runInSpace } from '../../src/db/spaceScope.js';
import type { DocumentInput } from '../../src/documents/types.js';
import { projectShare } from '../helpers/projects.js';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import type { TestServer } from '../helpers/testServer.js';

// The isolation property: whatever is written into random spaces, every read in a space answers what the same read
// over all spaces answers, restricted to that space, on both databases and both graph stores. Each run writes into
// spaces of its own, with words of its own, so that runs cannot see each other. Reads run in a space as the server
// runs a request (runInSpace).

const WORDS = 4;

const scenario = fc.record({
  spaces: fc.integer({ min: 2, max: 3 }),
  documents: fc.array(
    fc.record({ space: fc.nat(2), words: fc.uniqueArray(fc.nat(WORDS - 1), { minLength: 1, maxLength: WORDS }) }),
    { minLength: 1, maxLength: 6 },
  ),
  entities: fc.array(fc.record({ space: fc.nat(2), word: fc.nat(WORDS - 1) }), { maxLength: 4 }),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

const sorted = (ids: Iterable<string>) => [...ids].sort();

const everyDatabaseRuns = projectShare(serverRuns({ everyDatabase: true }));

describe.each(everyDatabaseRuns)('space isolation as a property ($name)', (target) => {
  let t: TestServer;
  let run = 0;
  beforeAll(async () => {
    t = await startRunServer(target);
  });
  afterAll(() => t?.close());

  /** Writes a scenario in its own spaces; returns each space's document and entity ids. */
  async function write(s: Scenario) {
    const prefix = `r${++run}`;
    const spaces = Array.from({ length: s.spaces }, (_, i) => `${prefix}-s${i}`);
    for (const id of spaces) await t.services.spaces.create({ id });
    const word = (k: number) => `${prefix}w${k}`;
    const placed = { documents: new Map<string, string>(), entities: new Map<string, string>() };
    for (const [i, d] of s.documents.entries()) {
      const space = spaces[d.space % s.spaces] as string;
      const input: DocumentInput = {
        id: `${prefix}:d${i}`,
        title: `Note ${i}`,
        content: `About ${d.words.map(word).join(' and ')}.`,
        documentType: 'other',
        source: null,
        tags: [],
        metadata: {},
        expiresAt: null,
      };
      await runInSpace(space, () => t.services.documents.create(input));
      placed.documents.set(input.id as string, space);
    }
    for (const [i, e] of s.entities.entries()) {
      const space = spaces[e.space % s.spaces] as string;
      const id = `${prefix}:e${i}`;
      await runInSpace(space, () =>
        t.services.graph.upsertGraph([{ id, type: 'Thing', name: `${word(e.word)} ${i}` }], []),
      );
      placed.entities.set(id, space);
    }
    return { prefix, spaces, word, placed };
  }

  it('answers in a space what all spaces answer, restricted to that space', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { spaces, word, placed } = await write(s);
        const documentIds = [...placed.documents.keys()];
        const entityIds = [...placed.entities.keys()];
        const searches = Array.from({ length: WORDS }, (_, k) => word(k));
        const read = async () => ({
          documents: await t.services.documents.summariesByIds(documentIds),
          entities: await t.services.graph.getEntities(entityIds),
          hits: await Promise.all(
            searches.map((query) => t.services.search.hits({ query, mode: 'KEYWORD', topK: 50, filter: {} })),
          ),
        });
        const all = await read();
        for (const space of spaces) {
          const inSpace = await runInSpace(space, read);
          const restrict = (ids: Iterable<string>, placedIn: Map<string, string>) =>
            sorted([...ids].filter((id) => placedIn.get(id) === space));
          expect(sorted(inSpace.documents.map((d) => d.id))).toEqual(
            restrict(
              all.documents.map((d) => d.id),
              placed.documents,
            ),
          );
          expect(sorted(inSpace.entities.map((e) => e.id))).toEqual(
            restrict(
              all.entities.map((e) => e.id),
              placed.entities,
            ),
          );
          inSpace.hits.forEach((hits, k) => {
            const wanted = (all.hits[k] ?? []).filter((h) => placed.documents.get(h.document.id) === space);
            expect(hits.map((h) => [h.chunk.id, h.score])).toEqual(wanted.map((h) => [h.chunk.id, h.score]));
          });
          const page = await runInSpace(space, () => t.services.documents.list({}, { first: 100 }));
          expect(page.totalCount).toBe(restrict(documentIds, placed.documents).length);
          const counts = await runInSpace(space, () => t.services.graph.stats());
          expect(counts.entityCount).toBe(restrict(entityIds, placed.entities).length);
        }
      }),
      { numRuns: 6 },
    );
  });
});
