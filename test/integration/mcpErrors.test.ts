import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { edgeTarget } from '../helpers/databases.js';
import { WRITE_TOOLS, call, connectHttp, errorOf } from '../helpers/mcp.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

const MAX_BODY_BYTES = 20_000;

/** A JSON-RPC error response as /mcp sends it. */
interface RpcErrorBody {
  jsonrpc: string;
  id: string | number | null;
  error: { code: number; message: string; data?: { code?: string; [k: string]: unknown } };
}

/** POSTs one raw body to /mcp and returns the status, headers and parsed JSON. */
async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: RpcErrorBody & { result?: Record<string, unknown> } }> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as never };
}

/** Expects a JSON-RPC error object (never GraphQL's `{"errors": [...]}`) with this code and Cairn code. */
function expectRpcError(json: RpcErrorBody, rpcCode: number, cairnCode: string, id: string | number | null = null) {
  expect(json).not.toHaveProperty('errors');
  expect(json.jsonrpc).toBe('2.0');
  expect(json.id).toBe(id);
  expect(json.error.code).toBe(rpcCode);
  expect(json.error.data?.code).toBe(cairnCode);
  expect(json.error.message.startsWith(`${cairnCode}: `)).toBe(true);
  expect(json.error.message).not.toMatch(/MCP error/);
}

// The error shapes do not depend on the store: one database.
const store = edgeTarget();

describe('MCP errors as JSON-RPC error objects', () => {
  let t: TestServer;
  let admin: string;
  let agent: string;
  let agentClient: Client;
  const as = (key: string) => ({ authorization: `Bearer ${key}` });

  beforeAll(async () => {
    t = await startTestServer(store, { CAIRN_MAX_BODY_BYTES: String(MAX_BODY_BYTES) });
    admin = (await t.services.apiKeys.create('admin-key', 'admin')).key;
    agent = (await t.services.apiKeys.create('agent-key', 'agent')).key;
    agentClient = await connectHttp(t.server.url, agent);
  });
  afterAll(async () => {
    await agentClient?.close();
    await t?.close();
  });

  it('answers 401 without a key as a JSON-RPC error, keeping the status and WWW-Authenticate', async () => {
    const res = await post(t.server.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expectRpcError(res.json, -32000, 'UNAUTHENTICATED');
  });

  it('answers a batch (400) and a body that is not JSON (400) with Invalid Request and Parse error', async () => {
    const batch = await post(t.server.url, [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }], as(admin));
    expect(batch.status).toBe(400);
    expectRpcError(batch.json, -32600, 'BAD_REQUEST');
    const broken = await post(t.server.url, '{"jsonrpc":', as(admin));
    expect(broken.status).toBe(400);
    expectRpcError(broken.json, -32700, 'BAD_REQUEST');
  });

  it('answers GET and DELETE (405) with a JSON-RPC error and Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${t.server.url}/mcp`, { method, headers: as(admin) });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expectRpcError((await res.json()) as RpcErrorBody, -32000, 'BAD_REQUEST');
    }
  });

  it('answers a body over CAIRN_MAX_BODY_BYTES (413) with a JSON-RPC error', async () => {
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search', arguments: { query: 'q'.repeat(MAX_BODY_BYTES) } },
    };
    const res = await post(t.server.url, body, as(admin));
    expect(res.status).toBe(413);
    expectRpcError(res.json, -32000, 'PAYLOAD_TOO_LARGE');
    expect(res.json.error.data?.limit).toBe(MAX_BODY_BYTES);
  });

  it('refuses messages that are not JSON-RPC requests with Invalid Request (-32600), saying what is wrong', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /jsonrpc.*"2\.0"/],
      ['"tools/list"', /one JSON-RPC message/],
      [{ jsonrpc: '2.0', id: { n: 1 }, method: 'tools/list' }, /"id" must be a string or an integer/],
      [{ jsonrpc: '2.0', id: 1.5, method: 'tools/list' }, /"id" must be a string or an integer/],
      [{ jsonrpc: '2.0', id: 1, method: 7 }, /"method" must be a string/],
      [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: 'all' }, /"params" must be an object/],
      [{ jsonrpc: '1.0', id: 1, method: 'tools/list' }, /jsonrpc.*"2\.0"/],
    ];
    for (const [body, reason] of cases) {
      const res = await post(t.server.url, body, as(admin));
      expect(res.status).toBe(400);
      expectRpcError(res.json, -32600, 'BAD_REQUEST');
      expect(res.json.error.message).toMatch(reason);
    }
  });

  it('answers tools/call with arguments that are not an object with Invalid Params (-32602) and a readable message', async () => {
    const res = await post(
      t.server.url,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search', arguments: 'query=ach' } },
      as(agent),
    );
    expectRpcError(res.json, -32602, 'BAD_USER_INPUT', 7);
    expect(res.json.error.message).toBe('BAD_USER_INPUT: params.arguments: expected an object, received string');
    expect(res.json.error.data?.field).toBe('params.arguments');
    const noName = await post(t.server.url, { jsonrpc: '2.0', id: 'x', method: 'tools/call', params: {} }, as(agent));
    expectRpcError(noName.json, -32602, 'BAD_USER_INPUT', 'x');
    expect(noName.json.error.message).toBe('BAD_USER_INPUT: params.name: is required');
  });

  it('says the error code once: the wire message has no "MCP error" prefix, so a client shows one', async () => {
    const res = await post(
      t.server.url,
      { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'cairn://documents/missing' } },
      as(agent),
    );
    expectRpcError(res.json, -32002, 'NOT_FOUND', 2);
    expect(res.json.error.message).toBe('NOT_FOUND: document "missing" does not exist');
    const thrown = await agentClient.readResource({ uri: 'cairn://documents/missing' }).catch((e: Error) => e);
    expect((thrown as Error).message).toBe('MCP error -32002: NOT_FOUND: document "missing" does not exist');
  });

  it('lists only the tools the key may call when a tool name is unknown', async () => {
    const error = errorOf(await call(agentClient, 'serch', { query: 'x' }));
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.message).toContain('there is no tool "serch"; the tools are enrich_context, search, get_document');
    for (const tool of WRITE_TOOLS) expect(error.message).not.toContain(tool);
  });

  it('gives no next cursor once the documents are listed and no entity exists', async () => {
    const empty = await agentClient.listResources();
    expect(empty).toEqual({ resources: [] });
    await t.services.documents.create({
      id: 'doc:one',
      title: 'One',
      content: 'A single document.',
      documentType: 'other',
      source: null,
      tags: [],
      metadata: {},
      expiresAt: null,
    });
    const documents = await agentClient.listResources();
    expect(documents.resources.map((r) => r.uri)).toEqual(['cairn://documents/doc%3Aone']);
    expect(documents.nextCursor).toBeUndefined();
    await t.services.graph.createEntity({ id: 'svc:x', type: 'Service', name: 'X' });
    const withEntity = await agentClient.listResources();
    expect(withEntity.nextCursor).toEqual(expect.any(String));
    const entities = await agentClient.listResources({ cursor: withEntity.nextCursor! });
    expect(entities.resources.map((r) => r.uri)).toEqual(['cairn://entities/svc%3Ax']);
    expect(entities.nextCursor).toBeUndefined();
  });
});
