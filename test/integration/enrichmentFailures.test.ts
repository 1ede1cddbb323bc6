import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OpenAIEmbeddingProvider } from '../../src/embeddings/openai/OpenAIEmbeddingProvider.js';
import { edgeTarget } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

// enrichContext when its lanes fail (part of enrichment.test.ts, whose runs include Neo4j; these need no graph server).

const ENRICH = `query($input: EnrichContextInput!) { enrichContext(input: $input) { warnings chunks { score } entities { entity { id } } } }`;

type Enriched = { warnings: string[]; chunks: { score: number }[]; entities: { entity: { id: string } }[] };

// Lane failures do not depend on the store: one database (edgeTarget); enrichment.test.ts runs every store.
describe.each([edgeTarget()])('enrichContext degrades when a lane fails ($name)', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    // An embedding backend that does not exist: the documents lane fails, the graph lane still answers.
    const embedder = new OpenAIEmbeddingProvider({
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'm',
      dimensions: 8,
      maxRetries: 0,
      timeoutMs: 500,
    });
    t = await startTestServer(db, {}, embedder);
    await t.gql(`mutation { createEntity(input: { id: "svc:x", type: "Service", name: "Payment Service" }) { id } }`);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('returns the graph lane with a warning', async () => {
    const res = await t.gql<{ enrichContext: Enriched }>(ENRICH, { input: { query: 'payment service status' } });
    expect(res.errors).toBeUndefined();
    const e = res.data!.enrichContext;
    expect(e.chunks).toEqual([]);
    expect(e.entities.map((x) => x.entity.id)).toEqual(['svc:x']);
    expect(e.warnings[0]).toMatch(/documents lane failed/);
  });
});

describe.each([edgeTarget()])('enrichContext when both lanes fail ($name)', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    // No embedding backend and no Neo4j on these ports: both lanes fail, and the error keeps the documents lane's cause.
    const embedder = new OpenAIEmbeddingProvider({
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'm',
      dimensions: 8,
      maxRetries: 0,
      timeoutMs: 500,
    });
    t = await startTestServer(db, { CAIRN_NEO4J_URI: 'bolt://127.0.0.1:9', CAIRN_NEO4J_PASSWORD: 'x' }, embedder);
    // The name index lives in Postgres, so the query finds a seed, whose neighbours must then come from the absent Neo4j.
    await t.services.db.query(`INSERT INTO entity_names (entity_id, name) VALUES ('svc:x', 'Payment Service')`);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('fails with the cause, not INTERNAL_SERVER_ERROR', async () => {
    const res = await t.gql(ENRICH, { input: { query: 'payment service status' } });
    expect(res.errors?.[0]?.extensions?.code).toBe('EMBEDDING_UNAVAILABLE');
    expect(res.errors?.[0]?.message).toMatch(/documents lane failed.*graph lane/);
  });
});
