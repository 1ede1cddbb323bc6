import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startCliServer } from '../helpers/cli.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';
import { startFaultyEmbeddingServer, type FaultyEmbeddingServer } from '../helpers/faultyEmbeddingServer.js';
import { gqlAt, stopChild } from '../helpers/remoteServer.js';

// Fault: the OpenAI-compatible embedding backend answers 500, or never answers. `cairn serve` runs as configured in
// production (CAIRN_EMBEDDING_PROVIDER=openai against a real HTTP server on 127.0.0.1), with a short timeout and few
// retries. Embedding happens before the write transaction, so a failed embed must write nothing at all.

const MAX_RETRIES = 2;
const CREATE = `mutation($input: CreateDocumentInput!) { createDocument(input: $input) { document { id } chunkCount } }`;
const UPSERT = `mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { changed } }`;

describe.each(dbTargets().map((d) => [d.name, d] as const))('fault: embedding backend down (%s)', (_name, target) => {
  let embedder: FaultyEmbeddingServer;
  let database: ScratchDatabase;
  let child: ChildProcess;
  let url: string;
  const documentCount = async () =>
    (await gqlAt<{ knowledgeStats: { documentCount: number } }>(url, `{ knowledgeStats { documentCount } }`)).data!
      .knowledgeStats.documentCount;

  beforeAll(async () => {
    embedder = await startFaultyEmbeddingServer(16);
    database = await target.createDatabase();
    ({ child, url } = await startCliServer({
      ...database.env,
      CAIRN_EMBEDDING_PROVIDER: 'openai',
      CAIRN_EMBEDDING_BASE_URL: embedder.baseUrl,
      CAIRN_EMBEDDING_MODEL: 'fault-test-embed',
      CAIRN_EMBEDDING_DIMENSIONS: '16',
      CAIRN_EMBEDDING_TIMEOUT_MS: '300',
      CAIRN_EMBEDDING_MAX_RETRIES: String(MAX_RETRIES),
      CAIRN_RATE_LIMIT_PER_SECOND: '0',
    }));
    embedder.mode = 'ok';
    const first = await gqlAt(url, CREATE, {
      input: { id: 'doc:ok', title: 'Works', content: 'Written while the embedder works.' },
    });
    expect(first.errors).toBeUndefined(); // the configuration reaches the backend: the failures below are the faults
  }, 90_000);
  afterAll(async () => {
    if (child) await stopChild(child);
    await embedder?.close();
    await database?.drop();
  }, 60_000);

  it.each(['error500', 'hang'] as const)(
    '%s: createDocument and upsertDocuments fail with EMBEDDING_UNAVAILABLE and write nothing',
    async (mode) => {
      const count = await documentCount();
      embedder.mode = mode;
      const before = embedder.requests;
      const started = Date.now();
      const res = await gqlAt(url, CREATE, {
        input: { id: `doc:${mode}`, title: 'Lost', content: `Never stored (${mode}).` },
      });
      expect(Date.now() - started).toBeLessThan(15_000); // a timeout, not a hang
      expect(res.status).toBe(200);
      expect(res.data ?? null).toBeNull();
      expect(res.errors?.[0]?.extensions?.code).toBe('EMBEDDING_UNAVAILABLE');
      expect(res.errors?.[0]?.message).toContain(embedder.baseUrl);
      expect(JSON.stringify(res)).not.toMatch(/(\n|\\n)\s+at |stacktrace/);
      expect(embedder.requests - before).toBe(1 + MAX_RETRIES); // it did retry, then gave up

      const batch = await gqlAt(url, UPSERT, {
        input: [
          { id: `doc:${mode}:a`, title: 'A', content: 'First of a batch.' },
          { id: `doc:${mode}:b`, title: 'B', content: 'Second.' },
        ],
      });
      expect(batch.errors?.[0]?.extensions?.code).toBe('EMBEDDING_UNAVAILABLE');

      const gone = await gqlAt<{ document: unknown }>(url, `query($id: ID!) { document(id: $id) { id } }`, {
        id: `doc:${mode}`,
      });
      expect(gone.data!.document).toBeNull();
      expect(await documentCount()).toBe(count);
      expect((await fetch(`${url}/readyz`)).status).toBe(503);

      // The backend recovers: the same write now succeeds, without restarting Cairn.
      embedder.mode = 'ok';
      const again = await gqlAt<{ createDocument: { chunkCount: number } }>(url, CREATE, {
        input: { id: `doc:${mode}`, title: 'Back', content: 'Stored once it is back.' },
      });
      expect(again.errors).toBeUndefined();
      expect(await documentCount()).toBe(count + 1);
    },
    60_000,
  );
});
