import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { dbTargets } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';
import { eventually } from '../helpers/eventually.js';

// Fault: the Postgres connection of a write dies mid-transaction (pg_terminate_backend from another session, as an
// operator, a failover or a network cut would). Real server only: PGlite has no connections to lose.

const target = dbTargets().find((d) => d.name === 'postgres'); // throws under CI without the server

const UPSERT = `mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { changed } }`;

/** `n` documents of about 8 chunks each, so the write transaction runs long enough to be caught inside. */
const docs = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: `${prefix}:${i}`,
    title: `${prefix} ${i}`,
    content: Array.from(
      { length: 40 },
      (_, s) => `Sentence ${s} of ${prefix} document ${i} about ledgers and settlement runs.`,
    ).join(' '),
  }));

(target ? describe : describe.skip)('fault: Postgres connection terminated mid-transaction', () => {
  let t: TestServer;
  let admin: pg.Client;
  let dbName: string;

  const counts = async () => {
    const { rows } = await admin.query<{ documents: number; chunks: number; orphans: number }>(
      `SELECT (SELECT count(*)::int FROM documents) AS documents, (SELECT count(*)::int FROM chunks) AS chunks,
              (SELECT count(*)::int FROM documents d WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id)) AS orphans`,
    );
    return rows[0]!;
  };

  beforeAll(async () => {
    t = await startTestServer(target!);
    const url = new URL(t.config.databaseUrl!);
    dbName = url.pathname.slice(1);
    admin = new pg.Client({ connectionString: url.toString(), application_name: 'cairn-fault-test' });
    await admin.connect();
  }, 60_000);
  afterAll(async () => {
    await admin?.end();
    await t?.close();
  }, 60_000);

  it('fails the mutation with DATABASE_UNAVAILABLE, writes nothing of it, and keeps serving', async () => {
    const seeded = await t.gql(UPSERT, { input: docs('seed', 20) });
    expect(seeded.errors).toBeUndefined();
    const before = await counts();
    expect(before).toMatchObject({ documents: 20, orphans: 0 });

    const write = t.gql<{ upsertDocuments: unknown[] }>(UPSERT, { input: docs('big', 1000) });
    // The write's backend has an xid once its transaction has inserted something: terminate it then, mid-transaction.
    // Only client backends count (a parallel worker shares its leader's xid and may exit before it is terminated),
    // and a backend gone before the signal is looked for again.
    await eventually(
      async () => {
        const { rows } = await admin.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'
              AND backend_xid IS NOT NULL AND xact_start IS NOT NULL`,
          [dbName],
        );
        const pid = rows[0]?.pid;
        if (pid === undefined) return undefined;
        const { rows: killed } = await admin.query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [pid]);
        return killed[0]?.ok ? pid : undefined;
      },
      { every: 5, what: 'a write transaction to terminate' },
    );

    const started = Date.now();
    const res = await write;
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(res.data ?? null).toBeNull();
    expect(res.errors?.[0]?.extensions?.code).toBe('DATABASE_UNAVAILABLE');
    expect(JSON.stringify(res)).not.toMatch(/(\n|\\n)\s+at |stacktrace/);

    // All or nothing: the rolled-back batch left no document, chunk or orphan behind.
    expect(await counts()).toEqual(before);
    const stats = await t.gql<{ knowledgeStats: { documentCount: number } }>(`{ knowledgeStats { documentCount } }`);
    expect(stats.data!.knowledgeStats.documentCount).toBe(20);
    const retry = await t.gql<{ upsertDocuments: { changed: boolean }[] }>(UPSERT, { input: docs('big', 50) });
    expect(retry.errors).toBeUndefined();
    expect(retry.data!.upsertDocuments).toHaveLength(50);
    expect(await counts()).toMatchObject({ documents: 70, orphans: 0 });
  }, 120_000);
});
