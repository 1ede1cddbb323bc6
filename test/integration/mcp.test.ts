import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ROLES, type Role } from '../../src/auth/roles.js';
import { functionDefinitions } from '../../src/mcp/functionCalling.js';
import { RESOURCE_PAGE_SIZE } from '../../src/mcp/resources.js';
import { gqlAs } from '../helpers/auth.js';
import { edgeTarget } from '../helpers/databases.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixtureSite.js';
import { AGENT_TOOLS, READ_TOOLS, WRITE_TOOLS, call, callEveryTool, connectHttp, errorOf, ok } from '../helpers/mcp.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

const MAX_DOCUMENT_CHARS = 100_000;
const MAX_RESPONSE_TEXT_CHARS = 150_000;
const MAX_BODY_BYTES = 2_000_000;

/** POSTs one raw JSON-RPC body to /mcp. */
async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

// The transport and the tools' contract do not depend on the store: one database (edgeTarget); the stores' reads and
// writes behind the tools run on both in their own suites, and mcpStdio.test.ts runs every tool on PGlite.
describe.each([edgeTarget()])('MCP over Streamable HTTP ($name)', (db) => {
  let t: TestServer;
  let site: FixtureSite;
  const keys = {} as Record<Role, string>;
  const clients = {} as Record<Role, Client>;

  beforeAll(async () => {
    site = await startFixtureSite({
      '/guide.html': {
        type: 'text/html',
        body: '<html><head><title>Settlement guide</title></head><body><h1>Settlement</h1><p>The Ledger settles transfers nightly.</p></body></html>',
      },
    });
    t = await startTestServer(db, {
      CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      CAIRN_MAX_DOCUMENT_CHARS: String(MAX_DOCUMENT_CHARS),
      CAIRN_MAX_RESPONSE_TEXT_CHARS: String(MAX_RESPONSE_TEXT_CHARS),
      CAIRN_MAX_BODY_BYTES: String(MAX_BODY_BYTES),
    });
    for (const role of ROLES) {
      keys[role] = (await t.services.apiKeys.create(`${role}-key`, role)).key;
      clients[role] = await connectHttp(t.server.url, keys[role]);
    }
  });
  afterAll(async () => {
    for (const client of Object.values(clients)) await client.close();
    await t?.close();
    await site?.close();
  });

  it('lists the tools each role may call, with the schemas `cairn tools` prints', async () => {
    const names = async (role: Role) => (await clients[role].listTools()).tools.map((x) => x.name);
    expect((await names('reader')).sort()).toEqual([...READ_TOOLS].sort());
    expect((await names('agent')).sort()).toEqual([...READ_TOOLS, ...AGENT_TOOLS].sort());
    expect(await names('editor')).toEqual(['enrich_context', 'search', ...READ_TOOLS, ...WRITE_TOOLS]);
    const listed = (await clients.admin.listTools()).tools;
    const exported = functionDefinitions('anthropic') as { name: string; description: string; input_schema: unknown }[];
    expect(listed.map((x) => ({ name: x.name, description: x.description, input_schema: x.inputSchema }))).toEqual(
      exported,
    );
    expect(listed.find((x) => x.name === 'search')?.annotations).toMatchObject({ readOnlyHint: true });
    expect(listed.find((x) => x.name === 'create_document')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
    });
    expect(listed.find((x) => x.name === 'import_url')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: true,
    });
  });

  it('calls every tool', async () => {
    await callEveryTool(clients.editor, `${site.url}/guide.html`);
  });

  it('refuses a request without a key or with an unknown one (401), as GraphQL does', async () => {
    await expect(connectHttp(t.server.url)).rejects.toThrow(/401|UNAUTHENTICATED/);
    const res = await post(t.server.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(((await res.json()) as { error: { data: { code: string } } }).error.data.code).toBe('UNAUTHENTICATED');
    const bad = await post(
      t.server.url,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { authorization: 'Bearer cairn_not-a-key' },
    );
    expect(bad.status).toBe(401);
  });

  it('refuses write tools to reader and agent keys with FORBIDDEN, writing nothing', async () => {
    for (const role of ['reader', 'agent'] as const) {
      const error = errorOf(
        await call(clients[role], 'create_document', { id: `doc:${role}`, title: 'T', content: 'text' }),
      );
      expect(error.code).toBe('FORBIDDEN');
      expect(error.message).toMatch(
        new RegExp(`create_document tool needs the editor role; this key \\(${role}-key\\) is ${role}`),
      );
      expect(errorOf(await call(clients.admin, 'get_document', { id: `doc:${role}` })).code).toBe('NOT_FOUND');
    }
    expect(errorOf(await call(clients.reader, 'enrich_context', { query: 'ACH' })).code).toBe('FORBIDDEN');
    expect(errorOf(await call(clients.agent, 'create_entity', { type: 'Service', name: 'Sneaky' })).code).toBe(
      'FORBIDDEN',
    );
  });

  it('answers bad arguments with BAD_USER_INPUT naming the argument', async () => {
    const bad = async (name: string, args: Record<string, unknown>) => errorOf(await call(clients.admin, name, args));
    expect(await bad('search', { query: 5 })).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'query',
      message: 'query: expected string, received number',
    });
    expect(await bad('search', {})).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'query',
      message: 'query: is required',
    });
    expect(await bad('search', { query: '   ' })).toMatchObject({
      field: 'query',
      message: 'query: must not be empty',
    });
    expect(await bad('search', { query: 'x', topK: 2.5 })).toMatchObject({ field: 'topK' });
    expect(await bad('search', { query: 'x', expandNeighbors: 11 })).toMatchObject({
      field: 'expandNeighbors',
      message: 'expandNeighbors: must be an integer from 0 to 10',
    });
    expect(await bad('search', { query: 'x', filter: { tags: 'a++' } })).toMatchObject({ field: 'filter.tags' });
    expect(await bad('search', { query: 'x', filter: { types: ['MEMO'] } })).toMatchObject({
      field: 'filter.types[0]',
    });
    expect(await bad('enrich_context', { query: 'x', graphDepth: 9 })).toMatchObject({
      field: 'graphDepth',
      message: 'graphDepth: must be an integer from 1 to 3',
    });
    expect(await bad('enrich_context', { query: 'x', topk: 3 })).toMatchObject({
      message: expect.stringContaining('unknown argument "topk"'),
    });
    expect(await bad('entity_neighbors', { id: 'svc:payments', limit: 0 })).toMatchObject({ field: 'limit' });
    expect(await bad('entity_neighbors', { id: 'svc:nope' })).toMatchObject({
      code: 'NOT_FOUND',
      message: 'Entity "svc:nope" does not exist',
    });
    expect(await bad('shortest_path', { fromId: 'svc:payments', toId: 'x y' })).toMatchObject({ field: 'toId' });
    expect(await bad('find_entities', { types: ['service'] })).toMatchObject({ field: 'types[0]' });
    expect(await bad('find_entities', { after: 'not-a-cursor' })).toMatchObject({ field: 'after' });
    expect(await bad('knowledge_gaps', { first: -1 })).toMatchObject({ field: 'first' });
    expect(await bad('get_document', { id: 'nope:1' })).toMatchObject({ code: 'NOT_FOUND' });
    expect(await bad('get_document', { id: 'rb:ach', maxChars: MAX_RESPONSE_TEXT_CHARS + 1 })).toMatchObject({
      field: 'maxChars',
      message: `maxChars: must be an integer from 1 to ${MAX_RESPONSE_TEXT_CHARS}`,
    });
    expect(await bad('create_document', { title: 'T', content: 'c', expiresAt: 'soon' })).toMatchObject({
      field: 'expiresAt',
    });
    expect(await bad('create_document', { title: 'T', content: 'c', tags: ['Bad Tag'] })).toMatchObject({
      field: 'tags',
    });
    expect(await bad('create_entity', { type: 'service', name: 'x' })).toMatchObject({ field: 'type' });
    expect(
      await bad('create_relationship', { fromId: 'svc:payments', type: 'DEPENDS_ON', toId: 'svc:gone' }),
    ).toMatchObject({ code: 'NOT_FOUND' });
    expect(await bad('import_url', { url: 'not a url' })).toMatchObject({ field: 'url' });
    expect(await bad('create_entity', { id: 'svc:payments', type: 'Service', name: 'Again' })).toMatchObject({
      code: 'CONFLICT',
    });
    const unknown = await call(clients.admin, 'drop_everything', {});
    expect(errorOf(unknown)).toMatchObject({ code: 'BAD_USER_INPUT', field: 'name' });
  });

  it('refuses huge arguments with a short error and nothing written, and a body over the limit with 413', async () => {
    const content = 'x'.repeat(MAX_DOCUMENT_CHARS + 1);
    const tooLong = errorOf(await call(clients.admin, 'create_document', { id: 'doc:huge', title: 'Huge', content }));
    expect(tooLong).toMatchObject({ code: 'BAD_USER_INPUT', field: 'content' });
    expect(tooLong.message).toMatch(/is 100001 characters; the limit is 100000 \(CAIRN_MAX_DOCUMENT_CHARS\)/);
    expect(errorOf(await call(clients.admin, 'get_document', { id: 'doc:huge' })).code).toBe('NOT_FOUND');
    const query = errorOf(await call(clients.admin, 'search', { query: 'q'.repeat(MAX_DOCUMENT_CHARS) }));
    expect(query).toMatchObject({ field: 'query', message: 'query: must be at most 8000 characters' });
    const body = {
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'search', arguments: { query: 'q'.repeat(MAX_BODY_BYTES) } },
    };
    const res = await post(t.server.url, body, { authorization: `Bearer ${keys.admin}` });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { data: { code: string } } }).error.data.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await clients.admin.listTools()).tools.length).toBe(11);
  });

  it('keeps answers within the response text budget, failing as GraphQL does', async () => {
    const words = Array.from({ length: 14_000 }, (_, i) => `budget${i % 50}`).join(' ');
    await ok(clients.admin, 'create_document', {
      id: 'doc:budget',
      title: 'Budget',
      content: words.slice(0, MAX_DOCUMENT_CHARS),
    });
    const args = { query: 'budget1 budget2', topK: 50, expandNeighbors: 10, filter: { text: 'budget1' } };
    const error = errorOf(await call(clients.agent, 'search', args));
    expect(error).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      max: MAX_RESPONSE_TEXT_CHARS,
      env: 'CAIRN_MAX_RESPONSE_TEXT_CHARS',
    });
    const gql = (
      await gqlAs(
        t.server.url,
        keys.agent,
        'query($input: SearchInput!) { search(input: $input) { chunk { content } neighbors { content } } }',
        { input: args },
      )
    ).body;
    expect(gql.errors?.[0]?.extensions?.code).toBe(error.code);
    expect(gql.errors?.[0]?.message).toBe(error.message);
    // get_document reads long texts in pieces instead.
    expect(await ok(clients.agent, 'get_document', { id: 'doc:budget', maxChars: 50_000 })).toMatchObject({
      truncated: true,
      nextOffset: 50_000,
    });
  });

  it('refuses batches, non-JSON bodies and GET like the GraphQL endpoint', async () => {
    const auth = { authorization: `Bearer ${keys.admin}` };
    const batch = await post(
      t.server.url,
      [
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ],
      auth,
    );
    expect(batch.status).toBe(400);
    expect(await post(t.server.url, '{"jsonrpc":', auth).then((r) => r.status)).toBe(400);
    const get = await fetch(`${t.server.url}/mcp`, { headers: auth });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('lists documents and entities as resources, page by page, and reads them', async () => {
    const many = Array.from({ length: RESOURCE_PAGE_SIZE + 5 }, (_, i) => ({
      id: `concept:${String(i).padStart(3, '0')}`,
      type: 'Concept',
      name: `Concept ${String(i).padStart(3, '0')}`,
    }));
    await t.services.graph.upsertGraph(many, []);
    const uris: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await clients.reader.listResources(cursor ? { cursor } : {});
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    const documents = (await t.services.documents.stats()).documentCount;
    const entities = (await t.services.graph.stats()).entityCount;
    expect(uris.filter((u) => u.startsWith('cairn://documents/'))).toHaveLength(documents);
    expect(uris.filter((u) => u.startsWith('cairn://entities/'))).toHaveLength(entities);
    expect(new Set(uris).size).toBe(uris.length);
    expect(uris).toContain('cairn://documents/rb%3Aach');
    expect(pages).toBeGreaterThanOrEqual(3);

    const templates = (await clients.reader.listResourceTemplates()).resourceTemplates.map((x) => x.uriTemplate);
    expect(templates).toEqual(['cairn://documents/{id}', 'cairn://entities/{id}']);
    const doc = await clients.reader.readResource({ uri: 'cairn://documents/rb%3Aach' });
    expect(doc.contents[0]).toMatchObject({
      mimeType: 'text/markdown',
      text: expect.stringContaining('R01 means insufficient funds'),
    });
    const entity = await clients.reader.readResource({ uri: 'cairn://entities/svc%3Aledger' });
    const body = JSON.parse((entity.contents[0] as { text: string }).text) as {
      name: string;
      relationships: { type: string }[];
    };
    expect(body.name).toBe('Ledger');
    expect(body.relationships.map((r) => r.type).sort()).toEqual(['DEPENDS_ON', 'OWNS']);
    await expect(clients.reader.readResource({ uri: 'cairn://documents/nope%3A1' })).rejects.toThrow(
      /NOT_FOUND: document "nope:1" does not exist/,
    );
    await expect(clients.reader.listResources({ cursor: 'garbage' })).rejects.toThrow(/BAD_USER_INPUT: cursor/);
  });

  it('fills the answer prompt with Cairn context, for roles that may enrich', async () => {
    expect((await clients.agent.listPrompts()).prompts.map((p) => p.name)).toEqual(['answer_with_cairn_context']);
    const prompt = await clients.agent.getPrompt({
      name: 'answer_with_cairn_context',
      arguments: { question: 'What does R02 mean?' },
    });
    const text = (prompt.messages[0]?.content as { text: string }).text;
    expect(text).toContain('[1] ACH returns runbook');
    expect(text).toContain('Question: What does R02 mean?');
    await expect(
      clients.reader.getPrompt({ name: 'answer_with_cairn_context', arguments: { question: 'x' } }),
    ).rejects.toThrow(/FORBIDDEN/);
    await expect(
      clients.agent.getPrompt({ name: 'answer_with_cairn_context', arguments: { question: ' ' } }),
    ).rejects.toThrow(/BAD_USER_INPUT: question: must not be empty/);
  });
});
