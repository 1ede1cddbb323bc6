import http from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSafeFetcher } from '../../importers/http/safeFetch.js';
import type { ResolvedAddress, SafeFetcherOptions } from '../../importers/http/SafeFetcher.js';
import { failureOf } from '../helpers/failureOf.js';

/** A real server on 127.0.0.1 that counts what reaches it. */
interface CountingServer {
  port: number;
  origin: string;
  connections: number;
  requests: http.IncomingMessage[];
  server: net.Server;
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

async function startServer(handler: http.RequestListener): Promise<CountingServer> {
  const server = http.createServer((req, res) => {
    counted.requests.push(req);
    handler(req, res);
  });
  const counted: CountingServer = { port: 0, origin: '', connections: 0, requests: [], server };
  server.on('connection', () => (counted.connections += 1));
  counted.port = await listen(server);
  counted.origin = `http://127.0.0.1:${counted.port}`;
  return counted;
}

const CHUNK = Buffer.alloc(64 * 1024, 'x');
const STREAM_TOTAL = 20 * 1024 * 1024;
let streamClosed: Promise<{ written: number; finished: boolean }> = Promise.resolve({ written: 0, finished: true });
let gzipBomb: Buffer;

function route(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const hops = /^\/r\/(\d+)$/.exec(url.pathname);
  if (hops) {
    const n = Number(hops[1]);
    if (n === 0) res.end('done');
    else res.writeHead(302, { location: `/r/${n - 1}` }).end();
  } else if (url.pathname === '/page') {
    res
      .writeHead(200, { 'content-type': 'Text/HTML; Charset="UTF-8"', 'x-echo-ua': req.headers['user-agent'] ?? '' })
      .end('<h1>hello</h1>');
  } else if (url.pathname === '/to') {
    res.writeHead(302, { location: url.searchParams.get('url') ?? '/' }).end();
  } else if (url.pathname === '/a/b') {
    res.writeHead(301, { location: '../final?x=1' }).end();
  } else if (url.pathname === '/final') {
    res.end('final');
  } else if (url.pathname.startsWith('/status/')) {
    res.writeHead(Number(url.pathname.slice(8))).end('nope');
  } else if (url.pathname === '/big-length') {
    res.writeHead(200, { 'content-length': String(2 * 1024 * 1024) });
    res.write(CHUNK); // and then stall: the client must give up on the header alone
  } else if (url.pathname === '/stream') {
    streamBody(res);
  } else if (url.pathname === '/bomb') {
    res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(gzipBomb.length) }).end(gzipBomb);
  } else if (url.pathname === '/gzip') {
    res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' }).end(zlib.gzipSync('zipped text'));
  } else if (url.pathname === '/bad-gzip') {
    res.writeHead(200, { 'content-encoding': 'gzip' }).end('not gzip at all');
  } else if (url.pathname === '/br') {
    res
      .writeHead(200, { 'content-encoding': 'br', 'content-type': 'text/plain' })
      .end(zlib.brotliCompressSync('brotli text'));
  } else if (url.pathname === '/slow-body') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('first bytes'); // and never more
  } else if (url.pathname !== '/hang') {
    res.writeHead(404).end();
  }
}

/** Chunked body without a length, written as fast as the client reads; records whether it was cut off. */
function streamBody(res: http.ServerResponse): void {
  let written = 0;
  streamClosed = new Promise((resolve) =>
    res.once('close', () => resolve({ written, finished: res.writableFinished })),
  );
  const pump = (): void => {
    while (written < STREAM_TOTAL && !res.destroyed) {
      written += CHUNK.length;
      if (!res.write(CHUNK)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}

// Tripwire on Node's sockets: any connection attempt outside loopback throws before the connect call.
const foreignAttempts: string[] = [];
const originalConnect = net.Socket.prototype.connect;
function installLoopbackTripwire(): void {
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    this.on('connectionAttempt', (address: string) => {
      if (address.startsWith('127.') || address === '::1') return;
      foreignAttempts.push(address);
      throw new Error(`test tripwire: refused a connection to ${address}`);
    });
    return (originalConnect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof net.Socket.prototype.connect;
}

let web: CountingServer;
let other: CountingServer;
let silentTcp: net.Server;
let silentPort: number;
const silentSockets: net.Socket[] = [];

/** A resolver for test names that records every question. */
function fakeDns(table: Record<string, string[] | ((call: number) => string[])>): {
  resolve: (h: string) => Promise<ResolvedAddress[]>;
  calls: string[];
} {
  const calls: string[] = [];
  const resolve = async (host: string): Promise<ResolvedAddress[]> => {
    calls.push(host);
    const entry = table[host];
    const answer = typeof entry === 'function' ? entry(calls.filter((h) => h === host).length) : entry;
    if (!answer) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answer.map((address) => ({ address, family: net.isIP(address) === 6 ? 6 : 4 }));
  };
  return { resolve, calls };
}

function fetcher(overrides: Partial<SafeFetcherOptions> = {}) {
  return createSafeFetcher({
    allowPrivateHosts: [],
    maxBytes: 1024 * 1024,
    connectTimeoutMs: 1000,
    timeoutMs: 3000,
    maxRedirects: 5,
    userAgent: 'CairnTest/1.0',
    ...overrides,
  });
}

/** Asserts the fetch failed with `code` and that `server` saw no connection meanwhile. */
async function expectRefused(promise: Promise<unknown>, code: string, server: CountingServer) {
  const before = server.connections;
  const err = await failureOf(promise);
  expect([err.code, server.connections]).toEqual([code, before]);
  return err;
}

beforeAll(async () => {
  installLoopbackTripwire();
  gzipBomb = zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024));
  web = await startServer(route);
  other = await startServer((_req, res) => res.end('other'));
  silentTcp = net.createServer((socket) => silentSockets.push(socket));
  silentPort = await listen(silentTcp);
});

afterAll(async () => {
  net.Socket.prototype.connect = originalConnect;
  for (const socket of silentSockets) socket.destroy();
  for (const s of [web.server, other.server, silentTcp]) {
    if (s instanceof http.Server) s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
  expect(foreignAttempts).toEqual([]);
});

describe('safe fetcher: address checks before connecting', () => {
  it.each(['127.0.0.1', '127.1', '0x7f.1', '2130706433', '[::1]', '[::ffff:127.0.0.1]', 'localhost'])(
    'blocks http://%s without connecting',
    async (host) => {
      const err = await expectRefused(fetcher().fetch(`http://${host}:${web.port}/page`), 'IMPORT_FETCH_BLOCKED', web);
      expect(err.details).toMatchObject({
        url: expect.stringContaining(`:${web.port}/page`),
        address: expect.any(String),
        reason: expect.stringContaining('loopback'),
      });
      // It says how to allow the host on purpose.
      const shown = new URL(`http://${host}/`).hostname.replace(/^\[|\]$/g, '');
      expect(err.message).toContain(`add ${shown} to CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS`);
    },
  );

  it('fetches an allow-listed IP literal, sending User-Agent and Accept', async () => {
    const res = await fetcher({ allowPrivateHosts: ['127.0.0.1'] }).fetch(`${web.origin}/page`, {
      accept: 'text/html',
    });
    expect(res).toMatchObject({
      status: 200,
      contentType: 'text/html',
      charset: 'utf-8',
      finalUrl: `${web.origin}/page`,
      redirects: [],
    });
    expect(res.body.toString()).toBe('<h1>hello</h1>');
    expect(res.headers['x-echo-ua']).toBe('CairnTest/1.0');
    const seen = web.requests.at(-1);
    expect(seen?.headers).toMatchObject({
      'user-agent': 'CairnTest/1.0',
      accept: 'text/html',
      host: `127.0.0.1:${web.port}`,
    });
    await fetcher({ allowPrivateHosts: ['127.0.0.1'] }).fetch(`${web.origin}/r/0`);
    expect(web.requests.at(-1)?.headers.accept).toBe('*/*');
  });

  it.each([
    'file:///etc/passwd',
    'ftp://127.0.0.1/x',
    'data:text/plain,hi',
    'gopher://127.0.0.1:70/',
    'javascript:alert(1)',
  ])('blocks the URL %s', async (url) => {
    await expectRefused(fetcher({ allowPrivateHosts: ['127.0.0.1'] }).fetch(url), 'IMPORT_FETCH_BLOCKED', web);
  });

  it('blocks credentials in URLs', async () => {
    await expectRefused(
      fetcher({ allowPrivateHosts: ['127.0.0.1'] }).fetch(`http://user:pw@127.0.0.1:${web.port}/page`),
      'IMPORT_FETCH_BLOCKED',
      web,
    );
  });

  it('blocks names that resolve to a private address, or to any private among public ones', async () => {
    const dns = fakeDns({
      'intranet.test': ['10.0.0.5'],
      'mixed.test': ['93.184.215.14', '10.0.0.5'],
      'mixed6.test': ['2606:4700::1111', 'fd00::5'],
    });
    const f = fetcher({ resolve: dns.resolve });
    const direct = await expectRefused(f.fetch('http://intranet.test/'), 'IMPORT_FETCH_BLOCKED', web);
    expect(direct.details).toMatchObject({
      host: 'intranet.test',
      address: '10.0.0.5',
      reason: expect.stringContaining('private'),
    });
    const mixed = await expectRefused(f.fetch('http://mixed.test/'), 'IMPORT_FETCH_BLOCKED', web);
    expect(mixed.details).toMatchObject({ host: 'mixed.test', address: '10.0.0.5' });
    expect((await failureOf(f.fetch('https://mixed6.test/'))).details).toMatchObject({ address: 'fd00::5' });
    expect(dns.calls).toEqual(['intranet.test', 'mixed.test', 'mixed6.test']);
  });
});

describe('safe fetcher: allow-list entries with a port', () => {
  it('allows host:port on that port only, so the allowed server cannot redirect the fetcher to another port', async () => {
    const f = fetcher({ allowPrivateHosts: [`127.0.0.1:${web.port}`] });
    expect((await f.fetch(`${web.origin}/page`)).body.toString()).toBe('<h1>hello</h1>');
    const direct = await expectRefused(f.fetch(`${other.origin}/`), 'IMPORT_FETCH_BLOCKED', other);
    expect(direct.details).toMatchObject({ host: '127.0.0.1', reason: expect.stringContaining('loopback') });
    const before = web.requests.length;
    const otherBefore = other.requests.length;
    await expectRefused(
      f.fetch(`${web.origin}/to?url=${encodeURIComponent(`${other.origin}/`)}`),
      'IMPORT_FETCH_BLOCKED',
      other,
    );
    expect(web.requests.length).toBe(before + 1);
    expect(other.requests).toHaveLength(otherBefore);
  });

  it('a bare host keeps allowing every port, and [::1]:port parses as IPv6 with a port', async () => {
    const bare = fetcher({ allowPrivateHosts: ['127.0.0.1'] });
    expect((await bare.fetch(`${web.origin}/to?url=${encodeURIComponent(`${other.origin}/`)}`)).body.toString()).toBe(
      'other',
    );
    await expectRefused(
      fetcher({ allowPrivateHosts: [`[::1]:${web.port}`] }).fetch(`${web.origin}/page`),
      'IMPORT_FETCH_BLOCKED',
      web,
    );
  });
});

describe('safe fetcher: redirects', () => {
  const docs = (): ReturnType<typeof fakeDns> =>
    fakeDns({ 'docs.internal.test': ['127.0.0.1'], 'intranet.test': ['10.0.0.5'] });
  const docsFetcher = (dns = docs()) => fetcher({ allowPrivateHosts: ['docs.internal.test'], resolve: dns.resolve });
  const via = (target: string): string => `http://docs.internal.test:${web.port}/to?url=${encodeURIComponent(target)}`;

  it('re-checks every hop: an allow-listed host cannot bounce to a loopback address that is not', async () => {
    const before = web.requests.length;
    const otherBefore = other.requests.length;
    const err = await expectRefused(docsFetcher().fetch(via(`${other.origin}/`)), 'IMPORT_FETCH_BLOCKED', other);
    expect(err.details).toMatchObject({ host: '127.0.0.1', address: '127.0.0.1' });
    expect(other.requests).toHaveLength(otherBefore);
    expect(web.requests.length).toBe(before + 1);
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['file:///etc/passwd', 'file scheme'],
    ['http://intranet.test/', 'private'],
    ['http://[fd00:ec2::254]/', 'cloud metadata'],
  ])('blocks a redirect to %s', async (target, reason) => {
    expect(await failureOf(docsFetcher().fetch(via(target)))).toMatchObject({
      code: 'IMPORT_FETCH_BLOCKED',
      message: expect.stringContaining(reason),
    });
  });

  it('follows a relative Location', async () => {
    const res = await fetcher({ allowPrivateHosts: ['127.0.0.1'] }).fetch(`${web.origin}/a/b`);
    expect(res.finalUrl).toBe(`${web.origin}/final?x=1`);
    expect(res.redirects).toEqual([`${web.origin}/a/b`]);
    expect(res.body.toString()).toBe('final');
  });

  it('follows 5 redirects and refuses a 6th', async () => {
    const f = fetcher({ allowPrivateHosts: ['127.0.0.1'] });
    const ok = await f.fetch(`${web.origin}/r/5`);
    expect(ok.redirects).toHaveLength(5);
    expect(ok.body.toString()).toBe('done');
    expect(await failureOf(f.fetch(`${web.origin}/r/6`))).toMatchObject({
      code: 'IMPORT_FETCH_FAILED',
      message: expect.stringContaining('too many redirects'),
    });
    expect(
      (await failureOf(fetcher({ allowPrivateHosts: ['127.0.0.1'], maxRedirects: 1 }).fetch(`${web.origin}/r/2`)))
        .message,
    ).toContain('too many redirects');
  });

  it('pins the vetted address: a second DNS answer (rebinding) is never used', async () => {
    // A non-pinning client would ask again and get 127.0.0.2, where nothing listens.
    const dns = fakeDns({ 'docs.internal.test': (call) => (call === 1 ? ['127.0.0.1'] : ['127.0.0.2']) });
    const res = await docsFetcher(dns).fetch(`http://docs.internal.test:${web.port}/page`);
    expect(res.body.toString()).toBe('<h1>hello</h1>');
    expect(web.requests.at(-1)?.headers.host).toBe(`docs.internal.test:${web.port}`);
    expect(dns.calls).toEqual(['docs.internal.test']);
  });

  it('resolves once per hop', async () => {
    const dns = docs();
    const res = await docsFetcher(dns).fetch(`http://docs.internal.test:${web.port}/r/2`);
    expect(res.redirects).toHaveLength(2);
    expect(dns.calls).toEqual(['docs.internal.test', 'docs.internal.test', 'docs.internal.test']);
  });
});

describe('safe fetcher: size, time and failures', () => {
  const local = (overrides: Partial<SafeFetcherOptions> = {}) =>
    fetcher({ allowPrivateHosts: ['127.0.0.1'], ...overrides });

  it('refuses a Content-Length over the cap before reading the body', async () => {
    const err = await failureOf(local().fetch(`${web.origin}/big-length`));
    expect(err.code).toBe('IMPORT_TOO_LARGE');
    expect(err.details).toMatchObject({ contentLength: 2 * 1024 * 1024, maxBytes: 1024 * 1024 });
    expect((await failureOf(local().fetch(`${web.origin}/page`, { maxBytes: 10 }))).code).toBe('IMPORT_TOO_LARGE');
  });

  it('stops a chunked body as soon as it passes the cap and closes the connection', async () => {
    const err = await failureOf(local().fetch(`${web.origin}/stream`));
    expect(err.code).toBe('IMPORT_TOO_LARGE');
    const server = await streamClosed;
    expect(server.finished).toBe(false);
    expect(server.written).toBeLessThan(STREAM_TOTAL);
  });

  it('caps decompressed bytes (gzip bomb), decodes gzip and br, and reports corrupt gzip', async () => {
    expect(gzipBomb.length).toBeLessThan(1024 * 1024);
    const err = await failureOf(local().fetch(`${web.origin}/bomb`));
    expect(err.code).toBe('IMPORT_TOO_LARGE');
    expect(err.message).toContain('decoded');
    expect((await local().fetch(`${web.origin}/gzip`)).body.toString()).toBe('zipped text');
    expect((await local().fetch(`${web.origin}/br`)).body.toString()).toBe('brotli text');
    expect(await failureOf(local().fetch(`${web.origin}/bad-gzip`))).toMatchObject({
      code: 'IMPORT_FETCH_FAILED',
      message: expect.stringContaining('could not decode'),
    });
  });

  it.each(['/hang', '/slow-body'])('fails %s on the total timeout', async (path) => {
    const started = Date.now();
    const err = await failureOf(local({ timeoutMs: 300 }).fetch(`${web.origin}${path}`));
    expect(err.code).toBe('IMPORT_FETCH_FAILED');
    expect(err.details.reason).toBe('timeout');
    expect(err.message).toContain('total timeout');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('fails on the connect timeout when the TLS handshake never completes', async () => {
    const f = fetcher({ allowPrivateHosts: ['127.0.0.1'], connectTimeoutMs: 200 });
    expect(await failureOf(f.fetch(`https://127.0.0.1:${silentPort}/`))).toMatchObject({
      code: 'IMPORT_FETCH_FAILED',
      details: { reason: 'connect timeout' },
    });
  });

  it('honours the caller abort signal', async () => {
    const err = await failureOf(local().fetch(`${web.origin}/hang`, { signal: AbortSignal.timeout(100) }));
    expect(err).toMatchObject({ code: 'IMPORT_FETCH_FAILED', details: { reason: 'aborted' } });
  });

  it.each([404, 500])('reports HTTP %i with its status', async (status) => {
    const err = await failureOf(local().fetch(`${web.origin}/status/${status}`));
    expect(err).toMatchObject({
      code: 'IMPORT_FETCH_FAILED',
      details: { status },
      message: expect.stringContaining(String(status)),
    });
  });

  it('reports network and TLS errors', async () => {
    const closed = net.createServer();
    const port = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const refused = await failureOf(local().fetch(`http://127.0.0.1:${port}/`));
    expect(refused).toMatchObject({ code: 'IMPORT_FETCH_FAILED', details: { reason: 'ECONNREFUSED' } });
    const tls = await failureOf(local().fetch(`https://127.0.0.1:${web.port}/page`));
    expect(tls.code).toBe('IMPORT_FETCH_FAILED');
    expect(String(tls.details.reason)).toMatch(/SSL|TLS|EPROTO/i);
  });
});
