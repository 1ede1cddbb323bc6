import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { startInstances, type CairnInstance, type CairnInstances } from '../helpers/cairnInstances.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';
import { neo4jTestSettings, wipeNeo4j } from '../helpers/graphStores.js';
import { gqlAt } from '../helpers/remoteServer.js';
import { eventually } from '../helpers/eventually.js';

// Two `cairn serve` processes on one real Postgres database and the real Neo4j behave like one: background work runs
// once per due item, names written through one are seen by the other's next document write, and when the leader is
// killed the other takes its work over.

const server = dbTargets().find((t) => t.name === 'postgres');
const neo4j = neo4jTestSettings();
const LEADER_RETRY_MS = 200;
const RATE_BURST = 150;

/** The JSON log lines of an instance with this message. */
function logged(instance: CairnInstance, msg: string): Record<string, unknown>[] {
  return instance
    .logs()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === msg);
}

const sum = (instances: CairnInstance[], msg: string, field: string) =>
  instances.reduce((n, i) => n + logged(i, msg).reduce((m, l) => m + Number(l[field]), 0), 0);

(server && neo4j ? describe : describe.skip)('two instances on one Postgres and one Neo4j', () => {
  let scratch: ScratchDatabase & { url: string };
  let sql: pg.Client;
  let run: CairnInstances;
  let a: CairnInstance;
  let b: CairnInstance;
  let folderRoot: string;
  let adminKey = '';

  beforeAll(async () => {
    await wipeNeo4j(neo4j!);
    scratch = (await server!.createDatabase()) as ScratchDatabase & { url: string };
    sql = new pg.Client({ connectionString: scratch.url });
    await sql.connect();
    folderRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-multi-'));
    fs.writeFileSync(path.join(folderRoot, 'guide.md'), '# Guide\n\nThe handbook for the two-instance test.\n');
    run = await startInstances({
      count: 2,
      databaseUrl: scratch.url,
      neo4j: neo4j!,
      env: {
        CAIRN_LOG_LEVEL: 'debug',
        CAIRN_QUERY_NAMES_MAX_AGE_MS: '600000',
        CAIRN_LEADER_RETRY_MS: String(LEADER_RETRY_MS),
        CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '100',
        CAIRN_SOURCES_TICK_MS: '100',
        CAIRN_SOURCES_FOLDER_ROOT: folderRoot,
        CAIRN_RATE_LIMIT_PER_SECOND: '0.001',
        CAIRN_RATE_LIMIT_BURST: String(RATE_BURST),
      },
    });
    [a, b] = run.instances as [CairnInstance, CairnInstance];
  });

  afterAll(async () => {
    await run?.stop();
    await sql?.end();
    await scratch?.drop();
    fs.rmSync(folderRoot, { recursive: true, force: true });
    await wipeNeo4j(neo4j!);
  });

  const leaders = () =>
    run.instances.filter(
      (i) => logged(i, 'this process is the leader: it runs the expiry sweep and the graph outbox').length > 0,
    );

  it('a document written on B right after an entity was created on A links to it', async () => {
    for (let i = 0; i < 5; i++) {
      const name = `Zephyrion Gateway ${'ABCDE'[i]}`;
      const entity = await gqlAt<{ createEntity: { id: string } }>(
        a.url,
        'mutation($i: CreateEntityInput!) { createEntity(input: $i) { id } }',
        { i: { type: 'Service', name } },
      );
      expect(entity.errors).toBeUndefined();
      // Sent as soon as A has answered: well within 100 ms of the entity's creation.
      const doc = await gqlAt<{ createDocument: { document: { id: string } } }>(
        b.url,
        'mutation($i: CreateDocumentInput!) { createDocument(input: $i) { document { id } } }',
        {
          i: { title: `Runbook ${i}`, content: `Restart the ${name} when it stalls.` },
        },
      );
      expect(doc.errors).toBeUndefined();
      const { rows } = await sql.query('SELECT 1 FROM mentions WHERE entity_id = $1 AND document_id = $2', [
        entity.data!.createEntity.id,
        doc.data!.createDocument.document.id,
      ]);
      expect(rows).toHaveLength(1);
    }
  });

  it('a query on B names an entity created on A a moment before, although B had just cached the names', async () => {
    const ENRICH = 'query($q: String!) { enrichContext(input: { query: $q }) { entities { entity { name } } } }';
    const names = async (q: string) =>
      (
        (await gqlAt<{ enrichContext: { entities: { entity: { name: string } }[] } }>(b.url, ENRICH, { q })).data
          ?.enrichContext.entities ?? []
      ).map((e) => e.entity.name);
    expect(await names('Is the Quillfeather Relay up?')).not.toContain('Quillfeather Relay');
    // B's names are cached now and trusted for 10 minutes (CAIRN_QUERY_NAMES_MAX_AGE_MS below): only the notification
    // of A's change can make B see the new entity within the wait.
    const created = await gqlAt(a.url, 'mutation($i: CreateEntityInput!) { createEntity(input: $i) { id } }', {
      i: { type: 'Service', name: 'Quillfeather Relay' },
    });
    expect(created.errors).toBeUndefined();
    // A's commit notifies B (LISTEN/NOTIFY), which drops its cached names: B sees the entity before its cache expires.
    await eventually(async () => (await names('Is the Quillfeather Relay up?')).includes('Quillfeather Relay'), {
      what: 'B seeing the entity A created',
    });
  });

  it('the outbox is relayed once, by the leader only', async () => {
    expect(leaders()).toHaveLength(1);
    const docs = Array.from({ length: 20 }, (_, i) => ({
      title: `Note ${i}`,
      content: `The Zephyrion Gateway A handles request ${i}.`,
    }));
    await gqlAt(a.url, 'mutation($d: [CreateDocumentInput!]!) { upsertDocuments(input: $d) { document { id } } }', {
      d: docs.slice(0, 10),
    });
    await gqlAt(b.url, 'mutation($d: [CreateDocumentInput!]!) { upsertDocuments(input: $d) { document { id } } }', {
      d: docs.slice(10),
    });
    const done = await eventually(async () => {
      const { rows } = await sql.query<{ pending: string; done: string }>(
        'SELECT count(*) FILTER (WHERE done_at IS NULL) AS pending, count(*) FILTER (WHERE done_at IS NOT NULL) AS done FROM graph_outbox',
      );
      return rows[0]!.pending === '0' ? Number(rows[0]!.done) : undefined;
    });
    expect(done).toBeGreaterThanOrEqual(20);
    const follower = run.instances.find((i) => !leaders().includes(i))!;
    expect(sum([follower], 'graph outbox applied', 'applied')).toBe(0);
    await eventually(async () => sum(run.instances, 'graph outbox applied', 'applied') >= done);
    expect(sum(run.instances, 'graph outbox applied', 'applied')).toBe(done);
  });

  it('expired documents are deleted once across both instances', async () => {
    const docs = Array.from({ length: 12 }, (_, i) => ({
      id: `expiring-${i}`,
      title: `Expiring ${i}`,
      content: `Short-lived note ${i}.`,
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    }));
    // One more expires only after the leader is killed (the last test); written now, while the rate limit allows it.
    const later = {
      id: 'late-expiry',
      title: 'Expiring after',
      content: 'Short-lived.',
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    };
    const res = await gqlAt(
      b.url,
      'mutation($d: [CreateDocumentInput!]!) { upsertDocuments(input: $d) { document { id } } }',
      { d: [...docs, later] },
    );
    expect(res.errors).toBeUndefined();
    // Their time comes (set in the database rather than waited for).
    await sql.query("UPDATE documents SET expires_at = now() - interval '1 second' WHERE id LIKE 'expiring-%'");
    await eventually(async () =>
      (await sql.query("SELECT 1 FROM documents WHERE id LIKE 'expiring-%'")).rowCount === 0 ? true : undefined,
    );
    await eventually(async () => sum(run.instances, 'expired documents deleted', 'deleted') >= 12);
    expect(sum(run.instances, 'expired documents deleted', 'deleted')).toBe(12);
    const follower = run.instances.find((i) => !leaders().includes(i))!;
    expect(logged(follower, 'expired documents deleted')).toHaveLength(0);
  });

  it('each due scheduled sync starts once across both instances', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const created = await gqlAt<{ createSource: { id: string } }>(
        i % 2 ? a.url : b.url,
        'mutation($i: CreateSourceInput!) { createSource(input: $i) { id } }',
        {
          i: { name: `handbook ${i}`, kind: 'FOLDER', path: '.', schedule: '0 3 * * *' },
        },
      );
      expect(created.errors).toBeUndefined();
      ids.push(created.data!.createSource.id);
    }
    const jobCount = async () =>
      Number(
        (
          await sql.query<{ n: string }>(
            "SELECT count(*) AS n FROM import_jobs WHERE kind = 'source' AND request->>'sourceId' = ANY($1)",
            [ids],
          )
        ).rows[0]!.n,
      );
    for (let round = 1; round <= 2; round++) {
      // Every source's run falls due at once; both schedulers see them on their next tick.
      await sql.query("UPDATE sources SET next_run_at = now() - interval '1 second' WHERE id = ANY($1)", [ids]);
      await eventually(async () =>
        (await sql.query('SELECT 1 FROM sources WHERE id = ANY($1) AND next_run_at <= now()', [ids])).rowCount === 0
          ? true
          : undefined,
      );
      // A claimed run is not due any more, but its job may still be on its way: wait for the round's jobs and their
      // end. A second start would need a second claim of the same run, which the claim's compare-and-set refuses.
      await eventually(
        async () =>
          (await jobCount()) >= 6 * round &&
          (await sql.query("SELECT 1 FROM sources WHERE id = ANY($1) AND status = 'SYNCING'", [ids])).rowCount === 0,
        { what: `round ${round}'s six syncs` },
      );
      expect(await jobCount()).toBe(6 * round);
    }
  });

  it('a key created on A turns authentication on at B at once', async () => {
    const status = async (url: string, key?: string) =>
      (
        await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
          body: '{"query":"{ __typename }"}',
        })
      ).status;
    expect(await status(b.url)).toBe(200); // no key yet: the loopback server serves its local admin, and B caches that
    const created = await gqlAt<{ createApiKey: { key: string } }>(
      a.url,
      'mutation { createApiKey(input: { name: "ops", role: ADMIN }) { key } }',
    );
    expect(created.errors).toBeUndefined();
    adminKey = created.data!.createApiKey.key;
    // B cached "no key" for 2 s; A's announcement makes it ask again at once.
    await eventually(async () => (await status(b.url)) === 401, { within: 1500, what: 'B asking for keys again' });
    expect(await status(b.url, adminKey)).toBe(200);
  });

  it('the rate limit is per instance: each spends its own burst', async () => {
    // Requests until the first 429 (the limit refills one request per 1,000 s, so no refill interferes).
    const allowedUntilRefused = async (url: string) => {
      for (let n = 0; n <= RATE_BURST; n++) {
        const res = await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${adminKey}` },
          body: '{"query":"{ __typename }"}',
        });
        if (res.status === 429) return n;
      }
      throw new Error(`no 429 after ${RATE_BURST + 1} requests`);
    };
    const onA = await allowedUntilRefused(a.url);
    // A refuses now, yet B still has its own bucket: the deployment allows instances × burst.
    const onB = await allowedUntilRefused(b.url);
    expect(onA).toBeGreaterThan(RATE_BURST / 2);
    expect(onB).toBeGreaterThan(RATE_BURST / 2);
    expect(
      (
        await fetch(`${a.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${adminKey}` },
          body: '{"query":"{ __typename }"}',
        })
      ).status,
    ).toBe(429);
  });

  it('when the leader is killed (kill -9), the other takes over its work within the retry interval', async () => {
    const [leader] = leaders();
    const survivor = run.instances.find((i) => i !== leader)!;
    await leader!.kill('SIGKILL');
    const killedAt = Date.now();
    await eventually(
      () => logged(survivor, 'this process is the leader: it runs the expiry sweep and the graph outbox').length > 0,
      { within: 10_000, what: 'the survivor taking the lead' },
    );
    expect(Date.now() - killedAt).toBeLessThan(LEADER_RETRY_MS * 10);
    await sql.query("UPDATE documents SET expires_at = now() - interval '1 second' WHERE id = 'late-expiry'");
    await eventually(async () =>
      (await sql.query("SELECT 1 FROM documents WHERE id = 'late-expiry'")).rowCount === 0 ? true : undefined,
    );
    await eventually(async () => sum([survivor], 'expired documents deleted', 'deleted') === 1);
  });
});
