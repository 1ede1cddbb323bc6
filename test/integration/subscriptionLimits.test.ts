// The limits of graphql-ws subscriptions, with real clients over 127.0.0.1: open subscriptions per connection and
// per key, the connection_init timeout, the rate limit and bad-key budget shared with HTTP, the cost, variable,
// token and introspection rules, subscriptions only, revoked keys and the message size.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { edgeTarget } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

type Outcome =
  { data: unknown } | { errors: { message: string; extensions?: { code?: string; retryAfterSeconds?: number } }[] };

/** Subscribes and resolves with the first result (the subscription stays open) or the errors; `stop` ends it. */
function first(
  client: Client,
  query: string,
  variables: Record<string, unknown> = {},
): { outcome: Promise<Outcome>; stop: () => void } {
  let stop = () => {};
  const outcome = new Promise<Outcome>((resolve, reject) => {
    stop = client.subscribe(
      { query, variables },
      {
        next: (result) => resolve(result.errors ? { errors: result.errors as never } : { data: result.data }),
        error: (err) =>
          Array.isArray(err)
            ? resolve({ errors: err as never })
            : reject(err instanceof Error ? err : new Error(JSON.stringify(err))),
        complete: () => resolve({ data: null }),
      },
    );
  });
  return { outcome, stop: () => stop() };
}

const code = (o: Outcome) => ('errors' in o ? o.errors[0]?.extensions?.code : 'OK');
const message = (o: Outcome) => ('errors' in o ? (o.errors[0]?.message ?? '') : '');

/** Waits for a raw WebSocket to be closed by the server, with its code. */
const closed = (ws: WebSocket) =>
  new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (c, r) => resolve({ code: c, reason: r.toString() })),
  );

// The limits do not depend on the store: one database.
describe('subscription limits over graphql-ws', () => {
  let t: TestServer;
  let ws: string;
  const clock = { seconds: 1000 };
  const keys: Record<string, string> = {};
  const clients: Client[] = [];
  const client = (key?: string, extra: Record<string, unknown> = {}) => {
    const c = createClient({
      url: ws,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: true,
      connectionParams: key ? { authorization: `Bearer ${key}` } : {},
      ...extra,
    });
    clients.push(c);
    return c;
  };
  const WATCH = 'subscription { sourceUpdated { name } }';

  beforeAll(async () => {
    t = await startTestServer(
      edgeTarget(),
      {
        CAIRN_SOURCES_TICK_MS: '0',
        CAIRN_SUBSCRIPTIONS_PER_CONNECTION: '2',
        CAIRN_SUBSCRIPTIONS_PER_KEY: '3',
        CAIRN_SUBSCRIPTION_INIT_TIMEOUT_MS: '300',
        CAIRN_GRAPHQL_MAX_COST: '500',
        CAIRN_GRAPHQL_MAX_TOKENS: '200',
        CAIRN_RATE_LIMIT_PER_SECOND: '1',
        CAIRN_RATE_LIMIT_BURST: '20',
        CAIRN_RATE_LIMIT_FAILED_KEYS_PER_MINUTE: '2',
        CAIRN_MAX_BODY_BYTES: '65536',
      },
      undefined,
      undefined,
      () => clock.seconds,
    );
    ws = `${t.server.url.replace(/^http/, 'ws')}/graphql`;
    for (const name of ['counts', 'rules', 'rate', 'revoked'])
      keys[name] = (await t.services.apiKeys.create(name, 'reader')).key;
    await t.services.sources.create({ name: 'notes', kind: 'OPENAPI', url: 'https://example.com/openapi.json' });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await t?.close();
  });

  it('holds at most CAIRN_SUBSCRIPTIONS_PER_CONNECTION per connection and CAIRN_SUBSCRIPTIONS_PER_KEY per key', async () => {
    const one = client(keys.counts);
    const a = first(one, WATCH);
    const b = first(one, WATCH);
    expect(code(await a.outcome)).toBe('OK');
    expect(code(await b.outcome)).toBe('OK');
    const c = await first(one, WATCH).outcome;
    expect(code(c)).toBe('RATE_LIMITED');
    expect(message(c)).toMatch(
      /This connection has 2 subscriptions open; at most 2 may be \(CAIRN_SUBSCRIPTIONS_PER_CONNECTION\)/,
    );

    const two = client(keys.counts);
    expect(code(await first(two, WATCH).outcome)).toBe('OK');
    const overKey = await first(two, WATCH).outcome;
    expect(code(overKey)).toBe('RATE_LIMITED');
    expect(message(overKey)).toMatch(/This API key has 3 subscriptions open; at most 3 .*CAIRN_SUBSCRIPTIONS_PER_KEY/);

    // Completing one frees its slot at once.
    a.stop();
    let again: Outcome = await first(two, WATCH).outcome;
    for (let i = 0; code(again) !== 'OK' && i < 10; i++) again = await first(two, WATCH).outcome; // the complete message is in flight
    expect(code(again)).toBe('OK');
  });

  it('closes a connection that does not send connection_init in time', async () => {
    const socket = new WebSocket(ws, 'graphql-transport-ws');
    expect(await closed(socket)).toEqual({ code: 4408, reason: 'Connection initialisation timeout' });
  });

  it('applies the HTTP rules to each operation: cost with variables, tokens, introspection, variables, subscriptions only', async () => {
    const c = client(keys.rules);
    const costly = await first(
      c,
      'subscription($n: Int) { sourceUpdated { jobs(first: $n) { id documents { id title } } } }',
      { n: 100 },
    ).outcome;
    expect(code(costly)).toBe('QUERY_TOO_COMPLEX');
    expect(message(costly)).toMatch(/cost limit is 500 \(CAIRN_GRAPHQL_MAX_COST\)/);
    expect(
      code(await first(c, 'subscription($n: Int) { sourceUpdated { jobs(first: $n) { id } } }', { n: 2 }).outcome),
    ).toBe('OK');
    expect(code(await first(c, `subscription { sourceUpdated { ${'name '.repeat(300)} } }`).outcome)).toBe(
      'QUERY_TOO_COMPLEX',
    );
    const introspection = await first(c, 'subscription { sourceUpdated { name __type(name: "Source") { name } } }')
      .outcome;
    expect(['FORBIDDEN', 'GRAPHQL_VALIDATION_FAILED']).toContain(code(introspection));
    expect(code(await first(c, 'subscription { sourceUpdated { nope } }').outcome)).toBe('GRAPHQL_VALIDATION_FAILED');
    const bigList = await first(c, 'subscription($id: ID) { sourceUpdated(id: $id) { name } }', {
      id: 'x',
      extra: Array.from({ length: 5001 }, () => 1),
    }).outcome;
    expect(code(bigList)).toBe('BAD_USER_INPUT');
    const query = await first(c, '{ sources { name } }').outcome;
    expect(code(query)).toBe('BAD_REQUEST');
    expect(message(query)).toMatch(
      /Only subscriptions are served over WebSocket; send query operations to POST \/graphql/,
    );
  });

  it('spends the same rate-limit tokens as HTTP', async () => {
    const c = client(keys.rate);
    const JOB = 'subscription { importJobUpdated(id: "nope") { id } }';
    for (let i = 0; i < 20; i++) expect(code(await first(c, JOB).outcome)).toBe('NOT_FOUND');
    const limited = await first(c, JOB).outcome;
    expect(code(limited)).toBe('RATE_LIMITED');
    expect('errors' in limited && limited.errors[0]?.extensions?.retryAfterSeconds).toBe(1);
    clock.seconds += 2;
    expect(code(await first(c, JOB).outcome)).toBe('NOT_FOUND');
  });

  it('stops serving a connection whose key was revoked: no new subscription, no further event', async () => {
    const closes: { code: number; reason: string }[] = [];
    const c = client(keys.revoked, {
      on: { closed: (event: unknown) => closes.push(event as { code: number; reason: string }) },
    });
    const events: string[] = [];
    let ended: (reason: unknown) => void = () => {};
    let started: (value: unknown) => void = () => {};
    const done = new Promise((resolve) => (ended = resolve));
    const initial = new Promise((resolve) => (started = resolve));
    c.subscribe(
      { query: 'subscription { sourceUpdated(id: "notes") { name tags } }' },
      { next: (r) => started(events.push(JSON.stringify(r))), error: ended, complete: () => ended('complete') },
    );
    await initial;
    const [record] = (await t.services.apiKeys.list()).filter((k) => k.name === 'revoked');
    await t.services.apiKeys.revoke(record!.id);
    expect(code(await first(c, WATCH).outcome)).toBe('UNAUTHENTICATED');
    // A change of the source would be an event: the connection closes instead of sending it.
    const seen = events.length;
    await t.services.sources.update('notes', { tags: ['changed'] });
    await done;
    expect(closes.at(-1)).toMatchObject({ code: 4403, reason: 'Forbidden: the API key is no longer accepted' });
    expect(events.slice(seen).join()).not.toContain('changed');
  });

  it('closes a connection that sends a message larger than CAIRN_MAX_BODY_BYTES', async () => {
    const socket = new WebSocket(ws, 'graphql-transport-ws');
    await new Promise((resolve) => socket.on('open', resolve));
    socket.send(
      JSON.stringify({
        type: 'connection_init',
        payload: { authorization: `Bearer ${keys.counts}`, pad: 'x'.repeat(70_000) },
      }),
    );
    expect((await closed(socket)).code).toBe(1009);
  });

  // Last: it spends this address's budget of bad keys, after which keys not accepted before are refused.
  it("refuses bad keys past the address's budget, before looking them up", async () => {
    const badKey = async () => {
      const socket = new WebSocket(ws, 'graphql-transport-ws');
      await new Promise((resolve) => socket.on('open', resolve));
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: 'Bearer cairn_notakey' } }));
      return (await closed(socket)).code;
    };
    expect(await badKey()).toBe(4403);
    expect(await badKey()).toBe(4403);
    expect(await badKey()).toBe(4429);
  });
});
