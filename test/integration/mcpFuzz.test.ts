import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import fc from 'fast-check';
import { CAIRN_TOOLS, argumentsSchema } from '../../src/mcp/tools.js';
import { edgeTarget } from '../helpers/databases.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixtureSite.js';
import { call, connectHttp, type ToolResult } from '../helpers/mcp.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

// A property pass over MCP tool arguments: random tools with arguments drawn from each tool's own JSON Schema (right
// types with edge cases, wrong types, missing and unknown arguments) against a real server on PGlite. Whatever the
// input, the call must come back as a result or a tool error with a proper Cairn code: never a transport or protocol
// error, never INTERNAL_SERVER_ERROR. Reproduce a failure with CAIRN_FUZZ_SEED=<seed>.

const SEED = Number(process.env.CAIRN_FUZZ_SEED ?? 20261126);
const RUNS = Number(process.env.CAIRN_FUZZ_RUNS ?? 500);

type Schema = {
  type?: string;
  enum?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
};

// Plausible values (ids and names that exist, words the documents hold), so that many calls get past validation.
const PLAUSIBLE = [
  'svc:ledger',
  'svc:billing',
  'rb:ach',
  'ledger',
  'ACH returns',
  'Service',
  'DEPENDS_ON',
  'payments',
  'Billing retries',
];

const STRINGS = [
  '',
  ' ',
  'svc:ledger',
  'rb:ach',
  'nope:1',
  'Service',
  'DEPENDS_ON',
  'a+b|c',
  'x'.repeat(9000),
  '\u0000',
  '\ud800',
  'http://127.0.0.1:1/x',
  'file:///etc/passwd',
  '2030-01-01T00:00:00Z',
];
const NUMBERS = [0, -1, 1, 3, 7, 101, 1e9, 2 ** 53, 0.5, Number.MAX_VALUE, -0];

/** Values for one JSON Schema: mostly of its type with edge cases, sometimes anything at all. */
function valueFor(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const wrong = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.string(),
    fc.array(fc.string(), { maxLength: 2 }),
    fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
  );
  let right: fc.Arbitrary<unknown>;
  if (schema.enum) right = fc.constantFrom(...schema.enum, 'BOGUS', schema.enum[0]?.toString().toLowerCase());
  else if (schema.type === 'string') {
    right = fc.oneof(
      { arbitrary: fc.constantFrom(...PLAUSIBLE), weight: 4 },
      { arbitrary: fc.constantFrom(...STRINGS), weight: 1 },
      { arbitrary: fc.string({ maxLength: 40 }), weight: 1 },
      { arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }), weight: 1 },
    );
  } else if (schema.type === 'integer')
    right = fc.oneof(
      { arbitrary: fc.integer({ min: 1, max: 3 }), weight: 3 },
      { arbitrary: fc.constantFrom(...NUMBERS), weight: 1 },
      { arbitrary: fc.integer(), weight: 1 },
    );
  else if (schema.type === 'number') right = fc.oneof(fc.constantFrom(...NUMBERS), fc.double());
  else if (schema.type === 'boolean') right = fc.boolean();
  else if (schema.type === 'array') right = fc.array(valueFor(schema.items ?? {}, depth + 1), { maxLength: 4 });
  else if (schema.type === 'object' && schema.properties && depth < 2) right = argumentsFor(schema, depth + 1);
  else
    right = fc.oneof(
      fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
      fc.constant({ nested: { deep: [1, 'two', null] } }),
    );
  return fc.oneof({ arbitrary: right, weight: 15 }, { arbitrary: wrong, weight: 1 });
}

/** An arguments object for a schema: required ones mostly present, optional ones half the time, rarely an unknown one. */
function argumentsFor(schema: Schema, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.entries(schema.properties ?? {});
  const presence = (name: string) => (schema.required?.includes(name) ? [1, 15] : [1, 1]);
  const parts = Object.fromEntries(
    props.map(([name, s]) => {
      const [absent, present] = presence(name) as [number, number];
      return [
        name,
        fc.oneof(
          { arbitrary: fc.constant(undefined), weight: absent },
          { arbitrary: valueFor(s, depth), weight: present },
        ),
      ];
    }),
  );
  const unknownKey = fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 20 },
    { arbitrary: fc.constantFrom('unknown', 'Query', '__proto__'), weight: 1 },
  );
  return fc.tuple(fc.record(parts), unknownKey).map(([args, extra]) => {
    const clean = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
    return extra ? { ...clean, [extra]: 1 } : clean;
  });
}

const callArb = fc.oneof(
  ...CAIRN_TOOLS.map((tool) =>
    argumentsFor(argumentsSchema(tool) as Schema).map((args) => ({ name: tool.name, args })),
  ),
  fc.record({
    name: fc.string({ maxLength: 20 }),
    args: fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
  }),
);

/** Why a result is a server bug, or undefined when it is a proper answer. */
function defect(result: ToolResult): string | undefined {
  if (!result.isError) return undefined;
  const error = (result.structuredContent as { error?: { code?: string; message?: string } } | undefined)?.error;
  if (!error?.code || !error.message) return `tool error without a code: ${JSON.stringify(result).slice(0, 300)}`;
  if (error.code === 'INTERNAL_SERVER_ERROR') return `INTERNAL_SERVER_ERROR: ${error.message}`;
  if (/\n\s+at /.test(error.message)) return 'a stack trace leaked';
  return undefined;
}

describe('MCP tool-argument property pass (PGlite)', () => {
  let t: TestServer;
  let trap: FixtureSite;
  let client: Client;

  beforeAll(async () => {
    t = await startTestServer(edgeTarget(), { CAIRN_RATE_LIMIT_PER_SECOND: '0' });
    // The SSRF-safe fetcher must never reach loopback: this site counts any hit.
    trap = await startFixtureSite({ '/x': { body: '<html><body>trap</body></html>', type: 'text/html' } });
    await t.services.graph.upsertGraph(
      [
        { id: 'svc:ledger', type: 'Service', name: 'Ledger', aliases: ['ledger'] },
        { id: 'svc:billing', type: 'Service', name: 'Billing' },
      ],
      [{ fromId: 'svc:billing', toId: 'svc:ledger', type: 'DEPENDS_ON' }],
    );
    await t.services.documents.create({
      id: 'rb:ach',
      title: 'ACH runbook',
      content: 'Billing retries ACH returns through the Ledger.',
      documentType: 'manual',
      source: null,
      tags: ['payments'],
      metadata: {},
      expiresAt: null,
      entityIds: [],
    });
    client = await connectHttp(t.server.url);
  });
  afterAll(async () => {
    await client?.close();
    await trap?.close();
    await t?.close();
  });

  it('answers every call with a result or a coded tool error, never a crash or INTERNAL_SERVER_ERROR', async () => {
    const outcomes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(callArb, async ({ name, args }) => {
        const result = await call(client, name, args);
        const code = result.isError
          ? ((result.structuredContent as { error?: { code?: string } }).error?.code ?? '?')
          : 'ok';
        outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
        const problem = defect(result);
        if (problem) throw new Error(`${name}(${JSON.stringify(args).slice(0, 500)}): ${problem}`);
      }),
      { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: 150_000 },
    );
    // The pass must reach the services, not only the argument parser: some calls succeed, some fail deeper.
    expect(outcomes.get('ok') ?? 0).toBeGreaterThan(RUNS / 20);
    expect([...outcomes.keys()].filter((c) => c !== 'ok' && c !== 'BAD_USER_INPUT').length).toBeGreaterThan(0);
    expect(trap.hits.size).toBe(0);
    expect((await fetch(`${t.server.url}/healthz`)).status).toBe(200);
    expect((await client.listTools()).tools).toHaveLength(CAIRN_TOOLS.length);
  });
});
