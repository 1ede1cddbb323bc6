import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { NO_BACKGROUND_EXTRACTION } from '../helpers/backgroundWork.js';
import { edgeTarget, type ScratchDatabase } from '../helpers/databases.js';

/** Bounds the services apply themselves, so a direct call (the CLI, importers, benchmarks) meets the API's rules. */
describe('services bound what they are asked for, whoever calls them', () => {
  let scratch: ScratchDatabase;
  let s: Services;

  beforeAll(async () => {
    scratch = await edgeTarget().createDatabase();
    s = await createServices(
      loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch.env, CAIRN_RAG_MAX_TOP_K: '4' }),
      silentLogger(),
      { embedder: new HashingEmbeddingProvider({ dimensions: 64 }), importQueue: false },
    );
    const docs = Array.from({ length: 103 }, (_, i) => ({
      id: `doc:${i}`,
      title: `Note ${i}`,
      content: `Rotating the signing keys, note number ${i}.`,
      documentType: 'other',
    }));
    await s.documents.upsertMany(docs);
  });
  afterAll(async () => {
    await s?.close();
    await scratch?.drop();
  });

  const refused = (work: Promise<unknown>, message: string) =>
    expect(work).rejects.toMatchObject({ code: 'BAD_USER_INPUT', message: expect.stringContaining(message) });

  it('enrich checks every bound of its input', async () => {
    await refused(s.enricher.enrich({ query: 'keys', topK: 5000 }), 'input.topK: must be an integer from 1 to 1000');
    await refused(s.enricher.enrich({ query: 'keys', maxChars: 10 }), 'input.maxChars: must be an integer from 200');
    await refused(
      s.enricher.enrich({ query: 'keys', graphDepth: 4 }),
      'input.graphDepth: must be an integer from 1 to 3',
    );
    await refused(s.enricher.enrich({ query: 'keys', graphShare: 2 }), 'input.graphShare: must be between 0 and 1');
    await refused(s.enricher.enrich({ query: '   ' }), 'input.query: must not be empty');
    const types = Array.from({ length: 101 }, () => 'other' as const);
    await refused(s.enricher.enrich({ query: 'keys', filter: { types } }), 'input.filter.types: give at most 100');
    const context = await s.enricher.enrich({ query: 'signing keys', topK: 4, maxEntities: 0 });
    expect(context.citations.length).toBeGreaterThan(0);
  });

  it('search checks its filter as enrich does', async () => {
    await refused(
      s.search.hits({ query: 'keys', filter: { text: 'x'.repeat(1001) } }),
      'input.filter.text: must be at most 1000 characters',
    );
  });

  it('the documents listing caps first at 100 and refuses a negative first or a foreign cursor', async () => {
    const page = await s.documents.list({}, { first: 1000 });
    expect(page.rows).toHaveLength(100);
    expect(page.hasNextPage).toBe(true);
    expect((await s.documents.list({})).rows).toHaveLength(20);
    const rest = await s.documents.list({}, { first: 100, after: page.rows.at(-1)?.cursor });
    expect(rest.rows).toHaveLength(3);
    await refused(s.documents.list({}, { first: -1 }), 'first: must be a non-negative integer');
    await refused(s.documents.list({}, { after: 'not-a-cursor' }), 'after: not a cursor returned by this API');
  });

  it('import jobs and entities are paged by the same rule', async () => {
    await refused(s.imports.listJobs({ first: -1 }), 'first: must be a non-negative integer');
    await refused(s.imports.listJobs({ after: 'nope' }), 'after: not a cursor returned by this API');
    await s.graph.upsertGraph(
      Array.from({ length: 102 }, (_, i) => ({ id: `e:${i}`, type: 'Thing', name: `Thing ${i}` })),
      [],
    );
    const entities = await s.graph.findEntities({}, { first: 500 });
    expect(entities.edges).toHaveLength(100);
    expect(entities.totalCount).toBe(102);
    const types = Array.from({ length: 101 }, () => 'Thing');
    await refused(s.graph.findEntities({ types }, {}), 'filter.types: give at most 100 types');
  });
});
