import { expect } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { projectPath } from '../../src/paths.js';
import { CLI_ARGS, childEnv } from './cli.js';

/** A tool call's result as the SDK client returns it. */
export interface ToolResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

/** An SDK client connected to `<url>/mcp` over Streamable HTTP, sending `key` as a bearer token when given. */
export async function connectHttp(url: string, key?: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'cairn-test', version: '1.0.0' });
  const requestInit = { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit }));
  return client;
}

/** An SDK client that launches `cairn mcp` (the CLI compiled from source) with `env`, as a desktop client would. */
export async function connectStdio(env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...CLI_ARGS, 'mcp'],
    env: childEnv(env) as Record<string, string>,
    cwd: projectPath(),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'cairn-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** Calls a tool. */
export const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> =>
  (await client.callTool({ name, arguments: args })) as ToolResult;

/** Calls a tool that must succeed and returns its structured content. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read nested fields of each tool's own shape
export async function ok<T = Record<string, any>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<T> {
  const result = await call(client, name, args);
  if (result.isError) throw new Error(`${name} failed: ${result.content[0]?.text}`);
  return result.structuredContent as T;
}

/** The Cairn error of a tool error result. */
export function errorOf(result: ToolResult): { code: string; message: string; field?: string } {
  expect(result.isError).toBe(true);
  const error = (result.structuredContent as { error: { code: string; message: string; field?: string } }).error;
  expect(result.content[0]?.text).toBe(`${error.code}: ${error.message}`);
  return error;
}

/** Every tool's name, in listing order. */
export const READ_TOOLS = ['get_document', 'find_entities', 'entity_neighbors', 'shortest_path', 'knowledge_gaps'];
export const AGENT_TOOLS = ['enrich_context', 'search'];
export const WRITE_TOOLS = ['create_document', 'import_url', 'create_entity', 'create_relationship'];

const RUNBOOK =
  'When ACH returns spike, the Payment Service retries the transfer once. Return code R01 means insufficient funds; ' +
  'R02 means the account is closed. Escalate to the Core Team when returns stay above two percent.';

/**
 * Calls every tool once, writes first so the reads have something to find, and checks each answer: the same flow
 * over either transport. `pageUrl` is a page import_url may fetch.
 */
export async function callEveryTool(client: Client, pageUrl: string): Promise<void> {
  await ok(client, 'create_entity', {
    id: 'svc:payments',
    type: 'Service',
    name: 'Payment Service',
    aliases: ['payments'],
  });
  await ok(client, 'create_entity', {
    id: 'svc:ledger',
    type: 'Service',
    name: 'Ledger',
    description: 'Books every transfer.',
  });
  const team = await ok(client, 'create_entity', { id: 'team:core', type: 'Team', name: 'Core Team' });
  expect(team).toMatchObject({ id: 'team:core', type: 'Team', name: 'Core Team' });
  const rel = await ok(client, 'create_relationship', {
    fromId: 'svc:payments',
    type: 'DEPENDS_ON',
    toId: 'svc:ledger',
  });
  expect(rel).toMatchObject({ fromId: 'svc:payments', type: 'DEPENDS_ON', toId: 'svc:ledger' });
  await ok(client, 'create_relationship', { fromId: 'team:core', type: 'OWNS', toId: 'svc:ledger' });
  const doc = await ok(client, 'create_document', {
    id: 'rb:ach',
    title: 'ACH returns runbook',
    content: RUNBOOK,
    tags: ['payments'],
    metadata: { url: 'https://wiki.example.com/ach' },
  });
  expect(doc).toMatchObject({ id: 'rb:ach', chunkCount: 1, documentType: 'OTHER', tags: ['payments'] });
  const imported = await ok(client, 'import_url', { url: pageUrl, tags: ['imported'] });
  expect(imported.status).toBe('SUCCEEDED');
  expect(imported.documents).toHaveLength(1);

  const enriched = await ok(client, 'enrich_context', {
    query: 'What does ACH return code R01 mean for the Payment Service?',
    maxEntities: 5,
  });
  expect(enriched.context).toContain('[1] ACH returns runbook');
  expect(enriched.citations[0]).toMatchObject({ number: 1, documentId: 'rb:ach', url: 'https://wiki.example.com/ach' });
  expect(enriched.entities.map((e: { id: string }) => e.id)).toContain('svc:payments');
  expect(enriched.warnings).toEqual([]);
  const text = (await call(client, 'enrich_context', { query: 'ACH return code R01' })).content[0]?.text;
  expect(text).toContain('insufficient funds');

  const found = await ok(client, 'search', { query: 'account closed return code', topK: 1, mode: 'KEYWORD' });
  expect(found.hits).toHaveLength(1);
  expect(found.hits[0]).toMatchObject({ documentId: 'rb:ach', title: 'ACH returns runbook', position: 0 });
  expect(found.hits[0].content).toContain('R02');

  const head = await ok(client, 'get_document', { id: 'rb:ach', maxChars: 40 });
  expect(head).toMatchObject({
    id: 'rb:ach',
    totalChars: RUNBOOK.length,
    offset: 0,
    truncated: true,
    nextOffset: 40,
    content: RUNBOOK.slice(0, 40),
  });
  const rest = await ok(client, 'get_document', { id: 'rb:ach', offset: 40 });
  expect(rest).toMatchObject({ content: RUNBOOK.slice(40), truncated: false, nextOffset: null });

  const entities = await ok(client, 'find_entities', { nameContains: 'PAY' });
  expect(entities.entities.map((e: { id: string }) => e.id)).toEqual(['svc:payments']);
  const services = await ok(client, 'find_entities', { types: ['Service'], first: 1 });
  expect(services).toMatchObject({ totalCount: 2, hasNextPage: true });
  const next = await ok(client, 'find_entities', { types: ['Service'], first: 1, after: services.endCursor });
  expect(next.entities.map((e: { id: string }) => e.id)).toEqual(['svc:payments']);

  const around = await ok(client, 'entity_neighbors', { id: 'svc:payments', depth: 2 });
  expect(around.neighbors.map((n: { id: string; depth: number }) => [n.id, n.depth])).toEqual([
    ['svc:ledger', 1],
    ['team:core', 2],
  ]);
  const path = await ok(client, 'shortest_path', { fromId: 'svc:payments', toId: 'team:core' });
  expect(path).toMatchObject({ found: true, hops: 2 });
  expect(path.entities.map((e: { id: string }) => e.id)).toEqual(['svc:payments', 'svc:ledger', 'team:core']);
  expect(await ok(client, 'shortest_path', { fromId: 'svc:payments', toId: 'team:core', maxDepth: 1 })).toMatchObject({
    found: false,
  });

  await ok(client, 'enrich_context', { query: 'quarterly zymurgy offsite schedule' });
  const gaps = await ok(client, 'knowledge_gaps', {});
  expect(gaps.gaps.map((g: { query: string }) => g.query)).toContain('quarterly zymurgy offsite schedule');
}
