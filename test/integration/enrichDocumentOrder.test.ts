import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import type { DocumentInput } from '../../src/documents/types.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import type { EnrichRequest } from '../../src/enrichment/types.js';
import { silentLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { NO_BACKGROUND_EXTRACTION } from '../helpers/backgroundWork.js';
import { edgeTarget, type ScratchDatabase } from '../helpers/databases.js';

const QUERY = 'How do I rotate the signing keys?';

/** One paragraph per chunk (chunks of at most 120 characters, no overlap). */
function page(id: string, title: string, paragraphs: string[]): DocumentInput {
  return {
    id,
    title,
    content: paragraphs.join('\n\n'),
    documentType: 'other',
    source: 'wiki',
    tags: [],
    metadata: {},
    expiresAt: null,
  };
}

/**
 * The security handbook has three chunks that each match the query moderately ("signing keys"); the operations note
 * has the single best chunk ("rotate the signing keys"); the office guide matches weakly ("keys"). By chunks, the three
 * best are the note's and two of the handbook's: only two pages.
 */
const PAGES: DocumentInput[] = [
  page('doc:handbook', 'Security handbook', [
    'Signing keys are kept in the vault; only the platform team reads them.',
    'Every service loads its signing keys from the vault when it starts.',
    'Audits list which signing keys each release was signed with.',
  ]),
  page('doc:note', 'Operations note', [
    'To rotate the signing keys, rotate them in the vault, then rotate each service.',
    'Deploys happen on weekdays between nine and five, never on holidays.',
  ]),
  page('doc:office', 'Office guide', [
    'Door keys for the office are at the front desk.',
    'Lunch is served in the canteen at noon.',
  ]),
  page('doc:garden', 'Garden club', ['The garden club meets on the first Monday of the month.']),
  page('doc:choir', 'Choir practice', ['Choir practice moves to the large hall in winter.']),
];

function request(topK: number, graph: boolean): EnrichRequest {
  return {
    query: QUERY,
    topK,
    maxEntities: graph ? 5 : 0,
    graphDepth: 1,
    maxChars: 6000,
    filter: {},
    mode: undefined,
    graphShare: graph ? 0.3 : 0,
  };
}

describe('enrichContext ranks documents the way grouped search does', () => {
  let scratch: ScratchDatabase;
  let s: Services;

  beforeAll(async () => {
    // The ranking rule does not depend on the store: one database.
    scratch = await edgeTarget().createDatabase();
    s = await createServices(
      loadConfig({
        ...NO_BACKGROUND_EXTRACTION,
        ...scratch.env,
        CAIRN_CHUNK_SIZE: '120',
        CAIRN_CHUNK_OVERLAP: '0',
        CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
      }),
      silentLogger(),
      { embedder: new HashingEmbeddingProvider({ dimensions: 256 }), importQueue: false },
    );
    await s.documents.upsertMany(PAGES);
  });
  afterAll(async () => {
    await s?.close();
    await scratch?.drop();
  });

  const grouped = async (topK: number) =>
    (await s.search.hits({ query: QUERY, topK, filter: {}, groupByDocument: true })).map((h) => h.document.id);

  it('is a corpus where one page holds several of the best chunks and another the single best one', async () => {
    const chunks = await s.search.hits({ query: QUERY, topK: 3, filter: {} });
    expect(chunks.map((h) => h.document.id)).toEqual(['doc:note', 'doc:handbook', 'doc:handbook']);
    expect(await grouped(3)).toEqual(['doc:note', 'doc:handbook', 'doc:office']);
  });

  it.each([1, 2, 3, 4])('gives the documents of grouped search, in its order (topK %i)', async (topK) => {
    const expected = await grouped(topK);
    for (const graph of [false, true]) {
      const e = await s.enricher.enrich(request(topK, graph));
      expect(e.warnings).toEqual([]);
      // The relevance floor may leave out the weak office guide, and weaker hits may follow to fill the budget: the
      // strong pages lead in grouped search's order, and the grouped pages present keep that order.
      const ids = e.documents.map((d) => d.id);
      const strong = expected.slice(0, Math.min(topK, 2));
      expect(ids.slice(0, strong.length)).toEqual(strong);
      expect(ids.filter((id) => expected.includes(id))).toEqual(expected.filter((id) => ids.includes(id)));
      expect(e.citations.map((c) => c.documentId)).toEqual(ids);
    }
  });

  it("leads with each page's best chunk and still carries the best chunks of a page", async () => {
    const e = await s.enricher.enrich(request(3, false));
    const lane = e.chunks.filter((c) => c.lane === 'DOCUMENTS');
    expect([...new Set(lane.map((c) => c.hit.document.id))].slice(0, 2)).toEqual(['doc:note', 'doc:handbook']);
    const best = await s.search.hits({ query: QUERY, topK: 3, filter: {} });
    const laneChunks = new Set(lane.map((c) => c.hit.chunk.id));
    for (const h of best) expect(laneChunks.has(h.chunk.id)).toBe(true);
    // The handbook's two chunks share one citation, and the context quotes both.
    for (const h of best) expect(e.context).toContain(h.chunk.content);
  });
});
