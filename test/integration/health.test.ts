import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OpenAIEmbeddingProvider } from '../../src/embeddings/openai/OpenAIEmbeddingProvider.js';
import { edgeTarget } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

/** A port on 127.0.0.1 with nothing listening. */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

// Health and failure paths do not depend on the store: one database (edgeTarget).
describe.each([edgeTarget()])('health and failure paths ($name)', (target) => {
  describe('with a healthy embedder', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer(target);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('answers /healthz and /readyz', async () => {
      const live = await fetch(`${t.server.url}/healthz`);
      expect(live.status).toBe(200);
      const ready = await fetch(`${t.server.url}/readyz`);
      expect(ready.status).toBe(200);
      const body = (await ready.json()) as { ready: boolean; components: Record<string, { ok: boolean }> };
      expect(body.ready).toBe(true);
      expect(Object.keys(body.components)).toEqual(expect.arrayContaining(['database', 'migrations', 'embedder']));
    });

    it('echoes a request id', async () => {
      const res = await fetch(`${t.server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'trace-123' },
        body: JSON.stringify({ query: '{ knowledgeStats { documentCount } }' }),
      });
      expect(res.headers.get('x-request-id')).toBe('trace-123');
      const other = await fetch(`${t.server.url}/healthz`);
      expect(other.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('rejects malformed GraphQL with a client error code', async () => {
      const res = await t.gql('{ documents(first: "x") { totalCount } }');
      expect(res.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
      const parse = await t.gql('{ documents( ');
      expect(parse.errors?.[0]?.extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
    });
  });

  describe('with an unreachable embedding backend', () => {
    let t: TestServer;
    let url: string;
    beforeAll(async () => {
      url = `http://127.0.0.1:${await closedPort()}/v1`;
      const embedder = new OpenAIEmbeddingProvider({
        baseUrl: url,
        model: 'nomic-embed-text',
        dimensions: 32,
        maxRetries: 1,
        timeoutMs: 2000,
      });
      t = await startTestServer(target, {}, embedder);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('fails writes with EMBEDDING_UNAVAILABLE naming URL and model, and writes nothing', async () => {
      const res = await t.gql(
        `mutation { createDocument(input: { id: "x:1", title: "T", content: "some text" }) { chunkCount } }`,
      );
      const err = res.errors?.[0];
      expect(err?.extensions?.code).toBe('EMBEDDING_UNAVAILABLE');
      expect(err?.message).toContain(url);
      expect(err?.message).toContain('nomic-embed-text');
      const { rows } = await t.services.db.query<{ n: number }>(
        'SELECT (SELECT count(*) FROM documents)::int + (SELECT count(*) FROM chunks)::int AS n',
      );
      expect(rows[0]!.n).toBe(0);
      const search = await t.gql(`{ search(input: { query: "text" }) { score } }`);
      expect(search.errors?.[0]?.extensions?.code).toBe('EMBEDDING_UNAVAILABLE');
    });

    it('reports 503 on /readyz naming the embedder and a fix', async () => {
      const res = await fetch(`${t.server.url}/readyz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as {
        ready: boolean;
        components: Record<string, { ok: boolean; detail?: string; fix?: string }>;
      };
      expect(body.ready).toBe(false);
      expect(body.components.database?.ok).toBe(true);
      expect(body.components.embedder?.ok).toBe(false);
      expect(body.components.embedder?.detail).toContain(url);
      expect(body.components.embedder?.fix).toBeTruthy();
    });
  });
});
