import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { buildSchema } from 'graphql';
import { loadTypeDefs } from '../../src/graphql/schema.js';
import { edgeTarget } from '../helpers/databases.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixtureSite.js';
import { operationArb, render, type FuzzPools } from '../helpers/graphqlFuzz.js';
import { startTestServer, type GqlResponse, type TestServer } from '../helpers/testServer.js';

// A GraphQL fuzz pass: random valid operations over the whole schema (random root fields, selections, and argument
// values of the right types with edge cases) against a real server on PGlite seeded with a little data. Whatever the
// input, the server must answer with a client error or data: never INTERNAL_SERVER_ERROR, never a stack trace.
// Reproduce a failure with CAIRN_FUZZ_SEED=<seed> (fast-check prints the seed and the shrunk operation).

const SEED = Number(process.env.CAIRN_FUZZ_SEED ?? 20261122);
const RUNS = Number(process.env.CAIRN_FUZZ_RUNS ?? 500);
const TIME_LIMIT_MS = 150_000;

/** Why a response is a server bug, or undefined when it is a proper answer. */
function defect(status: number, text: string): string | undefined {
  if (status >= 500) return `HTTP ${status}`;
  if (/(\n|\\n)\s+at |stacktrace|"exception"/.test(text)) return 'a stack trace leaked';
  let body: GqlResponse;
  try {
    body = JSON.parse(text) as GqlResponse;
  } catch {
    return 'the body is not JSON';
  }
  const internal = body.errors?.find(
    (e) => e.extensions?.code === 'INTERNAL_SERVER_ERROR' || e.extensions?.code === undefined,
  );
  return internal ? `error without a proper code: ${JSON.stringify(internal)}` : undefined;
}

describe('GraphQL fuzz pass (PGlite)', () => {
  let t: TestServer;
  let trap: FixtureSite;
  let pools: FuzzPools;

  /** Sends an operation and returns the raw answer. */
  const send = async (query: string, variables: Record<string, unknown> = {}) => {
    const res = await fetch(`${t.server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, text: await res.text() };
  };
  const seed = async <T>(query: string, variables: Record<string, unknown> = {}): Promise<T> => {
    const body = await t.gql<T>(query, variables);
    expect(body.errors).toBeUndefined();
    return body.data as T;
  };

  beforeAll(async () => {
    t = await startTestServer(edgeTarget(), { CAIRN_RATE_LIMIT_PER_SECOND: '0' });
    // If the SSRF-safe fetcher ever connected to a loopback URL, this server would count the hit.
    trap = await startFixtureSite({ '/': { body: '<html><body>trap</body></html>', type: 'text/html' } });
    await seed(`mutation { upsertGraph(input: {
      entities: [{ id: "svc:ledger", type: "Service", name: "Ledger service", aliases: ["ledger"] },
                 { id: "svc:billing", type: "Service", name: "Billing", description: "Bills" },
                 { id: "team:payments", type: "Team", name: "Payments team", properties: { size: 4 } }],
      relationships: [{ fromId: "svc:billing", toId: "svc:ledger", type: "DEPENDS_ON" },
                      { fromId: "team:payments", toId: "svc:billing", type: "OWNS", properties: { since: 2020 } }] }) { entities { id } } }`);
    await seed(`mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { changed } }`, {
      input: [
        {
          id: 'doc:runbook',
          title: 'Ledger runbook',
          content: 'When the Ledger service lags, Billing retries. '.repeat(30),
          documentType: 'MANUAL',
          tags: ['billing', 'ops'],
          source: 'wiki',
        },
        {
          id: 'doc:faq',
          title: 'Billing FAQ',
          content: 'Refunds take five days.',
          documentType: 'FAQ',
          tags: ['billing'],
          metadata: { lang: 'en' },
        },
        {
          id: 'doc:policy',
          title: 'Policy',
          content: 'Payments team owns billing.',
          documentType: 'POLICY',
          entityIds: ['team:payments'],
        },
      ],
    });
    await seed(`{ enrichContext(input: { query: "zebra unicorn migration" }) { truncated } }`); // a knowledge gap
    const spec =
      'openapi: 3.0.0\ninfo: { title: Tiny, version: "1" }\npaths:\n  /ping:\n    get:\n      operationId: ping\n      responses: { "200": { description: pong } }\n';
    const imported = await seed<{ importOpenApi: { job: { id: string } } }>(
      `mutation($c: String!) { importOpenApi(input: { content: $c }) { job { id } } }`,
      { c: spec },
    );
    const found = await seed<{
      graphStats: { topDegree: { entity: { relationships: { id: string }[] } }[] };
      documents: { pageInfo: { endCursor: string } };
      entities: { pageInfo: { endCursor: string } };
      importJobs: { pageInfo: { endCursor: string } };
      knowledgeGaps: { pageInfo: { endCursor: string | null } };
    }>(`{ graphStats { topDegree { entity { relationships { id } } } }
          documents(first: 1) { pageInfo { endCursor } } entities(first: 1) { pageInfo { endCursor } }
          importJobs(first: 1) { pageInfo { endCursor } } knowledgeGaps(first: 1) { pageInfo { endCursor } } }`);
    pools = {
      ids: [
        'doc:runbook',
        'doc:faq',
        'doc:policy',
        'svc:ledger',
        'svc:billing',
        'team:payments',
        imported.importOpenApi.job.id,
        ...found.graphStats.topDegree.flatMap((d) => d.entity.relationships.map((r) => r.id)),
      ],
      cursors: [
        found.documents.pageInfo.endCursor,
        found.entities.pageInfo.endCursor,
        found.importJobs.pageInfo.endCursor,
        found.knowledgeGaps.pageInfo.endCursor ?? '',
      ],
      // Only IP literals, loopback and non-HTTP schemes: each must be refused before any connection (and any DNS query).
      urls: [
        `${trap.url}/`,
        `${trap.localhostUrl}/`,
        'http://127.0.0.1:1/',
        'http://[::1]/',
        'http://169.254.169.254/latest/meta-data/',
        'http://10.0.0.1/',
        'http://0.0.0.0/',
        'http://2130706433/',
        'http://0x7f.1/',
        'file:///etc/passwd',
        'ftp://127.0.0.1/',
        'gopher://127.0.0.1:70/',
        'javascript:alert(1)',
        'not a url',
        '',
        'http://',
        'http://[fe80::1]/',
        'http://192.168.1.1:8080/x?y#z',
      ],
      skipRootFields: ['createApiKey'], // the first key turns authentication on for every later operation
      maxDepth: 4,
    };
  }, 120_000);
  afterAll(async () => {
    await trap?.close();
    await t?.close();
  }, 60_000);

  it('keeps earlier fuzz findings fixed', async () => {
    for (const [query, variables, code] of REGRESSIONS) {
      const { status, text } = await send(query, variables);
      const codes = (JSON.parse(text) as GqlResponse).errors?.map((e) => e.extensions?.code) ?? [];
      expect({ query, problem: defect(status, text), codes }).toEqual({
        query,
        problem: undefined,
        codes: code ? [code] : [],
      });
    }
  }, 60_000);

  it(
    `answers ${RUNS} random valid operations without an internal error or a stack trace`,
    async () => {
      const schema = buildSchema(loadTypeDefs());
      let runs = 0;
      let executed = 0;
      const started = Date.now();
      await fc.assert(
        fc.asyncProperty(operationArb(schema, pools), async (op) => {
          const { query, variables } = render(op);
          const { status, text } = await send(query, variables);
          runs++;
          const problem = defect(status, text);
          if (problem)
            throw new Error(
              `${problem}\n${query}\n${JSON.stringify(variables).slice(0, 2_000)}\n${text.slice(0, 2_000)}`,
            );
          // HTTP 400 means rejected before execution (parse, validation, limits, variable coercion); 200 means executed.
          if (status === 200) executed++;
        }),
        { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false },
      );
      console.log(
        `fuzz: ${runs} operations in ${((Date.now() - started) / 1000).toFixed(1)} s, ${executed} reached the resolvers (seed ${SEED})`,
      );
      expect(runs).toBeGreaterThanOrEqual(Math.min(RUNS, 150)); // not cut short by the time limit
      expect(executed / runs).toBeGreaterThan(0.6);
      expect(trap.hits.size).toBe(0);
    },
    TIME_LIMIT_MS + 30_000,
  );
});

/** Operations the fuzzer once answered with INTERNAL_SERVER_ERROR (fixed since); each must now get a proper answer. */
const REGRESSIONS: [query: string, variables: Record<string, unknown>, code?: string][] = [
  // NUL characters reached Postgres, which cannot store them (SQLSTATE 22021 / 22P05): now BAD_USER_INPUT.
  ['mutation { deleteDocument(id: "a\\u0000b") { id deleted } }', {}, 'BAD_USER_INPUT'],
  [
    'mutation($m: JSON) { createDocument(input: { title: "t", content: "c", metadata: $m }) { changed } }',
    { m: { k: 'a\u0000b' } },
    'BAD_USER_INPUT',
  ],
  [
    'mutation($c: String!) { createDocument(input: { title: "t", content: $c }) { changed } }',
    { c: 'nul \u0000 inside' },
    'BAD_USER_INPUT',
  ],
  [
    'query($q: String!) { search(input: { query: $q, filter: { text: $q } }) { score } }',
    { q: '\u0000' },
    'BAD_USER_INPUT',
  ],
  // Unpaired surrogates: JSON.stringify escapes them (\ud800) and jsonb refuses the escape (SQLSTATE 22P02).
  [
    'mutation($i: ImportUrlInput!) { importUrl(input: $i) { job { id } } }',
    { i: { url: 'http://127.0.0.1:1/', source: '\ud800' } },
    'BAD_USER_INPUT',
  ],
  [
    'mutation($i: ImportOpenApiInput!) { importOpenApi(input: $i) { job { id } } }',
    { i: { content: '\ud800' } },
    'BAD_USER_INPUT',
  ],
  [
    'mutation($a: [String!]) { createEntity(input: { type: "Service", name: "S", aliases: $a }) { id } }',
    { a: ['x\udc00'] },
    'BAD_USER_INPUT',
  ],
  // A query without word tokens embeds to the zero vector; pgvector's cosine distance to it is NaN, which Float rejected.
  ['{ search(input: { query: "+|", mode: VECTOR }) { score vectorScore } }', {}],
  ['{ enrichContext(input: { query: "+|" }) { chunks { score vectorScore } } }', {}],
];
