import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { dbTargets } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

/** Collects a subscription's results until it completes or `until` says stop. */
function collect<T>(
  client: Client,
  query: string,
  variables: Record<string, unknown>,
  until: (value: T) => boolean,
): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const seen: T[] = [];
    const stop = client.subscribe<T>(
      { query, variables },
      {
        next: (result) => {
          if (result.errors) return reject(new Error(JSON.stringify(result.errors)));
          seen.push(result.data as T);
          if (until(result.data as T)) {
            stop();
            resolve(seen);
          }
        },
        error: (err) => reject(err instanceof Error ? err : new Error(JSON.stringify(err))),
        complete: () => resolve(seen),
      },
    );
  });
}

describe('subscriptions over graphql-ws (pglite)', () => {
  let t: TestServer;
  let root: string;
  let client: Client;
  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-subs-'));
    fs.mkdirSync(path.join(root, 'notes'));
    for (const n of ['one', 'two', 'three'])
      fs.writeFileSync(path.join(root, 'notes', `${n}.md`), `# ${n}\n\nNote ${n}.`);
    t = await startTestServer(dbTargets()[0]!, { CAIRN_SOURCES_FOLDER_ROOT: root, CAIRN_SOURCES_TICK_MS: '0' });
    client = createClient({
      url: `${t.server.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: true,
    });
  });
  afterAll(async () => {
    await client?.dispose();
    await t?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('streams a sync job to its end and the source through its sync, on the same port', async () => {
    const source = await t.services.sources.create({ name: 'notes', kind: 'FOLDER', path: 'notes' });
    type SourceEvent = { sourceUpdated: { name: string; status: string; counts: { added: number } } };
    const sourceEvents = collect<SourceEvent>(
      client,
      'subscription($id: ID) { sourceUpdated(id: $id) { name status counts { added } } }',
      { id: 'notes' },
      (e) => e.sourceUpdated.status === 'SUCCEEDED',
    );
    const job = await t.services.sources.sync(source.id);
    type JobEvent = { importJobUpdated: { id: string; status: string; progress: { done: number; total: number } } };
    const jobEvents = await collect<JobEvent>(
      client,
      'subscription($id: ID!) { importJobUpdated(id: $id) { id status progress { done total } } }',
      { id: job.id },
      () => false,
    );
    expect(jobEvents.at(-1)?.importJobUpdated).toMatchObject({ id: job.id, status: 'SUCCEEDED' });
    const statuses = (await sourceEvents).map((e) => e.sourceUpdated.status);
    expect(statuses[0]).toBe('NEVER_SYNCED');
    expect(statuses.at(-1)).toBe('SUCCEEDED');
    expect((await sourceEvents).at(-1)?.sourceUpdated.counts.added).toBe(3);
  });

  it('answers an unknown job with NOT_FOUND and applies the static limits', async () => {
    await expect(
      collect(client, 'subscription { importJobUpdated(id: "nope") { id } }', {}, () => true),
    ).rejects.toThrow(/"code":"NOT_FOUND"/);
    const nest = (n: number): string => (n === 0 ? 'id' : `chunks { document { ${nest(n - 1)} } }`);
    const deep = `subscription { sourceUpdated { jobs { documents { ${nest(8)} } } } }`;
    await expect(collect(client, deep, {}, () => true)).rejects.toThrow(/QUERY_TOO_COMPLEX|depth/i);
  });

  it('needs a key once authentication is on, as HTTP does', async () => {
    const { key } = await t.services.apiKeys.create('watcher', 'reader');
    const url = `${t.server.url.replace(/^http/, 'ws')}/graphql`;
    const anonymous = createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
    await expect(collect(anonymous, 'subscription { sourceUpdated { name } }', {}, () => true)).rejects.toBeDefined();
    await anonymous.dispose();
    const keyed = createClient({
      url,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: true,
      connectionParams: { authorization: `Bearer ${key}` },
    });
    const [first] = await collect<{ sourceUpdated: { name: string } }>(
      keyed,
      'subscription { sourceUpdated { name } }',
      {},
      () => true,
    );
    expect(first?.sourceUpdated.name).toBe('notes');
    await keyed.dispose();
  });
});
