import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dbTargets } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

/** A spec with `n` operations, each with a paragraph of text. */
function spec(n: number): string {
  const words = ['ledger', 'refund', 'order', 'payout', 'invoice', 'balance'];
  const paths = Object.fromEntries(
    Array.from({ length: n }, (_, i) => [
      `/items${i}/{id}`,
      {
        get: {
          operationId: `item${i}`,
          summary: `Item ${i}`,
          description: Array.from({ length: 120 }, (_, j) => words[(i + j) % words.length]).join(' '),
          responses: { '200': { description: 'ok' } },
        },
      },
    ]),
  );
  return JSON.stringify({ openapi: '3.0.3', info: { title: `Fairness API`, version: '1' }, paths });
}

describe('the embedded database shares the event loop', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(
      dbTargets().find((d) => d.name === 'pglite')!,
      { CAIRN_RATE_LIMIT_PER_SECOND: '0' },
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keeps answering HTTP requests while an import job writes thousands of statements', async () => {
    const started = await t.gql<{ importOpenApi: { job: { id: string } } }>(
      'mutation($c: String!) { importOpenApi(input: { content: $c, async: true }) { job { id } } }',
      { c: spec(400) },
    );
    expect(started.errors).toBeUndefined();
    const id = started.data!.importOpenApi.job.id;
    // Before: PGlite answers through settled promises, so the job's statements never left the microtask queue and
    // no request (health checks included) was served until the job had finished.
    let servedWhileRunning = 0;
    for (;;) {
      expect((await fetch(`${t.server.url}/healthz`)).status).toBe(200);
      const job = await t.gql<{ importJob: { status: string } }>('query($id: ID!) { importJob(id: $id) { status } }', {
        id,
      });
      if (job.data!.importJob.status !== 'RUNNING' && job.data!.importJob.status !== 'QUEUED') {
        expect(job.data!.importJob.status).toBe('SUCCEEDED');
        break;
      }
      servedWhileRunning++;
    }
    expect(servedWhileRunning).toBeGreaterThan(1);
  });
});
