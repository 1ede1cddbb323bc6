import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import neo4j, { type Driver } from 'neo4j-driver';
import { Neo4jGraphStore } from '../../src/graph/neo4j/Neo4jGraphStore.js';
import { projectPath } from '../../src/paths.js';
import { OutboxRepository } from '../../src/graph/mentions/OutboxRepository.js';
import { OutboxWorker } from '../../src/graph/mentions/OutboxWorker.js';
import { silentLogger } from '../../src/logger.js';
import { edgeTarget } from '../helpers/databases.js';
import { neo4jTestSettings, wipeNeo4j } from '../helpers/graphStores.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

const settings = neo4jTestSettings();
// Stopping the shared server is only safe when this process can restart it: the script owns it.
// Asynchronous on purpose: blocking the event loop would stall the in-process HTTP server and its keep-alive timers.
const script = (cmd: 'start' | 'stop') =>
  promisify(execFile)('bash', [projectPath('scripts/neo4j-server.sh'), cmd], { timeout: 180_000 });

(settings ? describe : describe.skip)('Neo4j outbox: documents never wait for the graph', () => {
  let t: TestServer;
  let store: Neo4jGraphStore;
  let driver: Driver;
  const mentioned = async (entityId: string): Promise<string[]> => {
    const res = await driver.executeQuery(
      'MATCH (:Entity {id: $id})-[:MENTIONED_IN]->(d:Document) RETURN d.id AS id ORDER BY id',
      { id: entityId },
    );
    return res.records.map((r) => r.get('id') as string);
  };

  beforeAll(async () => {
    const s = settings as NonNullable<typeof settings>;
    store = new Neo4jGraphStore(s);
    await wipeNeo4j(s);
    driver = neo4j.driver(s.uri, neo4j.auth.basic(s.user, s.password));
    t = await startTestServer(edgeTarget(), {}, undefined, store);
  }, 120_000);
  afterAll(async () => {
    await script('start');
    await t?.close();
    if (settings) await wipeNeo4j(settings).catch(() => undefined);
    await store?.close();
    await driver?.close();
  }, 180_000);

  it('queues mentions while Neo4j is down and delivers them after it restarts', async () => {
    await t.gql(
      `mutation { createEntity(input: { id: "svc:billing", type: "Service", name: "Billing Service" }) { id } }`,
    );
    await script('stop');

    const doc = await t.gql<{ createDocument: { document: { id: string; entities: { id: string }[] } } }>(
      `mutation { createDocument(input: { id: "doc:outage", title: "Outage", content: "The billing service was down for an hour." }) { document { id } } }`,
    );
    expect(doc.errors).toBeUndefined();
    const graphWrite = await t.gql(`mutation { createEntity(input: { type: "Service", name: "Other" }) { id } }`);
    expect(graphWrite.errors?.[0]?.extensions?.code).toBe('GRAPH_UNAVAILABLE');
    const stats = await t.gql<{ document: { id: string } }>(`{ document(id: "doc:outage") { id } }`);
    expect(stats.data!.document.id).toBe('doc:outage');
    await expect(t.services.outbox!.drain()).rejects.toBeTruthy();
    expect(await t.services.graph.outboxBacklog()).toBeGreaterThan(0);
    const ready = await fetch(`${t.server.url}/readyz`);
    expect(ready.status).toBe(503);

    await script('start');
    await t.services.outbox!.drain();
    expect(await t.services.graph.outboxBacklog()).toBe(0);
    expect(await mentioned('svc:billing')).toEqual(['doc:outage']);
    const after = await t.gql<{ graphStats: { outboxBacklog: number } }>(`{ graphStats { outboxBacklog } }`);
    expect(after.data!.graphStats.outboxBacklog).toBe(0);
  }, 240_000);

  it('deletes entries applied more than a day ago, once an hour', async () => {
    const op = JSON.stringify({ op: 'unlinkDocument', documentId: 'doc:pruned' });
    const insertDone = (age: string) =>
      t.services.db.query(`INSERT INTO graph_outbox (op, done_at) VALUES ($1::jsonb, now() - $2::interval)`, [op, age]);
    const aged = async () =>
      (
        await t.services.db.query<{ old: number; recent: number }>(
          `SELECT count(*) FILTER (WHERE done_at < now() - interval '1 day')::int AS old,
                  count(*) FILTER (WHERE done_at >= now() - interval '1 day')::int AS recent FROM graph_outbox`,
        )
      ).rows[0];
    await insertDone('2 days');
    await insertDone('1 hour');
    let clock = 0;
    const worker = new OutboxWorker(new OutboxRepository(t.services.db), store, silentLogger(), 500, () => clock);
    await worker.drain();
    expect(await aged()).toMatchObject({ old: 0, recent: expect.any(Number) });
    expect((await aged())!.recent).toBeGreaterThan(0);
    // Within the hour a drain leaves old entries; after it, they go.
    await insertDone('3 days');
    clock += 30 * 60 * 1000;
    await worker.drain();
    expect((await aged())!.old).toBe(1);
    clock += 31 * 60 * 1000;
    await worker.drain();
    expect((await aged())!.old).toBe(0);
  });

  it('applying the same outbox entries twice has the effect of applying them once', async () => {
    await t.gql(
      `mutation { createDocument(input: { id: "doc:twice", title: "Twice", content: "Billing service again." }) { document { id } } }`,
    );
    const { rows } = await t.services.db.query<{
      op: Parameters<NonNullable<Neo4jGraphStore['applyMentionOps']>>[0][number];
    }>(`SELECT op FROM graph_outbox WHERE done_at IS NULL ORDER BY id`);
    expect(rows.length).toBeGreaterThan(0);
    const ops = rows.map((r) => r.op);
    await store.applyMentionOps(ops);
    const once = await mentioned('svc:billing');
    await store.applyMentionOps(ops);
    await t.services.outbox!.drain(); // applies them a third time, through the worker
    expect(await mentioned('svc:billing')).toEqual(once);
    expect(once).toEqual(['doc:outage', 'doc:twice']);
    const edges = await driver.executeQuery(
      `MATCH (:Entity {id: 'svc:billing'})-[r:MENTIONED_IN]->(:Document {id: 'doc:twice'}) RETURN count(r) AS n`,
    );
    expect(Number(edges.records[0]!.get('n'))).toBe(1);

    await t.gql(`mutation { deleteDocument(id: "doc:twice") { deleted } }`);
    await t.services.outbox!.drain();
    expect(await mentioned('svc:billing')).toEqual(['doc:outage']);
  }, 60_000);

  it('the expiry sweep removes expired documents from Neo4j too', async () => {
    const soon = new Date(Date.now() + 60_000).toISOString();
    await t.gql(
      `mutation($at: DateTime) { createDocument(input: { id: "doc:fleeting", title: "Fleeting", content: "Billing service, briefly.", expiresAt: $at }) { document { id } } }`,
      { at: soon },
    );
    await t.services.outbox!.drain();
    expect(await mentioned('svc:billing')).toContain('doc:fleeting');
    // Expiry is the database's now(): the document's time runs out without waiting for it.
    await t.services.db.query(
      `UPDATE documents SET expires_at = now() - interval '1 second' WHERE id = 'doc:fleeting'`,
    );
    expect(await t.services.sweeper.sweep()).toBe(1);
    await t.services.outbox!.drain();
    expect(await mentioned('svc:billing')).toEqual(['doc:outage']);
  }, 60_000);
});
