import net from 'node:net';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { startHttpServer, type RunningServer } from '../../src/server/httpServer.js';
import { createServices, type Services } from '../../src/services.js';
import type { Replica } from '../../src/db/ReplicaSet.js';
import { gqlAs } from '../helpers/auth.js';
import { NO_BACKGROUND_EXTRACTION } from '../helpers/backgroundWork.js';
import { createScratchDatabase, type ScratchDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { ensurePostgresTemplate } from '../helpers/templates.js';

// Read replicas against a real streaming standby (scripts/postgres-server.sh replica-start). The replica is reached
// through a TCP proxy of the test's own, so "the replica is down" cuts this suite's connections only.

const primaryUrl = process.env.CAIRN_TEST_DATABASE_URL;
const replicaUrl = process.env.CAIRN_TEST_DATABASE_REPLICA_URL;
const describeWithReplica = primaryUrl && replicaUrl ? describe : describe.skip;
if (!replicaUrl && process.env.CI) {
  throw new Error('CI is set but CAIRN_TEST_DATABASE_REPLICA_URL is not: .ci/run starts the streaming replica.');
}

const MAX_LAG_MS = 1000;

/** A TCP proxy to the replica that the test can cut (closing every connection) and restore. */
class CuttableProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}

/** Runs one statement on the standby itself (pausing and resuming its replay). */
async function onStandby(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describeWithReplica('read replicas (real streaming standby)', () => {
  let database: ScratchDatabase & { url: string };
  let proxy: CuttableProxy;
  let services: Services;
  let server: RunningServer;
  let replica: Replica;
  let clock = new Date('2026-01-01T00:00:00Z');
  let writer: string;
  let reader: string;
  const standbyAdmin = replicaUrl ?? '';

  const createDocument = async (key: string, title: string) => {
    const r = await gqlAs<{ createDocument: { document: { id: string } } }>(
      server.url,
      key,
      'mutation($i: CreateDocumentInput!) { createDocument(input: $i) { document { id } } }',
      { i: { title, content: `${title}: replicated words about standby servers` } },
    );
    expect(r.body.errors).toBeUndefined();
    return r.body.data?.createDocument.document.id ?? '';
  };
  const titleOf = async (key: string, id: string) => {
    const r = await gqlAs<{ document: { title: string } | null }>(
      server.url,
      key,
      'query($id: ID!) { document(id: $id) { title } }',
      { id },
    );
    expect(r.body.errors).toBeUndefined();
    return r.body.data?.document?.title ?? null;
  };
  const readyz = async () =>
    (await (await fetch(`${server.url}/readyz`)).json()) as {
      ready: boolean;
      components: Record<string, { ok: boolean; detail?: string; warning?: string }>;
    };
  const checkUntil = (state: Replica['state']) =>
    eventually(async () => {
      await services.replicas?.check();
      return replica.state === state;
    });

  beforeAll(async () => {
    database = await createScratchDatabase(primaryUrl ?? '', await ensurePostgresTemplate(primaryUrl ?? ''));
    const standby = new URL(replicaUrl ?? '');
    proxy = new CuttableProxy({ host: standby.hostname, port: Number(standby.port) });
    await proxy.open();
    const viaProxy = new URL(database.url);
    viaProxy.port = String(proxy.port);
    const config = loadConfig({
      NODE_ENV: 'test',
      CAIRN_EMBEDDING_PROVIDER: 'hashing',
      CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
      ...NO_BACKGROUND_EXTRACTION,
      CAIRN_DATABASE_URL: database.url,
      CAIRN_DATABASE_REPLICA_URLS: viaProxy.toString(),
      CAIRN_DATABASE_REPLICA_MAX_LAG_MS: String(MAX_LAG_MS),
      // The test steps the checks itself, on its own clock.
      CAIRN_DATABASE_REPLICA_CHECK_MS: '3600000',
    });
    services = await createServices(config, silentLogger(), {
      embedder: new HashingEmbeddingProvider({ dimensions: 256 }),
      now: () => clock,
    });
    server = await startHttpServer(services, 0, '127.0.0.1');
    const first = services.replicas?.replicas[0];
    if (!first) throw new Error('the replica was not configured');
    replica = first;
    writer = (await services.apiKeys.create('writer', 'admin')).key;
    reader = (await services.apiKeys.create('reader', 'editor')).key;
    // The scratch database reaches the standby once its CREATE DATABASE is replayed.
    await checkUntil('up');
  });

  afterAll(async () => {
    await onStandby(standbyAdmin, 'SELECT pg_wal_replay_resume()').catch(() => undefined);
    await server?.stop();
    await services?.close();
    await proxy?.cut();
    await database?.drop();
  });

  afterEach(async () => {
    await onStandby(standbyAdmin, 'SELECT pg_wal_replay_resume()');
  });

  it('sends a query to the replica and a write to the primary; the writer reads its own write', async () => {
    await onStandby(standbyAdmin, 'SELECT pg_wal_replay_pause()');
    const id = await createDocument(writer, 'Paused replay');
    const readsBefore = replica.reads;
    // Another client reads the replica, which has not replayed the write: proof that queries go there.
    expect(await titleOf(reader, id)).toBeNull();
    expect(replica.reads).toBeGreaterThan(readsBefore);
    // The writer's own reads go to the primary until a replica has replayed its write.
    expect(await titleOf(writer, id)).toBe('Paused replay');
    await onStandby(standbyAdmin, 'SELECT pg_wal_replay_resume()');
    await eventually(async () => (await titleOf(reader, id)) === 'Paused replay');
    // Once the replica has replayed it, the writer reads there again.
    const writerBefore = replica.reads;
    await eventually(async () => (await titleOf(writer, id)) === 'Paused replay' && replica.reads > writerBefore);
  });

  it('skips a replica further behind than the maximum lag, and takes it back once it catches up', async () => {
    await checkUntil('up');
    await onStandby(standbyAdmin, 'SELECT pg_wal_replay_pause()');
    const id = await createDocument(writer, 'Behind the lag limit');
    await services.replicas?.check(); // the primary's new position, seen at the current time
    clock = new Date(clock.getTime() + MAX_LAG_MS + 1);
    await services.replicas?.check();
    expect(replica.state).toBe('lagging');
    // Every client now reads the primary, so even another client sees the write.
    expect(await titleOf(reader, id)).toBe('Behind the lag limit');
    const report = await readyz();
    expect(report.ready).toBe(true);
    expect(report.components.replicas?.warning).toMatch(/1 of 1 replicas skipped.*lagging/);
    await onStandby(standbyAdmin, 'SELECT pg_wal_replay_resume()');
    await checkUntil('up');
    expect((await readyz()).components.replicas?.warning).toBeUndefined();
  });

  it('skips a replica that stops answering, and takes it back when it answers again', async () => {
    await checkUntil('up');
    const id = await createDocument(writer, 'Survives a cut');
    await eventually(async () => (await titleOf(reader, id)) === 'Survives a cut');
    await proxy.cut();
    // The read that finds the replica gone runs again on the primary: the client never sees the failure.
    expect(await titleOf(reader, id)).toBe('Survives a cut');
    expect(replica.state).toBe('down');
    expect((await readyz()).components.replicas?.warning).toMatch(/down/);
    await proxy.open();
    await checkUntil('up');
    const readsBefore = replica.reads;
    expect(await titleOf(reader, id)).toBe('Survives a cut');
    expect(replica.reads).toBeGreaterThan(readsBefore);
  });
});
