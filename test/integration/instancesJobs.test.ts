import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { startInstances, type CairnInstances } from '../helpers/cairnInstances.js';
import { createScratchDatabase, type ScratchDatabase } from '../helpers/databases.js';
import { gqlAt } from '../helpers/remoteServer.js';
import { ensurePostgresTemplate } from '../helpers/templates.js';
import { eventually } from '../helpers/eventually.js';

// Two `cairn serve` processes on one Postgres database: the import queue, its leases and the spec-id lock must make
// them behave as one instance. The graph stays in Postgres: nothing here is about Neo4j (multiInstance runs two
// instances on one Neo4j), so the suite shares no server state and runs in Jest's parallel project.

const serverUrl = process.env.CAIRN_TEST_DATABASE_URL;
// Short enough for a quick takeover, long enough that a busy machine's late renewal does not lose a lease: renewals
// come every third of it, so one would have to be over 5 s late (4 s leases were lost at load 15 on two cores).
const LEASE_MS = 8000;
const IMPORTS = 40;
const IMPORT = `mutation($input: ImportOpenApiInput!) { importOpenApi(input: $input) { job { id status } documents { id } } }`;

/** An OpenAPI 3 spec with `ops` operations. */
function spec(title: string, ops: number, opts: { host?: string; prefix?: string } = {}): string {
  const paths = Object.fromEntries(
    Array.from({ length: ops }, (_, i) => [
      `/${opts.prefix ?? 'things'}/${i}`,
      {
        get: {
          operationId: `get${opts.prefix ?? 'Thing'}${i}`,
          summary: `Reads ${opts.prefix ?? 'thing'} number ${i}`,
          description: `Returns item ${i} with its fields and links.`,
          responses: { 200: { description: 'ok' } },
        },
      },
    ]),
  );
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title, version: '1' },
    servers: [{ url: `https://${opts.host ?? 'api.example.com'}` }],
    paths,
  });
}

/** What an import wrote, comparable across databases: documents with their chunks. */
async function storedDocuments(url: string, prefix: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const docs = await client.query(
      `SELECT d.id, d.title, d.content, d.document_type, d.source, d.tags, d.metadata,
              (SELECT json_agg(json_build_array(c.ordinal, c.content, c.content_hash, c.embedding::text) ORDER BY c.ordinal) FROM chunks c WHERE c.document_id = d.id) AS chunks
         FROM documents d WHERE d.id LIKE $1 ORDER BY d.id`,
      [`${prefix}%`],
    );
    return docs.rows;
  } finally {
    await client.end();
  }
}

const describeServer = serverUrl ? describe : describe.skip;

describeServer('two Cairn instances on one database', () => {
  let database: ScratchDatabase & { url: string };
  let cluster: CairnInstances;
  let sql: pg.Client;
  beforeAll(async () => {
    database = await createScratchDatabase(serverUrl as string, await ensurePostgresTemplate(serverUrl as string));
    cluster = await startInstances({
      count: 2,
      databaseUrl: database.url,
      env: {
        CAIRN_IMPORT_JOB_LEASE_MS: String(LEASE_MS),
        CAIRN_IMPORT_JOB_POLL_MS: '200',
        CAIRN_IMPORT_JOB_CONCURRENCY: '4',
      },
    });
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
  }, 120_000);
  afterAll(async () => {
    await sql?.end();
    await cluster?.stop();
    await database?.drop();
  }, 60_000);

  const urls = () => cluster.instances.map((i) => i.url);
  const openJobs = async () =>
    Number((await sql.query(`SELECT count(*) AS n FROM import_jobs WHERE status IN ('QUEUED', 'RUNNING')`)).rows[0].n);
  const untilNoOpenJobs = async (ms: number) => {
    await eventually(async () => (await openJobs()) === 0, { within: ms, what: 'every job finishing' });
  };

  // 40 imports: two rounds of 20 in flight, claimed by eight job runners (four per instance) racing for each.
  it('runs 40 imports submitted alternately to both exactly once each', async () => {
    const [a, b] = urls() as [string, string];
    const ids: string[] = [];
    for (let i = 0; i < IMPORTS; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, (_, k) =>
          gqlAt<{ importOpenApi: { job: { id: string } } }>((i + k) % 2 === 0 ? a : b, IMPORT, {
            input: { content: spec(`Bulk ${i + k}`, 1), specId: `bulk-${i + k}`, async: true },
          }),
        ),
      );
      for (const res of batch) {
        expect(res.errors).toBeUndefined();
        ids.push(res.data!.importOpenApi.job.id);
      }
    }
    await untilNoOpenJobs(180_000);
    const jobs = await sql.query<{ status: string; attempts: number; runner_id: string }>(
      'SELECT status, attempts, runner_id FROM import_jobs WHERE id = ANY($1)',
      [ids],
    );
    expect(jobs.rows).toHaveLength(IMPORTS);
    expect(jobs.rows.filter((j) => j.status !== 'SUCCEEDED' || j.attempts !== 1)).toEqual([]);
    // Both instances ran some of them.
    expect(new Set(jobs.rows.map((j) => j.runner_id)).size).toBe(2);
    const docs = await sql.query<{ id: string }>(`SELECT id FROM documents WHERE id LIKE 'openapi:bulk-%' ORDER BY id`);
    const expected = Array.from({ length: IMPORTS }, (_, i) => [
      `openapi:bulk-${i}`,
      `openapi:bulk-${i}:GET%20/things/0`,
    ])
      .flat()
      .sort();
    expect(docs.rows.map((r) => r.id)).toEqual(expected);
  }, 240_000);

  it('lets one of two imports of specs with the same derived id win; the other gets CONFLICT and writes nothing', async () => {
    const [a, b] = urls() as [string, string];
    const [first, second] = await Promise.all([
      gqlAt<{ importOpenApi: { documents: { id: string }[] } }>(a, IMPORT, {
        input: { content: spec('Shared Name', 120, { host: 'one.example.com', prefix: 'orders' }) },
      }),
      gqlAt<{ importOpenApi: { documents: { id: string }[] } }>(b, IMPORT, {
        input: { content: spec('Shared Name', 120, { host: 'two.example.com', prefix: 'users' }) },
      }),
    ]);
    const results = [first, second];
    const winners = results.filter((r) => r.errors === undefined);
    const losers = results.filter((r) => r.errors !== undefined);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(1);
    expect(losers[0]!.errors![0]!.extensions?.code).toBe('CONFLICT');
    const written = winners[0]!.data!.importOpenApi.documents.map((d) => d.id).sort();
    expect(written).toHaveLength(121);
    const stored = await sql.query<{ id: string; source: string }>(
      `SELECT id FROM documents WHERE id LIKE 'openapi:shared-name%' ORDER BY id`,
    );
    expect(stored.rows.map((r) => r.id)).toEqual(written);
  }, 120_000);

  it('finishes a large import on the other instance when the one running it is killed, as a clean import would', async () => {
    const [a] = cluster.instances as [(typeof cluster.instances)[0]];
    const content = spec('Large Import', 1500);
    // Waiting for its job, instance A runs the import itself; the request dies with it.
    const request = gqlAt(a.url, IMPORT, { input: { content, specId: 'large' } }, 120_000).catch(() => undefined);
    // Killed once most batches are committed: A dropped the vector index for the load at its first batch, and the
    // rest is too small for B's own load to drop (and so rebuild) it.
    const written = async () =>
      Number((await sql.query(`SELECT count(*) AS n FROM documents WHERE id LIKE 'openapi:large%'`)).rows[0].n);
    await eventually(async () => (await written()) >= 900, {
      within: 60_000,
      every: 20,
      what: '900 documents written',
    });
    const job = (
      await sql.query<{ id: string; runner_id: string }>(
        `SELECT id, runner_id FROM import_jobs WHERE request->>'specId' = 'large'`,
      )
    ).rows[0];
    expect(await written()).toBeGreaterThanOrEqual(900);
    await a.kill('SIGKILL');
    await request;
    type JobRow = { status: string; attempts: number; runner_id: string };
    const row = await eventually(
      async () => {
        const r = (await sql.query('SELECT status, attempts, runner_id FROM import_jobs WHERE id = $1', [job!.id]))
          .rows[0] as JobRow | undefined;
        return r?.status === 'SUCCEEDED' ? r : undefined;
      },
      { within: 60_000, what: "the killed instance's job succeeding on the other" },
    );
    expect(row).toMatchObject({ status: 'SUCCEEDED', attempts: 2 });
    expect(row?.runner_id).not.toBe(job!.runner_id);
    // The vector index the killed instance dropped for the load is back.
    expect(
      (await sql.query(`SELECT to_regclass('chunks_embedding_hnsw') IS NOT NULL AS present`)).rows[0].present,
    ).toBe(true);

    // The same spec imported once by a single instance on a fresh database.
    const clean = await createScratchDatabase(serverUrl as string, await ensurePostgresTemplate(serverUrl as string));
    const single = await startInstances({ count: 1, databaseUrl: clean.url });
    try {
      const res = await gqlAt(single.instances[0]!.url, IMPORT, { input: { content, specId: 'large' } }, 120_000);
      expect(res.errors).toBeUndefined();
      const expected = await storedDocuments(clean.url, 'openapi:large');
      expect(expected).toHaveLength(1501);
      expect(await storedDocuments(database.url, 'openapi:large')).toEqual(expected);
    } finally {
      await single.stop();
      await clean.drop();
    }
  }, 240_000);
});
