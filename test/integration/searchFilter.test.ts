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

  it.each(['VECTOR', 'KEYWORD', 'HYBRID'] as const)(
    '%s returns every match of a filter that keeps 1%% of the chunks',
    async (mode) => {
      const { rows } = await t.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks');
      expect(rows[0]!.n).toBe(TOTAL);
      for (const topK of [NEEDLES, 10]) {
        const hits = await t.services.search.hits({
          query: 'quarterly report on billing refunds',
          topK,
          filter: { tagGroups: [['needle']] },
          mode,
        });
        expect(hits).toHaveLength(NEEDLES);
        for (const h of hits) expect(h.document.tags).toEqual(['needle']);
      }
    },
  );
});

describe.each(dbTargets())('expired documents that outrank the rest do not starve a search ($name)', (target) => {
  let t: TestServer;
  const EXPIRED = 40;
  beforeAll(async () => {
    t = await startTestServer(target);
    // The expired documents repeat the query's words, so they rank first; the live ones mention them once.
    const expired = Array.from({ length: EXPIRED }, (_, i) => ({
      ...doc(i),
      id: `old:${i}`,
      content: `glacier moraine survey ${i}. `.repeat(4) + 'glacier moraine.',
    }));
    const live = Array.from({ length: 20 }, (_, i) => ({
      ...doc(i),
      id: `live:${i}`,
      content: `Field notes ${i}: one glacier visited, weather fair, instruments calibrated, moraine unmapped.`,
    }));
    await t.services.documents.upsertMany([...expired, ...live]);
    await t.services.db.query(`UPDATE documents SET expires_at = now() - interval '1 minute' WHERE id LIKE 'old:%'`);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it.each(['VECTOR', 'KEYWORD', 'HYBRID'] as const)('%s still returns topK live documents', async (mode) => {
    for (const topK of [1, 10]) {
      const hits = await t.services.search.hits({ query: 'glacier moraine survey', topK, filter: {}, mode });
      expect(hits).toHaveLength(topK);
      for (const h of hits) expect(h.document.id).toMatch(/^live:/);
    }
  });
});

describe.each(dbTargets())("chunks follow their document's expiry ($name)", (target) => {
  let t: TestServer;
  const later = new Date(Date.now() + 3_600_000);
  /** Chunks whose copy of the expiry differs from their document's (migration 009 keeps it at zero). */
  const mismatched = async () =>
    (
      await t.services.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.document_expires_at IS DISTINCT FROM d.expires_at',
      )
    ).rows[0]!.n;
  const found = async (mode: 'VECTOR' | 'KEYWORD' | 'HYBRID', filtered: boolean) =>
    (
      await t.services.search.hits({
        query: 'lighthouse keeper logbook',
        topK: 10,
        filter: filtered ? { types: ['other'] } : {},
        mode,
      })
    )
      .map((h) => h.document.id)
      .sort();
  beforeAll(async () => {
    t = await startTestServer(target);
    await t.services.documents.upsertMany([
      { ...doc(1), id: 'keep', content: 'The lighthouse keeper wrote in the logbook every night.' },
      { ...doc(2), id: 'lapse', content: 'A lighthouse keeper logbook from the old station.', expiresAt: later },
    ]);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('copies the expiry onto chunks as they are written and whenever it changes', async () => {
    expect(await mismatched()).toBe(0);
    const { rows } = await t.services.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM chunks WHERE document_expires_at IS NOT NULL',
    );
    expect(rows[0]!.n).toBeGreaterThan(0);
    // Expired by any path (here plain SQL): every mode hides it, with and without a filter.
    await t.services.db.query(`UPDATE documents SET expires_at = now() - interval '1 minute' WHERE id = 'lapse'`);
    expect(await mismatched()).toBe(0);
    for (const mode of ['VECTOR', 'KEYWORD', 'HYBRID'] as const) {
      expect(await found(mode, false)).toEqual(['keep']);
      expect(await found(mode, true)).toEqual(['keep']);
    }
    // Cleared by an upsert that keeps the content (no chunk is rewritten): it is found again.
    await t.services.documents.upsertMany([
      { ...doc(2), id: 'lapse', content: 'A lighthouse keeper logbook from the old station.', expiresAt: null },
    ]);
    expect(await mismatched()).toBe(0);
    for (const mode of ['VECTOR', 'KEYWORD', 'HYBRID'] as const)
      expect(await found(mode, false)).toEqual(['keep', 'lapse']);
    // New content and a new expiry together: the new chunks carry it.
    await t.services.documents.upsertMany([
      { ...doc(2), id: 'lapse', content: 'The lighthouse keeper logbook, second volume.', expiresAt: later },
    ]);
    expect(await mismatched()).toBe(0);
  });
});
