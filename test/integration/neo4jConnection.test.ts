import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import net from 'node:net';
import { isAppError } from '../../src/errors.js';
import { Neo4jConnection } from '../../src/graph/neo4j/Neo4jConnection.js';
import { Neo4jGraphStore } from '../../src/graph/neo4j/Neo4jGraphStore.js';
import { graphStoreTargets, neo4jTestSettings } from '../helpers/graphStores.js';
import { eventually } from '../helpers/eventually.js';

// Reads run as auto-commit queries (one round trip) and retry retryable failures themselves, as managed transactions
// would. A TCP proxy in front of the real Neo4j drops connections until it is opened, which the driver reports as
// ServiceUnavailable (retryable).

const hasNeo4j = graphStoreTargets().some((g) => g.name.startsWith('neo4j')); // throws under CI without Neo4j
const settings = neo4jTestSettings();

/** A proxy to Neo4j's Bolt port that resets every connection while closed, and keeps what clients sent through it. */
async function gatedProxy(target: URL): Promise<{
  uri: string;
  open(): void;
  connections: () => number;
  /** How many times `text` went from a client to the server (a statement's text: once per time it was run). */
  sent: (text: string) => number;
  close(): Promise<void>;
}> {
  let opened = false;
  let connections = 0;
  const fromClients: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    connections++;
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    if (!opened) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    client.on('data', (chunk: Buffer) => fromClients.push(chunk));
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    uri: `bolt://127.0.0.1:${port}`,
    open: () => (opened = true),
    connections: () => connections,
    sent: (text) => Buffer.concat(fromClients).toString('latin1').split(text).length - 1,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

(hasNeo4j && settings ? describe : describe.skip)('Neo4j auto-commit reads', () => {
  const s = settings as NonNullable<typeof settings>;
  let proxy: Awaited<ReturnType<typeof gatedProxy>>;

  beforeAll(async () => {
    proxy = await gatedProxy(new URL(s.uri));
  });
  afterAll(async () => {
    await proxy.close();
  });

  it('retries a read while the server cannot be reached, and answers once it can', async () => {
    const conn = new Neo4jConnection({ ...s, uri: proxy.uri });
    try {
      const before = proxy.connections();
      const reading = conn.readQuery('RETURN $x AS x', { x: 41 });
      // The server comes back once the read has been refused, not after a guessed delay.
      await eventually(() => proxy.connections() > before, { what: 'the read reaching the closed proxy' });
      proxy.open();
      const records = await reading;
      expect(records.map((r) => r.get('x'))).toEqual([41]);
      expect(proxy.connections() - before).toBeGreaterThan(1); // refused at least once, then served
    } finally {
      await conn.close();
    }
  });

  it('does not retry a statement the server rejects', async () => {
    // Through the open proxy, which sees every statement sent: counted, not timed, so a busy machine cannot fail it.
    proxy.open();
    const conn = new Neo4jConnection({ ...s, uri: proxy.uri });
    try {
      await expect(conn.readQuery('RETURN x AS')).rejects.toMatchObject({
        code: 'Neo.ClientError.Statement.SyntaxError',
      });
      expect(proxy.sent('RETURN x AS')).toBe(1);
    } finally {
      await conn.close();
    }
  });

  it('gives up within the retry window and reports GRAPH_UNAVAILABLE from the store', async () => {
    const closed = await gatedProxy(new URL(s.uri));
    const store = new Neo4jGraphStore({ ...s, uri: closed.uri });
    try {
      const started = Date.now();
      const err = await store.getEntities(['anything']).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isAppError(err) && err.code).toBe('GRAPH_UNAVAILABLE');
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(closed.connections()).toBeGreaterThan(1);
    } finally {
      await store.close();
      await closed.close();
    }
  });
});
