// The keyword lane's single statement: the query's lexemes, their idf, the candidate lexemes (common ones pruned) and
// BM25, all in SQL. These pin what the candidate rule and the tsquery quoting do, on PGlite and the real server.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DocumentInput } from '../../src/documents/types.js';
import { KeywordSearch } from '../../src/retrieval/KeywordSearch.js';
import { dbTargets } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

const doc = (id: string, content: string, tags: string[] = []): DocumentInput => ({
  id,
  title: id,
  content,
  documentType: 'other',
  source: null,
  tags,
  metadata: {},
  expiresAt: null,
});

describe.each(dbTargets())('keyword candidates ($name)', (target) => {
  let t: TestServer;
  // 40 chunks: "harbour" in 30 of them (common), "lighthouse" in 3 (rare), "keeper" in 1.
  const docs: DocumentInput[] = [
    ...Array.from({ length: 27 }, (_, i) => doc(`common:${i}`, `The harbour was busy on day ${i}.`)),
    ...Array.from({ length: 3 }, (_, i) =>
      doc(`both:${i}`, `The harbour lighthouse shone on night ${i}.`, i === 0 ? ['tagged'] : []),
    ),
    doc('keeper', 'The lighthouse keeper wrote a log.'),
    doc('quoted', "O'Neil's notes mention back\\slash paths."),
    ...Array.from({ length: 8 }, (_, i) => doc(`other:${i}`, `Unrelated filler text number ${i}.`)),
  ];
  docs.push(doc('only-common-tagged', 'A quiet harbour at dusk.', ['tagged']));
  const keywordSearch = (maxCandidateDf: number) =>
    new KeywordSearch(t.services.db, { k1: 1.2, b: 0.75, maxCandidateDf });
  const ids = (hits: { chunkId: string; documentId: string }[]) => hits.map((h) => h.documentId);

  beforeAll(async () => {
    t = await startTestServer(target);
    await t.services.documents.upsertMany(docs);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a common lexeme scores but pulls in no candidates when rare ones cover the limit', async () => {
    const hits = await keywordSearch(0.2).search('harbour lighthouse keeper', {}, 3);
    expect(ids(hits)).toHaveLength(3);
    expect(ids(hits)[0]).toBe('keeper');
    // Every hit holds a rare lexeme; the harbour-only chunks were never candidates.
    for (const id of ids(hits)) expect(id === 'keeper' || id.startsWith('both:')).toBe(true);
    // The common lexeme still adds to the score of the candidates holding it.
    const [both, keeper] = [hits.find((h) => h.documentId === 'both:1'), hits.find((h) => h.documentId === 'keeper')];
    const lighthouseOnly = await keywordSearch(0.2).search('lighthouse', {}, 10);
    const alone = lighthouseOnly.find((h) => h.documentId === 'both:1');
    expect(both ?? keeper).toBeDefined();
    expect(alone).toBeDefined();
  });

  it('takes the rarest common lexemes when the rare ones cover too little', async () => {
    // Limit 10: lighthouse (4 chunks) covers less than 10, so harbour joins the candidates.
    const hits = await keywordSearch(0.2).search('harbour lighthouse', {}, 10);
    expect(hits).toHaveLength(10);
    expect(ids(hits).some((id) => id.startsWith('common:'))).toBe(true);
    // A query of common words alone still finds chunks.
    expect(await keywordSearch(0.001).search('harbour', {}, 5)).toHaveLength(5);
  });

  it('falls back to every lexeme when a filter leaves too few candidates', async () => {
    const hits = await keywordSearch(0.2).search('harbour lighthouse', { tagGroups: [['tagged']] }, 5);
    expect(ids(hits).sort()).toEqual(['both:0', 'only-common-tagged']);
  });

  it('quotes lexemes with quotes and backslashes, and finds nothing for unknown words', async () => {
    const hits = await keywordSearch(0.2).search("o'neil's back\\slash", {}, 5);
    expect(ids(hits)).toContain('quoted');
    expect(await keywordSearch(0.2).search('zzyzx qwertyuiop', {}, 5)).toEqual([]);
  });

  it('scores are BM25 over the best possible score: within 0..1, rarer lexemes weigh more', async () => {
    const hits = await keywordSearch(0.2).search('harbour keeper', {}, 40);
    for (const h of hits) {
      expect(h.score).toBeGreaterThan(0);
      expect(h.score).toBeLessThanOrEqual(1);
    }
    const byId = new Map(hits.map((h) => [h.documentId, h.score]));
    expect(byId.get('keeper')).toBeGreaterThan(byId.get('common:0') ?? 1);
  });
});
