import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DocumentInput } from '../../src/documents/types.js';
import { dbTargets } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

const TOTAL = 400;
const NEEDLES = 4; // 1% of the chunks
const topics = ['billing', 'shipping', 'returns', 'warranty', 'accounts', 'security', 'pricing', 'support'];

const doc = (i: number): DocumentInput => ({
  id: `doc:${i}`,
  title: `${topics[i % topics.length]} handbook ${i}`,
  content: `Quarterly report ${i} on ${topics[i % topics.length]}: customers asked about ${topics[(i * 7) % topics.length]} and refunds.`,
  documentType: 'other',
  source: null,
  tags: i % (TOTAL / NEEDLES) === 0 ? ['needle'] : ['hay'],
  metadata: {},
  expiresAt: null,
});

describe.each(dbTargets())('filtered search does not starve ($name)', (target) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(target);
    const docs = Array.from({ length: TOTAL }, (_, i) => doc(i));
    for (let i = 0; i < docs.length; i += 100) await t.services.documents.upsertMany(docs.slice(i, i + 100));
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it.each(['VECTOR', 'KEYWORD', 'HYBRID'] as const)('%s returns every match of a filter that keeps 1%% of the chunks', async (mode) => {
    const { rows } = await t.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks');
    expect(rows[0]!.n).toBe(TOTAL);
    for (const topK of [NEEDLES, 10]) {
      const hits = await t.services.search.search({ query: 'quarterly report on billing refunds', topK, filter: { tagGroups: [['needle']] }, mode });
      expect(hits).toHaveLength(NEEDLES);
      for (const h of hits) expect(h.document.tags).toEqual(['needle']);
    }
  });
});

describe.each(dbTargets())('expired documents that outrank the rest do not starve a search ($name)', (target) => {
  let t: TestServer;
  const EXPIRED = 40;
  beforeAll(async () => {
    t = await startTestServer(target);
    // The expired documents repeat the query's words, so they rank first; the live ones mention them once.
    const expired = Array.from({ length: EXPIRED }, (_, i) => ({ ...doc(i), id: `old:${i}`, content: `glacier moraine survey ${i}. `.repeat(4) + 'glacier moraine.' }));
    const live = Array.from({ length: 20 }, (_, i) => ({ ...doc(i), id: `live:${i}`, content: `Field notes ${i}: one glacier visited, weather fair, instruments calibrated, moraine unmapped.` }));
    await t.services.documents.upsertMany([...expired, ...live]);
    await t.services.db.query(`UPDATE documents SET expires_at = now() - interval '1 minute' WHERE id LIKE 'old:%'`);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it.each(['VECTOR', 'KEYWORD', 'HYBRID'] as const)('%s still returns topK live documents', async (mode) => {
    for (const topK of [1, 10]) {
      const hits = await t.services.search.search({ query: 'glacier moraine survey', topK, filter: {}, mode });
      expect(hits).toHaveLength(topK);
      for (const h of hits) expect(h.document.id).toMatch(/^live:/);
    }
  });
});
