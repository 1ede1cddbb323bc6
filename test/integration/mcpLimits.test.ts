import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { OpenAIEmbeddingProvider } from '../../src/embeddings/openai/OpenAIEmbeddingProvider.js';
import { dbTargets, edgeTarget } from '../helpers/databases.js';
import { AGENT_TOOLS, READ_TOOLS, WRITE_TOOLS, call, connectHttp, errorOf, ok } from '../helpers/mcp.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

/** An embedding backend that does not exist: the documents lane of enrich_context fails. */
const unreachableEmbedder = () =>
  new OpenAIEmbeddingProvider({
    baseUrl: 'http://127.0.0.1:9/v1',
    model: 'm',
    dimensions: 8,
    maxRetries: 0,
    timeoutMs: 500,
  });

const BURST = 12;

/** A raw MCP request with a chosen Host header (fetch does not allow setting one). */
function postWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const req = http.request(`${url}/mcp`, { method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
  });
}

describe.each([edgeTarget()])('MCP without keys, with a failing lane, over the rate limit ($name)', (db) => {
  let t: TestServer;
  let client: Client;
  beforeAll(async () => {
    // A tiny budget that does not refill during the test: the requests below spend it exactly.
    t = await startTestServer(
      db,
      { CAIRN_RATE_LIMIT_BURST: String(BURST), CAIRN_RATE_LIMIT_PER_SECOND: '0.001' },
      unreachableEmbedder(),
    );
    await t.services.graph.createEntity({ id: 'svc:x', type: 'Service', name: 'Payment Service' });
    client = await connectHttp(t.server.url); // no key: none exists, and this is loopback
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  it('serves every tool to a local client while no key exists, as GraphQL does', async () => {
    expect((await client.listTools()).tools.map((x) => x.name)).toEqual([
      ...AGENT_TOOLS,
      ...READ_TOOLS,
      ...WRITE_TOOLS,
    ]);
  });

  it('refuses a foreign Host header (DNS rebinding) while keys are off', async () => {
    expect(await postWithHost(t.server.url, 'evil.example:80')).toBe(401);
    expect(await postWithHost(t.server.url, 'localhost:4000')).toBe(200);
  });

  it('refuses a cross-site form post (not JSON): a web page cannot make a local browser write while keys are off', async () => {
    const res = await fetch(`${t.server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'create_entity', arguments: { id: 'svc:evil', type: 'Service', name: 'Evil' } },
      }),
    });
    expect(res.status).toBe(415);
    expect(await t.services.graph.getEntities(['svc:evil'])).toEqual([]);
  });

  it('keeps enrich_context degrade-safe: the graph lane answers with a warning when the documents lane fails', async () => {
    const result = await call(client, 'enrich_context', { query: 'payment service status' });
    expect(result.isError).toBeFalsy();
    const e = result.structuredContent as { entities: { id: string }[]; citations: unknown[]; warnings: string[] };
    expect(e.citations).toEqual([]);
    expect(e.entities.map((x) => x.id)).toEqual(['svc:x']);
    expect(e.warnings[0]).toMatch(/documents lane failed/);
    expect(result.content[0]?.text).toMatch(/Warnings: documents lane failed/);
    // search has no second lane: its failure is a tool error with the embedder's code, not a transport error.
    expect(errorOf(await call(client, 'search', { query: 'payment', mode: 'VECTOR' })).code).toBe(
      'EMBEDDING_UNAVAILABLE',
    );
  });

  it('refuses requests over the rate limit with 429 RATE_LIMITED', async () => {
    let refused: unknown;
    for (let i = 0; i < BURST && refused === undefined; i++) {
      await ok(client, 'find_entities', {}).catch((err: unknown) => (refused = err));
    }
    expect(String(refused)).toMatch(/429|RATE_LIMITED/);
    const res = await fetch(`${t.server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await res.json()) as { error: { data: { code: string } } }).error.data.code).toBe('RATE_LIMITED');
  });
});

describe('MCP enrich_context when both lanes fail (pglite)', () => {
  let t: TestServer;
  let client: Client;
  beforeAll(async () => {
    const [pglite] = dbTargets();
    // No embedding backend and no Neo4j on these ports: both lanes fail.
    t = await startTestServer(
      pglite!,
      { CAIRN_NEO4J_URI: 'bolt://127.0.0.1:9', CAIRN_NEO4J_PASSWORD: 'x' },
      unreachableEmbedder(),
    );
    await t.services.db.query(`INSERT INTO entity_names (entity_id, name) VALUES ('svc:x', 'Payment Service')`);
    client = await connectHttp(t.server.url);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  it('is a tool error carrying the cause, not INTERNAL_SERVER_ERROR', async () => {
    const error = errorOf(await call(client, 'enrich_context', { query: 'payment service status' }));
    expect(error.code).toBe('EMBEDDING_UNAVAILABLE');
    expect(error.message).toMatch(/documents lane failed.*graph lane/);
  });
});
