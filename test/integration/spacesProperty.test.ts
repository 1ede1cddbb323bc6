import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { runInSpace } from '../../src/db/spaceScope.js';
import type { DocumentInput } from '../../src/documents/types.js';
import { projectShare } from '../helpers/projects.js';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import type { TestServer } from '../helpers/testServer.js';

// The isolation property: whatever is written into random spaces, with random declarations that a space reads another,
// every read in a space answers what the same read over all spaces answers (keyword scores aside, see below),
// restricted to that space and, once the request is known to only read (widened as the server widens a query), the
// spaces it reads; on both databases and both graph stores. Each run writes into spaces of its own, with words of its own, so that runs cannot see each
// other. Reads run in a space as the server runs a request (runInSpace, then SpaceReads.widen for a query).

const WORDS = 4;

const scenario = fc.record({
  spaces: fc.integer({ min: 2, max: 3 }),
  documents: fc.array(
    fc.record({ space: fc.nat(2), words: fc.uniqueArray(fc.nat(WORDS - 1), { minLength: 1, maxLength: WORDS }) }),
    { minLength: 1, maxLength: 6 },
  ),
  entities: fc.array(fc.record({ space: fc.nat(2), word: fc.nat(WORDS - 1) }), { maxLength: 4 }),
  /** Spaces (by index) that read another; a pair naming one space twice is left out. */
  reads: fc.array(fc.record({ reader: fc.nat(2), read: fc.nat(2) }), { minLength: 1, maxLength: 3 }),
  /** Whether the first declaration is revoked again before reading. */
  revokeFirst: fc.boolean(),
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
    const declared = new Set<string>();
    for (const r of s.reads) {
      const [reader, read] = [spaces[r.reader % s.spaces] as string, spaces[r.read % s.spaces] as string];
      if (reader === read) continue;
      await t.services.spaceReads.allow({ space: reader, reads: read });
      declared.add(`${reader}>${read}`);
    }
    const first = [...declared][0];
    if (s.revokeFirst && first) {
      const [reader, read] = first.split('>') as [string, string];
      await t.services.spaceReads.revoke({ space: reader, reads: read });
      declared.delete(first);
    }
    /** The spaces a query in `space` reads: itself and those declared (and not revoked). */
    const visible = (space: string) => new Set([space, ...spaces.filter((o) => declared.has(`${space}>${o}`))]);
    return { prefix, spaces, word, placed, visible };
  }

  it('answers in a space what all spaces answer, restricted to that space and the spaces its queries read', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { spaces, word, placed, visible } = await write(s);
        const documentIds = [...placed.documents.keys()];
        const entityIds = [...placed.entities.keys()];
        const searches = Array.from({ length: WORDS }, (_, k) => word(k));
        const read = async () => ({
          documents: await t.services.documents.summariesByIds(documentIds),
          entities: await t.services.graph.getEntities(entityIds),
          hits: await Promise.all(
            searches.map((query) => t.services.search.hits({ query, mode: 'KEYWORD', topK: 50, filter: {} })),
          ),
          page: await t.services.documents.list({}, { first: 100 }),
          counts: await t.services.graph.stats(),
          listed: await t.services.graph.findEntities({}, { first: 100 }),
        });
        const all = await read();
        for (const [space, query] of spaces.flatMap((sp) => [[sp, false] as const, [sp, true] as const])) {
          // A mutation reads its own space only; a query also the spaces its space reads.
          const sees = query ? visible(space) : new Set([space]);
          const inSpace = await runInSpace(space, async () => {
            if (query) await t.services.spaceReads.widen();
            return read();
          });
          const restrict = (ids: Iterable<string>, placedIn: Map<string, string>) =>
            sorted([...ids].filter((id) => sees.has(placedIn.get(id) as string)));
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
          // The same chunks, each with its space. Scores and order are the space's own: BM25 statistics are kept per
          // space (and the spaces it reads), so they cannot equal those over every space without depending on them
          // (spacesKeyword.test.ts holds a space's ranking fixed while another space writes).
          const hitsOf = (
            hits: { chunk: { id: string }; document: { id: string; space?: string } }[],
            placedIn = false,
          ) =>
            hits
              .map((h) => [h.chunk.id, placedIn ? placed.documents.get(h.document.id) : h.document.space])
              .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
          inSpace.hits.forEach((hits, k) => {
            const wanted = (all.hits[k] ?? []).filter((h) => sees.has(placed.documents.get(h.document.id) as string));
            expect(hitsOf(hits)).toEqual(hitsOf(wanted, true));
          });
          expect(inSpace.page.totalCount).toBe(restrict(documentIds, placed.documents).length);
          expect(sorted(inSpace.page.rows.map((r) => r.document.id))).toEqual(
            restrict(
              all.page.rows.map((r) => r.document.id),
              placed.documents,
            ),
          );
          expect(inSpace.counts.entityCount).toBe(restrict(entityIds, placed.entities).length);
          // Both lanes of enrichContext cite and name only what the space sees, each citation with its space.
          const context = await runInSpace(space, async () => {
            if (query) await t.services.spaceReads.widen();
            return t.services.enricher.enrich({ query: searches.join(' '), mode: 'KEYWORD' });
          });
          for (const c of context.chunks)
            expect(sees.has(placed.documents.get(c.hit.document.id) as string)).toBe(true);
          for (const e of context.entities) expect(sees.has(placed.entities.get(e.entity.id) as string)).toBe(true);
          for (const c of context.citations) expect(c.space).toBe(placed.documents.get(c.documentId));
          expect(sorted(inSpace.listed.edges.map((e) => e.node.id))).toEqual(
            restrict(
              all.listed.edges.map((e) => e.node.id),
              placed.entities,
            ),
          );
        }
      }),
      { numRuns: 8 },
    );
  });
});
