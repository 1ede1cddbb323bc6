import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { dbTargets } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

/** The hashing embedder, holding its second call until released (documents are embedded a batch at a time). */
class SecondCallGate extends HashingEmbeddingProvider {
  private calls = 0;
  private release!: () => void;
  private readonly released = new Promise<void>((resolve) => (this.release = resolve));
  /** Resolves once the second call has started, that is once the first batch is written. */
  readonly reached: Promise<void>;
  private arrive!: () => void;

  constructor() {
    super({ dimensions: 256 });
    this.reached = new Promise((resolve) => (this.arrive = resolve));
  }

  /** Lets the held call finish. */
  open(): void {
    this.release();
  }

  override async embed(texts: string[]): Promise<Float32Array[]> {
    if (++this.calls === 2) {
      this.arrive();
      await this.released;
    }
    return super.embed(texts);
  }
}

/** An inline spec with `n` operations: the overview and n documents, written in batches of 25. */
function specWith(n: number): string {
  const paths = Object.fromEntries(
    Array.from({ length: n }, (_, i) => [
      `/things/${i}`,
      { get: { operationId: `getThing${i}`, summary: `Thing number ${i}`, responses: { 200: { description: 'ok' } } } },
    ]),
  );
  return JSON.stringify({ openapi: '3.0.3', info: { title: 'Many things', version: '1' }, paths });
}

// An import stopped mid-item lists the documents it had already written (they exist and stay searchable), so a
// caller can see what an interrupted job left before resuming it.
describe('an import interrupted mid-item (pglite)', () => {
  let t: TestServer;
  const gate = new SecondCallGate();
  beforeAll(async () => {
    t = await startTestServer(
      dbTargets().find((d) => d.name === 'pglite')!,
      {},
      gate,
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists the documents its finished batches wrote, exactly those stored', async () => {
    const submitted = await t.gql<{ importOpenApi: { job: { id: string } } }>(
      'mutation($input: ImportOpenApiInput!) { importOpenApi(input: $input) { job { id } } }',
      { input: { content: specWith(60), async: true } },
    );
    expect(submitted.errors).toBeUndefined();
    const id = submitted.data!.importOpenApi.job.id;
    await gate.reached;
    // Stopping the runner aborts the job after the batch in flight; the held embedding then lets that batch finish.
    const stopped = t.services.imports.stop();
    gate.open();
    await stopped;

    const JOB = 'query($id: ID!) { importJob(id: $id) { status documents { id } } }';
    const interrupted = await t.gql<{ importJob: { status: string; documents: { id: string }[] } }>(JOB, { id });
    expect(interrupted.data!.importJob.status).toBe('INTERRUPTED');
    const listed = interrupted.data!.importJob.documents.map((d) => d.id);
    expect(listed.length).toBeGreaterThanOrEqual(25);
    expect(listed.length).toBeLessThan(61);
    const stored = await t.services.db.query<{ id: string }>(
      "SELECT id FROM documents WHERE id LIKE 'openapi:many-things%' ORDER BY id",
    );
    expect([...listed].sort()).toEqual(stored.rows.map((r) => r.id));
  });
});
