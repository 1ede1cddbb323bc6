import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { lockFileFor } from '../../src/db/dataDirLock.js';
import { projectPath } from '../../src/paths.js';
import { CLI_ARGS, childEnv, runCli, startCliServer } from '../helpers/cli.js';
import { scratchPglite, type ScratchDatabase } from '../helpers/databases.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixtureSite.js';
import {
  AGENT_TOOLS,
  READ_TOOLS,
  WRITE_TOOLS,
  call,
  callEveryTool,
  connectStdio,
  errorOf,
  ok,
} from '../helpers/mcp.js';

const BASE_ENV = { CAIRN_EMBEDDING_PROVIDER: 'hashing', CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0', CAIRN_LOG_LEVEL: 'warn' };

// A local MCP client starts `cairn mcp` on the embedded store: the transport does not depend on the store, and
// test/integration/mcp.test.ts runs every tool on both databases.
describe('cairn mcp over stdio (pglite)', () => {
  let database: ScratchDatabase;
  let site: FixtureSite;
  let client: Client;
  let stderr: () => string;
  beforeAll(async () => {
    site = await startFixtureSite({
      '/faq.html': {
        type: 'text/html',
        body: '<html><head><title>Payments FAQ</title></head><body><p>Transfers settle nightly.</p></body></html>',
      },
    });
    database = await scratchPglite();
    ({ client, stderr } = await connectStdio({
      ...BASE_ENV,
      ...database.env,
      CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    }));
  });
  afterAll(async () => {
    await client?.close();
    await site?.close();
    await database?.drop();
  });

  it('lists every tool for the local user', async () => {
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      ...AGENT_TOOLS,
      ...READ_TOOLS,
      ...WRITE_TOOLS,
    ]);
  });

  it('calls every tool', async () => {
    await callEveryTool(client, `${site.url}/faq.html`);
  });

  it('answers bad and huge arguments with tool errors naming the argument', async () => {
    expect(errorOf(await call(client, 'entity_neighbors', { id: 'svc:payments', depth: 4 }))).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'depth',
    });
    expect(errorOf(await call(client, 'search', { query: 'q'.repeat(1_000_000) }))).toMatchObject({
      field: 'query',
      message: 'query: must be at most 8000 characters',
    });
    expect(errorOf(await call(client, 'create_entity', { name: 'No type' }))).toMatchObject({
      field: 'type',
      message: 'type: is required',
    });
  });

  it('lists and reads resources', async () => {
    const { resources, nextCursor } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain('cairn://documents/rb%3Aach');
    const entities = await client.listResources({ cursor: nextCursor! });
    expect(entities.resources.map((r) => r.uri)).toEqual([
      'cairn://entities/team%3Acore',
      'cairn://entities/svc%3Aledger',
      'cairn://entities/svc%3Apayments',
    ]);
    const read = await client.readResource({ uri: 'cairn://entities/svc%3Apayments' });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({
      id: 'svc:payments',
      aliases: ['payments'],
    });
  });

  it('keeps stdout for the protocol: logs go to stderr', () => {
    expect(stderr()).not.toMatch(/"jsonrpc"/);
  });

  it('closes the database when the client disconnects: the next launch finds the writes', async () => {
    await client.close();
    ({ client } = await connectStdio({ ...BASE_ENV, ...database.env }));
    expect(await ok(client, 'get_document', { id: 'rb:ach', maxChars: 20 })).toMatchObject({
      id: 'rb:ach',
      truncated: true,
    });
  });
});

describe('cairn mcp on a PGlite folder a server holds', () => {
  let database: ScratchDatabase;
  let server: Awaited<ReturnType<typeof startCliServer>> | undefined;
  beforeAll(async () => {
    database = await scratchPglite();
    server = await startCliServer({ ...BASE_ENV, ...database.env, CAIRN_LOG_LEVEL: 'info' });
  });
  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await new Promise((r) => server?.child.once('exit', r));
    await database?.drop();
  });

  it('exits with a message pointing the client at the server’s /mcp', async () => {
    const lock = lockFileFor(path.join(database.env.CAIRN_DATA_DIR!, 'pglite'));
    expect(JSON.parse(fs.readFileSync(lock, 'utf8'))).toMatchObject({ url: server!.url, pid: server!.child.pid });
    const { code, stdout, stderr } = await runCli(['mcp'], { ...BASE_ENV, ...database.env });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(`Point your MCP client at that server instead: ${server!.url}/mcp`);
    expect(stderr).toContain(`is held by a running Cairn process (pid ${server!.child.pid})`);
  });
});

describe('cairn mcp with an unreachable embedding backend', () => {
  let client: Client;
  let database: ScratchDatabase | undefined;
  beforeAll(async () => {
    database = await scratchPglite();
    ({ client } = await connectStdio({
      ...BASE_ENV,
      ...database.env,
      CAIRN_EMBEDDING_PROVIDER: 'openai',
      CAIRN_EMBEDDING_BASE_URL: 'http://127.0.0.1:9/v1',
      CAIRN_EMBEDDING_API_KEY: 'test',
      CAIRN_EMBEDDING_MODEL: 'm',
      CAIRN_EMBEDDING_DIMENSIONS: '8',
      CAIRN_EMBEDDING_MAX_RETRIES: '0',
      CAIRN_EMBEDDING_TIMEOUT_MS: '500',
    }));
  });
  afterAll(async () => {
    await client?.close();
    await database?.drop();
  });

  it('still answers enrich_context from the graph, with a warning', async () => {
    expect(errorOf(await call(client, 'create_document', { title: 'T', content: 'text' })).code).toBe(
      'EMBEDDING_UNAVAILABLE',
    );
    await call(client, 'create_entity', { id: 'svc:x', type: 'Service', name: 'Payment Service' });
    const result = await call(client, 'enrich_context', { query: 'payment service status' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      entities: [{ id: 'svc:x' }],
      warnings: [expect.stringMatching(/documents lane failed/)],
    });
  });
});

/** Runs `cairn mcp` on a fresh store with `lines` piped to stdin; its answers, one per stdout line, and exit code. */
async function pipedMcp<T>(lines: readonly string[]): Promise<{ answers: T[]; code: number | null }> {
  const database = await scratchPglite();
  const child = spawn(process.execPath, [...CLI_ARGS, 'mcp'], {
    env: childEnv({ ...BASE_ENV, ...database.env }),
    cwd: projectPath(),
  });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.stdin.end(`${lines.join('\n')}\n`);
  const code = await exited;
  await database.drop();
  return {
    code,
    answers: stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as T),
  };
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } },
};

describe('cairn mcp with piped input', () => {
  it('answers every request read before stdin ends, then exits 0', async () => {
    const messages = [
      INITIALIZE,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'create_entity', arguments: { id: 'svc:piped', type: 'Service', name: 'Piped' } },
      },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'knowledge_gaps', arguments: {} } },
    ];
    const { answers, code } = await pipedMcp<{ id: number; result: { structuredContent?: Record<string, unknown> } }>(
      messages.map((m) => JSON.stringify(m)),
    );
    expect(code).toBe(0);
    // Requests run concurrently: the answers may come in any order.
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3]);
    expect(answers.find((a) => a.id === 2)?.result.structuredContent).toMatchObject({ id: 'svc:piped' });
    expect(answers.find((a) => a.id === 3)?.result.structuredContent).toMatchObject({ gaps: [] });
  });
});

describe('cairn mcp refusing what is not a JSON-RPC request', () => {
  it('answers unreadable lines with Parse error and Invalid Request (id null), then serves the next request', async () => {
    const lines = [
      JSON.stringify(INITIALIZE),
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      '{}',
      JSON.stringify({ jsonrpc: '2.0', id: { n: 1 }, method: 'tools/list' }),
      '{"jsonrpc":',
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search', arguments: 'q=ach' } }),
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'cairn://documents/none' } }),
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'resources/list' }),
    ];
    type Answer = { id: number | null; result?: unknown; error?: { code: number; message: string; data?: unknown } };
    const { answers, code } = await pipedMcp<Answer>(lines);
    expect(code).toBe(0);
    const refusals = answers.filter((a) => a.id === null).map((a) => a.error);
    expect(refusals.map((e) => e?.code).sort()).toEqual([-32700, -32600, -32600].sort());
    for (const error of refusals) {
      expect(error?.message).toMatch(/^BAD_REQUEST: A line is not/);
      expect(error?.data).toMatchObject({ code: 'BAD_REQUEST' });
    }
    const byId = (id: number) => answers.find((a) => a.id === id);
    expect(byId(2)?.error).toMatchObject({
      code: -32602,
      message: 'BAD_USER_INPUT: params.arguments: expected an object, received string',
    });
    expect(byId(3)?.error).toMatchObject({ code: -32002, message: 'NOT_FOUND: document "none" does not exist' });
    expect(byId(4)?.result).toEqual({ resources: [] });
  });
});
