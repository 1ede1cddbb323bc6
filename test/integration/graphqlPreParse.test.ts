import { afterEach, describe, expect, it } from '@jest/globals';
import { edgeTarget } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

// graphql-js parses recursively, one level per nesting level: a document thousands of levels deep overflowed the
// stack on a freshly started server (GRAPHQL_PARSE_FAILED, "Maximum call stack size exceeded") before the token cap
// or the depth limit could answer. Each case below is the first request of a server started for it.

// The limits do not depend on the store: one database.
const store = edgeTarget();

/** `{ a { a { … } } }`, `levels` selection sets deep. */
const nested = (levels: number) => `${'{ a '.repeat(levels)}${'}'.repeat(levels)}`;

interface Answer {
  status: number;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
  data?: unknown;
}

async function post(t: TestServer, query: string): Promise<Answer> {
  const res = await fetch(`${t.server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, ...((await res.json()) as Omit<Answer, 'status'>) };
}

function expectTooComplex(answer: Answer, limit: string, max: number): void {
  expect(answer.status).toBe(400);
  expect(answer.data).toBeUndefined();
  expect(answer.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit, max });
  expect(answer.errors?.[0]?.message).not.toMatch(/call stack/);
}

describe('GraphQL limits before parsing, on the first request', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('answers a 2,500-level query with the token cap at the default settings', async () => {
    t = await startTestServer(store);
    expectTooComplex(await post(t, nested(2500)), 'tokens', 5000);
  });

  it('answers with the depth limit when the token cap is high enough to let the nesting through', async () => {
    t = await startTestServer(store, { CAIRN_GRAPHQL_MAX_TOKENS: '10000000' });
    const answer = await post(t, nested(50_000));
    expectTooComplex(answer, 'depth', 12);
    expect(answer.errors?.[0]?.extensions?.found).toBe(50_000);
    expect(answer.errors?.[0]?.message).toBe(
      'The operation is nested 50000 levels deep; the depth limit is 12 (CAIRN_GRAPHQL_MAX_DEPTH).',
    );
  });

  it('refuses deeply nested argument values and GET queries the same way', async () => {
    t = await startTestServer(store, { CAIRN_GRAPHQL_MAX_TOKENS: '10000000' });
    const list = `{ entity(id: ${'['.repeat(50_000)}"x"${']'.repeat(50_000)}) { id } }`;
    expectTooComplex(await post(t, list), 'depth', 12);
    // Compact, to stay within the URL length the HTTP server reads.
    const compact = `${'{a'.repeat(1000)}${'}'.repeat(1000)}`;
    const res = await fetch(`${t.server.url}/graphql?query=${encodeURIComponent(compact)}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expectTooComplex({ status: res.status, ...((await res.json()) as Omit<Answer, 'status'>) }, 'depth', 12);
  });

  it('leaves what the limits allow to the parser and the depth rule', async () => {
    t = await startTestServer(store);
    const answer = await post(t, '{ knowledgeStats { documentCount } }');
    expect(answer.errors).toBeUndefined();
    // 13 levels: over the limit, but parsed, and refused by the depth rule with the same error.
    const deep = await post(t, nested(13));
    expect(deep.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'depth', found: 13 });
  });
});
