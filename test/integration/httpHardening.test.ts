import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '../helpers/eventually.js';
import { edgeTarget } from '../helpers/databases.js';
import { startLoggedServer } from '../helpers/loggedServer.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

/** A raw answer: fetch normalises paths and refuses to set Host, so these requests go through node:http. */
interface RawResponse {
  status: number;
  type: string;
  body: string;
}

/** Sends `method path` exactly as given, with extra headers (e.g. a chosen Host). */
function raw(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: text }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The first error's code of a JSON error answer. */
const codeIn = (r: RawResponse): unknown =>
  (JSON.parse(r.body) as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code;

describe('HTTP errors outside GraphQL', () => {
  let t: TestServer;
  const savedEnv = process.env.NODE_ENV;
  beforeAll(async () => {
    // Express picks its error page from NODE_ENV when the app is created; outside production it prints the stack.
    process.env.NODE_ENV = 'development';
    try {
      t = await startTestServer(edgeTarget());
    } finally {
      process.env.NODE_ENV = savedEnv;
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const leaks = /URIError|node_modules|decodeParam|\.js:\d+|\n\s*at |<html|<pre/i;

  it('answers a malformed path with 400 BAD_REQUEST as JSON, never a stack trace', async () => {
    const paths = [
      '/knowledge/%',
      '/%',
      '/knowledge/%E0%A4%A',
      '/graphql/%zz',
      '/assets/%',
      '/explorer%',
      '/healthz%C0',
      '/nowhere/%',
    ];
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'HEAD']) {
      for (const path of paths) {
        const res = await raw(t.server.url, method, path);
        expect({ method, path, status: res.status, type: res.type }).toEqual({
          method,
          path,
          status: 400,
          type: expect.stringContaining('application/json'),
        });
        if (method === 'HEAD') continue;
        expect(res.body).not.toMatch(leaks);
        expect(codeIn(res)).toBe('BAD_REQUEST');
        expect(res.body).toContain('percent-encoding');
      }
    }
  });

  it('answers an unknown route with 404 NOT_FOUND as JSON', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['POST', '/v2/uploads'],
      ['DELETE', '/healthz'],
      ['GET', '/v1/uploads'],
      ['PATCH', '/knowledge'],
    ]) {
      const res = await raw(t.server.url, method!, path!);
      expect({ method, path, status: res.status, type: res.type }).toEqual({
        method,
        path,
        status: 404,
        type: expect.stringContaining('application/json'),
      });
      expect(res.body).not.toMatch(leaks);
      expect(res.body).not.toContain('Cannot');
      expect(codeIn(res)).toBe('NOT_FOUND');
      expect(res.body).toContain(`${method} ${path}`);
    }
  });

  it('keeps every existing route as it was', async () => {
    expect(await raw(t.server.url, 'GET', '/healthz')).toMatchObject({ status: 200, body: '{"status":"ok"}' });
    expect((await raw(t.server.url, 'GET', '/readyz')).status).toBe(200);
    for (const page of ['/explorer', '/graphiql', '/knowledge', '/knowledge/doc%3Aone', '/knowledge/caf%C3%A9']) {
      expect(await raw(t.server.url, 'GET', page)).toMatchObject({
        status: 200,
        type: expect.stringContaining('text/html'),
      });
    }
    expect((await raw(t.server.url, 'GET', '/')).status).toBe(302);
    expect(await raw(t.server.url, 'GET', '/assets/nope.js')).toMatchObject({ status: 404, body: 'not found' });
    expect(await raw(t.server.url, 'GET', '/graphql', { accept: 'text/html' })).toMatchObject({
      status: 200,
      type: expect.stringContaining('text/html'),
    });
    const gql = await raw(
      t.server.url,
      'POST',
      '/graphql',
      { 'content-type': 'application/json' },
      '{"query":"{ __typename }"}',
    );
    expect(gql).toMatchObject({ status: 200, body: expect.stringContaining('"__typename":"Query"') });
    const badJson = await raw(t.server.url, 'POST', '/graphql', { 'content-type': 'application/json' }, '{');
    expect({ status: badJson.status, code: codeIn(badJson) }).toEqual({ status: 400, code: 'BAD_REQUEST' });
    const upload = await raw(
      t.server.url,
      'POST',
      '/v1/uploads',
      { 'content-type': 'multipart/form-data; boundary=x' },
      '--x--',
    );
    expect({ status: upload.status, code: codeIn(upload) }).toEqual({ status: 400, code: 'BAD_REQUEST' });
  });
});

describe('authentication off (no key, loopback)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(edgeTarget());
  });
  afterAll(async () => {
    await t?.close();
  });

  const query = JSON.stringify({ query: '{ knowledgeStats { documentCount } }' });
  const ask = (headers: Record<string, string>): Promise<RawResponse> =>
    raw(t.server.url, 'POST', '/graphql', { 'content-type': 'application/json', ...headers }, query);
  /** Status and, when refused, the reason the server gave. */
  const outcome = async (headers: Record<string, string>): Promise<{ status: number; reason?: unknown }> => {
    const res = await ask(headers);
    const reason = (JSON.parse(res.body) as { errors?: { extensions?: { reason?: unknown } }[] }).errors?.[0]
      ?.extensions?.reason;
    return res.status === 200 ? { status: 200 } : { status: res.status, reason };
  };

  const proxyHeaders: Record<string, string> = {
    Forwarded: 'for=203.0.113.9',
    'X-Forwarded-For': '203.0.113.9',
    Via: '1.1 proxy.example',
    'X-Real-IP': '203.0.113.9',
    'X-Forwarded-Host': 'cairn.example',
    'X-Forwarded-Proto': 'https',
    'X-Forwarded-Port': '443',
    'X-Forwarded-Server': 'proxy.example',
    'X-Client-IP': '203.0.113.9',
    'True-Client-IP': '203.0.113.9',
    'CF-Connecting-IP': '203.0.113.9',
    'Fastly-Client-IP': '203.0.113.9',
    'X-Cluster-Client-IP': '203.0.113.9',
    'X-Original-Forwarded-For': '203.0.113.9',
  };

  it('refuses a request relayed by a proxy or CDN, whichever of their headers it carries', async () => {
    expect(await outcome({})).toEqual({ status: 200 });
    for (const [name, value] of Object.entries(proxyHeaders)) {
      expect({ name, ...(await outcome({ [name]: value })) }).toEqual({ name, status: 401, reason: 'proxied' });
      // Presence is what counts: an empty value or a loopback address is still a relay.
      expect({ name, ...(await outcome({ [name.toLowerCase()]: '' })) }).toEqual({
        name,
        status: 401,
        reason: 'proxied',
      });
      expect({ name, ...(await outcome({ [name]: '127.0.0.1' })) }).toEqual({ name, status: 401, reason: 'proxied' });
    }
    const upload = await raw(
      t.server.url,
      'POST',
      '/v1/uploads',
      { 'apollo-require-preflight': 'true', via: '1.1 cdn', 'content-type': 'multipart/form-data; boundary=x' },
      '--x--',
    );
    expect({ status: upload.status, code: codeIn(upload) }).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
  });

  it('accepts only localhost, 127.0.0.1 or [::1] with an optional port as the Host', async () => {
    const good = ['localhost', 'LocalHost:4000', '127.0.0.1', '127.0.0.1:1', '[::1]', '[::1]:65535', 'localhost:12345'];
    for (const host of good) expect({ host, ...(await outcome({ host })) }).toEqual({ host, status: 200 });
    const bad = [
      ...[
        '127.0.0.2',
        '2130706433',
        '0x7f.1',
        '0177.0.0.1',
        '127.1',
        '[::ffff:127.0.0.1]',
        '[0:0:0:0:0:0:0:1]',
        'localhost.',
      ],
      ...[
        'localhost:80@evil',
        'localhost@evil.example',
        '[::1]x',
        '[::1]:80x',
        'localhost:',
        'localhost:123456',
        'localhost:80:80',
      ],
      ...['127.0.0.1:4000/evil', 'evil.example', 'localhost.evil.example', ':4000', 'localhost :4000'],
    ];
    for (const host of bad)
      expect({ host, ...(await outcome({ host })) }).toEqual({ host, status: 401, reason: 'host' });
  });
});

describe('request logs', () => {
  it('never contain a key sent in a query parameter or a credential header', async () => {
    const server = await startLoggedServer();
    const logged = () => server.logged();
    try {
      const secret = (n: number): string => `cairn_0123456789abcdef_s3cr3t${n}x`;
      const query = ['api_key', 'access_token', 'token', 'key', 'API_KEY', 'api%5Fkey', 'apikey', 'key[]'].map(
        (name, i) => `${name}=${secret(i)}`,
      );
      const requests: [string, string, Record<string, string>][] = [
        ['GET', `/knowledge/page?q=visible&${query.join('&')}`, {}],
        ['POST', `/graphql?x=1;token=${secret(20)}`, { 'content-type': 'application/json' }],
        [
          'GET',
          '/explorer',
          { 'x-api-key': secret(30), cookie: `session=${secret(31)}`, 'proxy-authorization': `Basic ${secret(32)}` },
        ],
        [
          'GET',
          '/nowhere',
          { authorization: `Bearer ${secret(33)}`, 'X-Auth-Token': secret(34), 'api-key': secret(35) },
        ],
      ];
      for (const [method, path, headers] of requests)
        await raw(server.url, method, path, headers, method === 'POST' ? '{"query":"{ __typename }"}' : undefined);
      await eventually(() => (logged().match(/request completed|request errored/g) ?? []).length >= requests.length, {
        what: 'every request logged',
      });
      expect(logged()).not.toMatch(/s3cr3t/);
      expect(logged()).toContain(
        '"url":"/knowledge/page?q=visible&api_key=[redacted]&access_token=[redacted]&token=[redacted]&key=[redacted]',
      );
      expect(logged()).toContain('"query":{"q":"visible","api_key":"[redacted]"');
      for (const header of ['x-api-key', 'cookie', 'proxy-authorization', 'authorization', 'x-auth-token', 'api-key'])
        expect(logged()).toContain(`"${header}":"[redacted]"`);
      expect(logged()).toContain('"url":"/explorer"');
    } finally {
      await server.close();
    }
  });
});
