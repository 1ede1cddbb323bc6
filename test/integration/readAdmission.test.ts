import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EmbeddingProvider } from '../../src/embeddings/EmbeddingProvider.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { dbTargets } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { call, connectHttp, errorOf } from '../helpers/mcp.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

/** Query texts that start with this wait in the embedder until `release`; documents are embedded at once. */
const HELD = 'held question';

/** The hashing embedder, holding the embeddings of held queries open until the test releases them. */
class GatedEmbedder implements EmbeddingProvider {
  private readonly inner = new HashingEmbeddingProvider({ dimensions: 64 });
  readonly id = this.inner.id;
  readonly info = this.inner.info;
  readonly dimensions = this.inner.dimensions;
  held = 0;
  private opened: () => void = () => undefined;
  private readonly gate = new Promise<void>((resolve) => (this.opened = resolve));

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.some((t) => t.startsWith(HELD))) {
      this.held++;
      await this.gate;
    }
    return this.inner.embed(texts);
  }

  ready(): Promise<void> {
    return this.inner.ready();
  }

  release(): void {
    this.opened();
  }
}

const ENRICH = 'query($q: String!) { enrichContext(input: { query: $q, maxEntities: 0 }) { context } }';

/** A spec of `n` operations, imported as a job while the reads are held. */
function spec(n: number): string {
  const paths = Object.fromEntries(
    Array.from({ length: n }, (_, i) => [
      `/ledgers${i}`,
      {
        get: { operationId: `ledger${i}`, summary: `Ledger ${i} balance`, responses: { '200': { description: 'ok' } } },
      },
    ]),
  );
  return JSON.stringify({ openapi: '3.0.3', info: { title: 'Ledger API', version: '1' }, paths });
}

describe.each(dbTargets())('read admission under a burst ($name)', (target) => {
  const embedder = new GatedEmbedder();
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(
      target,
      // The lane time limit would drop a held lane and end its read: the test, not a timer, ends them.
      {
        CAIRN_RATE_LIMIT_PER_SECOND: '0',
        CAIRN_READ_CONCURRENCY: '2',
        CAIRN_READ_QUEUE: '2',
        CAIRN_ENRICH_LANE_TIMEOUT_MS: '3600000',
      },
      embedder,
    );
    const created = await t.gql(
      'mutation { createDocument(input: { id: "doc:ledger", title: "Ledger", content: "The ledger balances every night." }) { chunkCount } }',
    );
    expect(created.errors).toBeUndefined();
  });
  afterAll(async () => {
    embedder.release();
    await t?.close();
  });

  /** POSTs enrichContext for a held question; resolves with the status, Retry-After and body once answered. */
  async function enrich(n: number) {
    const res = await fetch(`${t.server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: ENRICH, variables: { q: `${HELD} ${n} about the ledger` } }),
    });
    const body = (await res.json()) as { data?: unknown; errors?: { extensions?: Record<string, unknown> }[] };
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body };
  }

  it('refuses reads past the queue with 429, while writes and an import job complete; admits reads after', async () => {
    // Two reads run (held in the embedder), two wait, two are refused at once: the counts, not the order, are fixed.
    const answered: Awaited<ReturnType<typeof enrich>>[] = [];
    const burst = Array.from({ length: 6 }, (_, i) => enrich(i).then((r) => (answered.push(r), r)));
    await eventually(() => answered.length === 2 && embedder.held === 2 && t.services.reads.stats.waiting === 2, {
      what: 'two reads running, two waiting and two refused',
    });
    for (const refused of answered) {
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBe('1');
      expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 1 });
    }

    // MCP's search tool is refused the same way, as a tool error.
    const client = await connectHttp(t.server.url);
    try {
      const error = errorOf(await call(client, 'search', { query: `${HELD} over MCP` }));
      expect(error).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 1 });
    } finally {
      await client.close();
    }

    // Writes and jobs are not held by the read queue.
    const written = await t.gql(
      'mutation { createDocument(input: { id: "doc:payout", title: "Payouts", content: "Payouts settle daily." }) { chunkCount } }',
    );
    expect(written.errors).toBeUndefined();
    const job = await t.gql<{ importOpenApi: { job: { id: string } } }>(
      'mutation($c: String!) { importOpenApi(input: { content: $c, async: true }) { job { id } } }',
      { c: spec(30) },
    );
    expect(job.errors).toBeUndefined();
    const id = job.data!.importOpenApi.job.id;
    const status = await eventually(
      async () => {
        const r = await t.gql<{ importJob: { status: string } }>('query($id: ID!) { importJob(id: $id) { status } }', {
          id,
        });
        const s = r.data!.importJob.status;
        return s !== 'QUEUED' && s !== 'RUNNING' && s;
      },
      { what: 'the import job to finish while the reads are held' },
    );
    expect(status).toBe('SUCCEEDED');
    expect(embedder.held).toBe(2); // the held reads were still running throughout

    const ready = (await (await fetch(`${t.server.url}/readyz`)).json()) as {
      components: Record<string, { detail?: string }>;
    };
    expect(ready.components.reads?.detail).toContain('3 refused');

    embedder.release();
    const results = await Promise.all(burst);
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 429, 429]);
    const after = await enrich(99);
    expect(after.status).toBe(200);
    expect(after.body.errors).toBeUndefined();
  });
});
