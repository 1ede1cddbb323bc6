import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '../../src/logger.js';
import { requestLine, requestSummaryText } from '../../src/server/requestLine.js';
import { startLoggedServer, type LoggedServer } from '../helpers/loggedServer.js';
import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// One short record per request at info (the default level), the full one with every header at debug only.

const post = (url: string, key?: string) =>
  fetch(`${url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'a-client-with-a-long-user-agent/1.0',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: JSON.stringify({ query: '{ documents { totalCount } }' }),
  });

/** The NDJSON records logged so far. */
const records = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { level: number; msg: string; request?: Record<string, unknown>; req?: unknown });

describe('request logging at the default level (info)', () => {
  let t: LoggedServer;
  beforeAll(async () => {
    t = await startLoggedServer('info');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('logs one short line per request: method, path, status, time and key name, no headers', async () => {
    expect((await post(t.url)).status).toBe(200);
    await fetch(`${t.url}/healthz`);
    const key = (await t.services.apiKeys.create('docs-bot', 'agent')).key;
    expect((await post(`${t.url}`, key)).status).toBe(200);
    expect((await post(`${t.url}`)).status).toBe(401);
    const lines = records(t.logged()).filter((r) => r.request);
    expect(lines.map((r) => r.msg.replace(/ \d+ms /, ' Nms '))).toEqual([
      'POST /graphql 200 Nms local',
      'POST /graphql 200 Nms key=docs-bot',
      'POST /graphql 401 Nms no key',
    ]);
    expect(lines[1]?.request).toEqual({
      id: expect.any(String),
      method: 'POST',
      path: '/graphql',
      status: 200,
      ms: expect.any(Number),
      key: 'docs-bot',
    });
    expect(t.logged()).not.toContain('a-client-with-a-long-user-agent');
    expect(t.logged()).not.toContain('request completed');
    expect(t.logged()).not.toContain(key);
    // Short: each record well under the ~800 bytes a full one takes.
    for (const line of t.logged().trim().split('\n').slice(-3)) expect(line.length).toBeLessThan(300);
  });
});

describe('request logging at debug', () => {
  let t: LoggedServer;
  beforeAll(async () => {
    t = await startLoggedServer('debug');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('adds the full record, with its (redacted) headers', async () => {
    await post(t.url, 'cairn_0000000000000000_not-a-real-key-but-still-a-secret-0000000');
    const logged = t.logged();
    expect(logged).toContain('request completed');
    expect(logged).toContain('a-client-with-a-long-user-agent');
    expect(logged).toContain('"authorization":"[redacted]"');
    expect(logged).not.toContain('not-a-real-key');
  });
});

describe('request logging on a terminal', () => {
  it('prints one line per request, nothing else', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const logger = createLogger('info', { pretty: true, destination: out });
    const app = express();
    app.use(requestLine(logger));
    app.get('/knowledge', (_req, res) => void res.send('ok'));
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      await fetch(`http://127.0.0.1:${port}/knowledge?api_key=s3cr3t`);
      await new Promise((r) => setImmediate(r));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(text.trim().split('\n')).toEqual([expect.stringMatching(/INFO.*: GET \/knowledge 200 \d+ms no key$/)]);
    expect(text).not.toContain('s3cr3t');
  });

  it('reads as method, path, status, time and who', () => {
    const base = { id: 'r1', method: 'GET', path: '/mcp', ms: 3 };
    expect(requestSummaryText({ ...base, status: 'aborted', key: null })).toBe('GET /mcp aborted 3ms no key');
  });
});
