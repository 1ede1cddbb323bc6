import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { getIntrospectionQuery } from 'graphql';
import { codeOf, gqlAs } from '../helpers/auth.js';
import { edgeTarget } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

/** `{ entity { relationships { from { relationships … id } } } }`, exactly `depth` levels deep. */
function deepQuery(depth: number): string {
  let inner = 'id';
  for (let level = depth - 1; level >= 2; level--) inner = `${level % 2 === 0 ? 'relationships' : 'from'} { ${inner} }`;
  return `{ entity(id: "svc:a") { ${inner} } }`;
}

const aliases = (n: number) =>
  `{ ${Array.from({ length: n }, (_, i) => `a${i}: documents { totalCount }`).join(' ')} }`;
const directives = (n: number) =>
  `{ documents { ${Array.from({ length: n }, (_, i) => `f${i}: totalCount @include(if: true)`).join(' ')} } }`;
/** `{ knowledgeStats { documentCount … } }` with exactly `n` tokens (one object, so its cost stays small). */
const tokens = (n: number) => `{ knowledgeStats { ${'documentCount '.repeat(n - 5)}} }`;

/** Sends a raw POST to /graphql. */
const post = (t: TestServer, body: string, headers: Record<string, string>) =>
  fetch(`${t.server.url}/graphql`, { method: 'POST', headers, body });

/** Expects one QUERY_TOO_COMPLEX error naming the limit, its value and variable. */
function expectTooComplex(res: Awaited<ReturnType<typeof gqlAs>>, limit: string, max: number, env: string): void {
  expect(res.status).toBe(400);
  expect(res.body.data).toBeUndefined();
  expect(res.body.errors?.[0]?.extensions).toEqual(
    expect.objectContaining({ code: 'QUERY_TOO_COMPLEX', limit, max, env }),
  );
  expect(res.body.errors?.[0]?.message).toContain(`the ${limit} limit is ${max} (${env})`);
}

// Every value of the DocumentType enum, as an error lists them.
const DOCUMENT_TYPES = 'MANUAL, TUTORIAL, API_SPEC, FAQ, POLICY, REFERENCE, OTHER';

describe.each([edgeTarget()])('request limits ($name)', (target) => {
  describe('configured GraphQL limits and body cap', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer(target, {
        CAIRN_GRAPHQL_MAX_DEPTH: '5',
        CAIRN_GRAPHQL_MAX_COST: '300',
        CAIRN_GRAPHQL_MAX_ALIASES: '3',
        CAIRN_GRAPHQL_MAX_DIRECTIVES: '2',
        CAIRN_GRAPHQL_MAX_TOKENS: '120',
        CAIRN_MAX_BODY_BYTES: '4096',
        CAIRN_RATE_LIMIT_PER_SECOND: '0',
      });
    });
    afterAll(async () => {
      await t?.close();
    });
    const ask = (query: string) => gqlAs(t.server.url, undefined, query);

    it('allows each limit exactly and refuses one more, naming the limit', async () => {
      const cases = [
        { limit: 'depth', env: 'CAIRN_GRAPHQL_MAX_DEPTH', max: 5, at: deepQuery(5), over: deepQuery(6), found: 6 },
        { limit: 'aliases', env: 'CAIRN_GRAPHQL_MAX_ALIASES', max: 3, at: aliases(3), over: aliases(4), found: 4 },
        {
          limit: 'directives',
          env: 'CAIRN_GRAPHQL_MAX_DIRECTIVES',
          max: 2,
          at: directives(2),
          over: directives(3),
          found: 3,
        },
        // documents(first: N) { nodes { id } } costs 7.25 × N with armor's default weights.
        {
          limit: 'cost',
          env: 'CAIRN_GRAPHQL_MAX_COST',
          max: 300,
          at: '{ documents(first: 40) { nodes { id } } }',
          over: '{ documents(first: 42) { nodes { id } } }',
          found: 305,
        },
        {
          limit: 'tokens',
          env: 'CAIRN_GRAPHQL_MAX_TOKENS',
          max: 120,
          at: tokens(120),
          over: tokens(121),
          found: undefined,
        },
      ];
      for (const c of cases) {
        const ok = await ask(c.at);
        expect({ limit: c.limit, errors: ok.body.errors }).toEqual({ limit: c.limit, errors: undefined });
        const refused = await ask(c.over);
        expectTooComplex(refused, c.limit, c.max, c.env);
        if (c.found !== undefined) expect(refused.body.errors?.[0]?.extensions?.found).toBe(c.found);
      }
    });

    it('costs sizes given by variables, and omitted ones at the page size the field will use', async () => {
      const byVariable = 'query($n: Int) { documents(first: $n) { nodes { id } } }';
      expect((await gqlAs(t.server.url, undefined, byVariable, { n: 40 })).body.errors).toBeUndefined();
      const over = await gqlAs(t.server.url, undefined, byVariable, { n: 42 });
      expectTooComplex(over, 'cost', 300, 'CAIRN_GRAPHQL_MAX_COST');
      expect(over.body.errors?.[0]?.extensions?.found).toBe(305);
      // A variable's default counts as well, and so does the 20-item page of an omitted `first`.
      expectTooComplex(
        await gqlAs(t.server.url, undefined, 'query($n: Int = 42) { documents(first: $n) { nodes { id } } }'),
        'cost',
        300,
        'CAIRN_GRAPHQL_MAX_COST',
      );
      expect((await ask('{ documents { nodes { id } } }')).body.errors).toBeUndefined();
      // Entity.documents defaults to 20 per entity, within a 20-entity page: 20 × 20 documents.
      expectTooComplex(await ask('{ entities { nodes { documents { id } } } }'), 'cost', 300, 'CAIRN_GRAPHQL_MAX_COST');
      // So does a size variable the request leaves out: the field then uses its default page.
      expectTooComplex(
        await gqlAs(t.server.url, undefined, 'query($n: Int) { entities(first: $n) { nodes { documents { id } } } }'),
        'cost',
        300,
        'CAIRN_GRAPHQL_MAX_COST',
      );
    });

    it('answers 413 naming CAIRN_MAX_BODY_BYTES, and JSON errors for bad JSON', async () => {
      const big = JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(5000) } });
      const res = await post(t, big, { 'content-type': 'application/json' });
      expect(res.status).toBe(413);
      const body = (await res.json()) as { errors: { message: string; extensions: { code: string; limit: number } }[] };
      expect(body.errors[0]?.extensions).toEqual({ code: 'PAYLOAD_TOO_LARGE', limit: 4096 });
      expect(body.errors[0]?.message).toContain('4096 bytes (CAIRN_MAX_BODY_BYTES)');
      const small = await post(t, JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(3000) } }), {
        'content-type': 'application/json',
      });
      expect(small.status).toBe(200);
      const bad = await post(t, '{"query": ', { 'content-type': 'application/json' });
      expect(bad.status).toBe(400);
      expect(bad.headers.get('content-type')).toContain('application/json');
      expect(((await bad.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code).toBe(
        'BAD_REQUEST',
      );
    });
  });

  describe('defaults, CSRF, batching and page sizes', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer(target, { CAIRN_RATE_LIMIT_PER_SECOND: '0' });
    });
    afterAll(async () => {
      await t?.close();
    });
    const exists = async (id: string) =>
      (await t.services.db.query('SELECT 1 FROM documents WHERE id = $1', [id])).rowCount > 0;

    it('defaults: depth 12 passes, 13 does not; GraphiQL introspection fits', async () => {
      expect((await t.gql(deepQuery(12))).errors).toBeUndefined();
      expectTooComplex(await gqlAs(t.server.url, undefined, deepQuery(13)), 'depth', 12, 'CAIRN_GRAPHQL_MAX_DEPTH');
      expect((await t.gql(getIntrospectionQuery())).errors).toBeUndefined();
    });

    it('default cost: nested pages sized by variables are refused as their literal forms are', async () => {
      const nested = 'query($n: Int) { entities(first: $n) { nodes { documents(first: $n) { content } } } }';
      expectTooComplex(
        await gqlAs(t.server.url, undefined, nested, { n: 100 }),
        'cost',
        20000,
        'CAIRN_GRAPHQL_MAX_COST',
      );
      expect((await gqlAs(t.server.url, undefined, nested, { n: 10 })).body.errors).toBeUndefined();
    });

    it('refuses oversized lists and deep JSON with BAD_USER_INPUT, naming where, and writes nothing', async () => {
      const sources = Array.from({ length: 5001 }, (_, i) => `s${i}`);
      const long = await gqlAs(
        t.server.url,
        undefined,
        'query($s: [String!]) { documents(filter: { sources: $s }) { totalCount } }',
        { s: sources },
      );
      expect(long.status).toBe(400);
      expect(long.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(long.body.errors?.[0]?.message).toContain('variables.s: is a list of 5001 items; at most 5000');
      const some = await t.gql('query($s: [String!]) { documents(filter: { sources: $s }) { totalCount } }', {
        s: sources.slice(0, 101),
      });
      expect(some.errors?.[0]?.message).toContain('filter.sources: give at most 100 sources');
      // Thousands of levels exhausted the stack (INTERNAL_SERVER_ERROR); now both forms are refused by name.
      const create =
        'mutation($m: JSON) { createDocument(input: { id: "doc:deep", title: "deep", content: "x", metadata: $m }) { chunkCount } }';
      // Written out by hand: JSON.stringify itself overflows the test's stack at this depth.
      const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
      const viaVariable = await post(t, `{"query":${JSON.stringify(create)},"variables":{"m":${deep}}}`, {
        'content-type': 'application/json',
      });
      const refused = (await viaVariable.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect(viaVariable.status).toBe(400);
      expect(refused.errors[0]?.extensions.code).toBe('BAD_USER_INPUT');
      expect(refused.errors[0]?.message).toMatch(/^variables\.m(\.a)+: is nested more than 64 levels deep/);
      const inline = `mutation { createDocument(input: { id: "doc:deep", title: "deep", content: "x", metadata: ${'{ a: '.repeat(70)}1${' }'.repeat(70)} }) { chunkCount } }`;
      const viaLiteral = await t.gql(inline);
      expect(viaLiteral.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(viaLiteral.errors?.[0]?.message).toContain('is nested more than 64 levels deep');
      expect(await exists('doc:deep')).toBe(false);
      let ok: unknown = 1;
      for (let i = 0; i < 60; i++) ok = { a: ok };
      expect((await t.gql(create, { m: ok })).errors).toBeUndefined();
      expect((await t.gql('mutation { deleteDocument(id: "doc:deep") { deleted } }')).errors).toBeUndefined();
    });

    it('refuses simple (CSRF-able) requests without executing them', async () => {
      const mutation = JSON.stringify({
        query: 'mutation { createDocument(input: { id: "doc:csrf", title: "T", content: "c" }) { chunkCount } }',
      });
      for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
        const res = await post(t, mutation, { 'content-type': type });
        expect({ type, status: res.status }).toEqual({ type, status: 400 });
        expect(await res.text()).toContain('Cross-Site Request Forgery');
      }
      expect(await exists('doc:csrf')).toBe(false);
      const url = `${t.server.url}/graphql?query=${encodeURIComponent('{ documents { totalCount } }')}`;
      const bare = await fetch(url);
      expect(bare.status).toBe(400);
      expect(await bare.text()).toContain('Cross-Site Request Forgery');
      const preflighted = await fetch(url, { headers: { 'apollo-require-preflight': 'true' } });
      expect(await preflighted.json()).toEqual({ data: { documents: { totalCount: 0 } } });
    });

    it('shows suggestions and valid enum values to a local caller without keys (an admin, who may read the schema)', async () => {
      const res = await t.gql(`{ search(input: { query: "x" }) { scor } }`);
      expect(res.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(res.errors?.[0]?.message).toBe('Cannot query field "scor" on type "SearchHit". Did you mean "score"?');
      const enumValue = await t.gql(`{ documents(filter: { types: [FAQS] }) { totalCount } }`);
      expect(enumValue.errors?.[0]?.message).toBe(
        `Value "FAQS" does not exist in "DocumentType" enum. Did you mean the enum value "FAQ"? Valid values: ${DOCUMENT_TYPES}.`,
      );
      const variable = await t.gql(`query($t: [DocumentType!]) { documents(filter: { types: $t }) { totalCount } }`, {
        t: ['NOPE'],
      });
      expect(variable.errors?.[0]?.message).toMatch(
        /Value "NOPE" does not exist in "DocumentType" enum\. Valid values: MANUAL, /,
      );
    });

    it('refuses batched operations without executing any', async () => {
      const batch = JSON.stringify([
        { query: 'mutation { createDocument(input: { id: "doc:batch", title: "T", content: "c" }) { chunkCount } }' },
        { query: '{ __typename }' },
      ]);
      const res = await post(t, batch, { 'content-type': 'application/json' });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect(body.errors[0]?.extensions.code).toBe('BAD_REQUEST');
      expect(body.errors[0]?.message).toMatch(/batching/i);
      expect(await exists('doc:batch')).toBe(false);
    });

    it('caps `first` at 100 on every connection', async () => {
      const docs = Array.from({ length: 101 }, (_, i) => ({
        id: `doc:page-${i}`,
        title: `Page ${i}`,
        content: `page number ${i}`,
      }));
      expect(
        (await t.gql('mutation($d: [CreateDocumentInput!]!) { upsertDocuments(input: $d) { changed } }', { d: docs }))
          .errors,
      ).toBeUndefined();
      const entities = Array.from({ length: 101 }, (_, i) => ({
        id: `svc:page-${i}`,
        type: 'Service',
        name: `Page service ${i}`,
      }));
      expect(
        (
          await t.gql(
            'mutation($e: [CreateEntityInput!]!) { upsertGraph(input: { entities: $e }) { entities { id } } }',
            { e: entities },
          )
        ).errors,
      ).toBeUndefined();
      for (let i = 0; i < 101; i++) await t.services.gaps.recordReported(`unanswered question number ${i}`, 0.01);
      await t.services.db.query(
        `INSERT INTO import_jobs (id, kind, status, request) SELECT 'job_page_' || g, 'url', 'SUCCEEDED', '{}'::jsonb FROM generate_series(1, 101) g`,
      );
      for (const field of ['documents', 'entities', 'knowledgeGaps', 'importJobs']) {
        // The cost estimate counts the 100 items a page can hold, not the 1000 asked for.
        const res = await t.gql<
          Record<string, { totalCount: number; edges: unknown[]; pageInfo: { hasNextPage: boolean } }>
        >(`query($n: Int) { ${field}(first: $n) { totalCount edges { cursor } pageInfo { hasNextPage } } }`, {
          n: 1000,
        });
        expect({ field, errors: res.errors }).toEqual({ field, errors: undefined });
        const page = res.data?.[field];
        expect({ field, total: page?.totalCount, size: page?.edges.length, more: page?.pageInfo.hasNextPage }).toEqual({
          field,
          total: 101,
          size: 100,
          more: true,
        });
      }
      // The services hold the bounds: GraphQL and a direct caller (MCP, CLI) are refused alike, and one field's bad
      // `first` fails only that field, not a sibling batched with it.
      const nested = await t.gql<{ over: unknown; ok: { documents: unknown[] } | null }>(
        '{ over: entity(id: "svc:page-1") { documents(first: 101) { id } } ok: entity(id: "svc:page-1") { documents(first: 2) { id } } }',
      );
      expect(nested.errors?.map((e) => [e.path?.join('.'), e.extensions?.code])).toEqual([
        ['over.documents', 'BAD_USER_INPUT'],
      ]);
      expect(nested.data).toEqual({ over: null, ok: { documents: [] } });
      await expect(t.services.graph.documentIdsByEntity(['svc:page-1'], 101)).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
      });
      await expect(t.services.evidence.pages(['e:svc:page-1'], 101, 0)).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
      });
      const evidence = await t.gql('{ entity(id: "svc:page-1") { evidence(first: 101) { totalCount } } }');
      expect(evidence.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    });
  });

  describe('suggestions once authentication is on', () => {
    let t: TestServer;
    let keys: { admin: string; agent: string };
    const gqlWith = async (key: string, query: string) => {
      const res = await fetch(`${t.server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query }),
      });
      return (await res.json()) as { errors?: { message: string }[] };
    };
    beforeAll(async () => {
      t = await startTestServer(target, { CAIRN_RATE_LIMIT_PER_SECOND: '0' });
      keys = {
        admin: (await t.services.apiKeys.create('ops', 'admin')).key,
        agent: (await t.services.apiKeys.create('bot', 'agent')).key,
      };
    });
    afterAll(async () => {
      await t?.close();
    });

    it('hides them, and the valid enum values, from a role that may not introspect; an admin key sees them', async () => {
      const field = `{ search(input: { query: "x" }) { scor } }`;
      expect((await gqlWith(keys.agent, field)).errors?.[0]?.message).toBe(
        'Cannot query field "scor" on type "SearchHit". (suggestions hidden; see schema.graphql)',
      );
      expect((await gqlWith(keys.admin, field)).errors?.[0]?.message).toBe(
        'Cannot query field "scor" on type "SearchHit". Did you mean "score"?',
      );
      const enumValue = `{ documents(filter: { types: [FAQS] }) { totalCount } }`;
      expect((await gqlWith(keys.agent, enumValue)).errors?.[0]?.message).toBe(
        'Value "FAQS" does not exist in "DocumentType" enum. (suggestions hidden; see schema.graphql)',
      );
      expect((await gqlWith(keys.admin, enumValue)).errors?.[0]?.message).toContain(`Valid values: ${DOCUMENT_TYPES}.`);
      const noSuggestion = `{ documents(filter: { types: [NOPE] }) { totalCount } }`;
      expect((await gqlWith(keys.agent, noSuggestion)).errors?.[0]?.message).toBe(
        'Value "NOPE" does not exist in "DocumentType" enum.',
      );
    });
  });

  describe('text budget of a response', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer(target, {
        CAIRN_MAX_DOCUMENT_CHARS: '1000',
        CAIRN_MAX_RESPONSE_TEXT_CHARS: '2500',
        CAIRN_RATE_LIMIT_PER_SECOND: '0',
        // Per space: the five documents below (two chunks each) fill the chunk quota of `default`.
        CAIRN_SPACE_MAX_DOCUMENTS: '6',
        CAIRN_SPACE_MAX_CHUNKS: '10',
      });
      const docs = Array.from({ length: 5 }, (_, i) => ({
        id: `doc:budget-${i}`,
        title: `Budget ${i}`,
        content: `${'word '.repeat(179)}end${i}`,
      }));
      expect(
        (await t.gql('mutation($d: [CreateDocumentInput!]!) { upsertDocuments(input: $d) { changed } }', { d: docs }))
          .errors,
      ).toBeUndefined();
    });
    afterAll(async () => {
      await t?.close();
    });
    const codes = (errors: { extensions?: { code?: string } }[] | undefined) =>
      (errors ?? []).map((e) => e.extensions?.code);

    it('sends document and chunk text up to CAIRN_MAX_RESPONSE_TEXT_CHARS, and names the limit for the rest', async () => {
      // 899 characters each: two documents fit in 2,500, the third does not.
      const page = await t.gql('{ documents(first: 5, filter: { text: "word" }) { nodes { content } } }');
      // content is non-null, so the first refusal nulls the page and GraphQL reports that one.
      expect(codes(page.errors)).toEqual(['QUERY_TOO_COMPLEX']);
      expect(page.errors?.[0]?.message).toContain(
        'more than 2500 characters of document and chunk text (CAIRN_MAX_RESPONSE_TEXT_CHARS)',
      );
      // One document asked for three times counts three times, though it is read once.
      const repeated = await t.gql(
        '{ a: document(id: "doc:budget-0") { content } b: document(id: "doc:budget-0") { content } c: document(id: "doc:budget-0") { content } }',
      );
      expect(codes(repeated.errors)).toEqual(['QUERY_TOO_COMPLEX']);
      const chunks = await t.gql('{ documents(first: 5, filter: { text: "word" }) { nodes { chunks { content } } } }');
      expect(codes(chunks.errors).length).toBeGreaterThan(0);
      expect(new Set(codes(chunks.errors))).toEqual(new Set(['QUERY_TOO_COMPLEX']));
      // Within the budget nothing changes.
      const two = await t.gql<{ documents: { nodes: { content: string }[] } }>(
        '{ documents(first: 2, filter: { text: "word" }) { nodes { content } } }',
      );
      expect(two.errors).toBeUndefined();
      expect(two.data!.documents.nodes.map((n) => n.content.length)).toEqual([899, 899]);
    });

    it('refuses a write that takes its space past a quota, naming it, and writes nothing of it', async () => {
      await t.services.spaces.create({ id: 'other' });
      const write = (space: string, ids: string[]) =>
        gqlAs(
          t.server.url,
          undefined,
          'mutation($d: [CreateDocumentInput!]!) { upsertDocuments(input: $d) { changed } }',
          { d: ids.map((id) => ({ id, title: id, content: `Quota note ${id}.` })) },
          { 'cairn-space': space },
        );
      const count = async (space: string) =>
        (
          await gqlAs<{ knowledgeStats: { documentCount: number; chunkCount: number } }>(
            t.server.url,
            undefined,
            '{ knowledgeStats { documentCount chunkCount } }',
            undefined,
            { 'cairn-space': space },
          )
        ).body.data?.knowledgeStats;
      expect(await count('default')).toEqual({ documentCount: 5, chunkCount: 10 });
      const overChunks = await write('default', ['doc:sixth']);
      expect(overChunks.body.errors?.[0]?.extensions).toMatchObject({
        code: 'QUOTA_EXCEEDED',
        limit: 'chunks',
        max: 10,
        env: 'CAIRN_SPACE_MAX_CHUNKS',
      });
      expect(overChunks.body.errors?.[0]?.message).toContain('CAIRN_SPACE_MAX_CHUNKS');
      expect(await count('default')).toEqual({ documentCount: 5, chunkCount: 10 });
      // Replacing a document's content within the quota still works (its two chunks become one).
      expect((await write('default', ['doc:budget-0'])).body.errors).toBeUndefined();
      // Seven documents at once exceed `other`'s document quota: none of them is written.
      const seven = Array.from({ length: 7 }, (_, i) => `doc:other-${i}`);
      expect((await write('other', seven)).body.errors?.[0]?.extensions).toMatchObject({
        code: 'QUOTA_EXCEEDED',
        env: 'CAIRN_SPACE_MAX_DOCUMENTS',
      });
      expect(await count('other')).toEqual({ documentCount: 0, chunkCount: 0 });
      // Each space has its own quota: `default` being full does not stop `other`.
      expect((await write('other', seven.slice(0, 3))).body.errors).toBeUndefined();
      expect(await count('other')).toEqual({ documentCount: 3, chunkCount: 3 });
      expect(await count('default')).toEqual({ documentCount: 5, chunkCount: 9 });
    });
  });

  describe('rate limit', () => {
    let t: TestServer;
    let now = 0;
    beforeAll(async () => {
      // One token every 2 s, 3 at once: the 4th quick request is refused with Retry-After 2.
      t = await startTestServer(
        target,
        { CAIRN_RATE_LIMIT_PER_SECOND: '0.5', CAIRN_RATE_LIMIT_BURST: '3' },
        undefined,
        undefined,
        () => now,
      );
    });
    afterAll(async () => {
      await t?.close();
    });
    const ask = (key?: string) => gqlAs(t.server.url, key, '{ __typename }');

    it('answers 429 RATE_LIMITED with Retry-After per client address, spares /healthz, then recovers', async () => {
      for (let i = 0; i < 3; i++) expect((await ask()).status).toBe(200);
      const limited = await ask();
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('2');
      expect(limited.body.errors?.[0]?.extensions).toEqual({ code: 'RATE_LIMITED', retryAfterSeconds: 2 });
      expect(limited.body.errors?.[0]?.message).toContain('CAIRN_RATE_LIMIT_PER_SECOND');
      for (let i = 0; i < 5; i++) expect((await fetch(`${t.server.url}/healthz`)).status).toBe(200);
      now += 1.9;
      expect((await ask()).status).toBe(429);
      now += 0.1;
      expect((await ask()).status).toBe(200);
    });

    it('keeps one bucket per key, and limits unauthenticated attempts by address', async () => {
      const a = (await t.services.apiKeys.create('bucket-a', 'reader')).key;
      const b = (await t.services.apiKeys.create('bucket-b', 'reader')).key;
      for (let i = 0; i < 3; i++) expect((await ask(a)).status).toBe(200);
      expect(codeOf(await ask(a))).toBe('RATE_LIMITED');
      expect((await ask(b)).status).toBe(200);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await ask()).status);
      expect(statuses).toContain(429);
      expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    });
  });

  describe('per-space rate limit', () => {
    let t: TestServer;
    let now = 0;
    beforeAll(async () => {
      // Per key: off. Per space: one token every 2 s, 2 at once, shared by every key working in the space.
      t = await startTestServer(
        target,
        {
          CAIRN_RATE_LIMIT_PER_SECOND: '0',
          CAIRN_SPACE_RATE_LIMIT_PER_SECOND: '0.5',
          CAIRN_SPACE_RATE_LIMIT_BURST: '2',
        },
        undefined,
        undefined,
        () => now,
      );
    });
    afterAll(async () => {
      await t?.close();
    });

    it('refuses a space past its budget with 429 and Retry-After, whichever of its keys asks, and no other space', async () => {
      for (const id of ['busy', 'calm']) await t.services.spaces.create({ id });
      const [first, second, calm] = await Promise.all(
        [
          ['busy-1', 'busy'],
          ['busy-2', 'busy'],
          ['calm-1', 'calm'],
        ].map(
          async ([name, space]) =>
            (await t.services.apiKeys.create(name as string, 'reader', { spaces: [space as string] })).key,
        ),
      );
      const ask = (key: string) => gqlAs(t.server.url, key, '{ documents { totalCount } }');
      expect((await ask(first as string)).status).toBe(200);
      expect((await ask(second as string)).status).toBe(200);
      const limited = await ask(first as string);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('2');
      expect(limited.body.errors?.[0]?.extensions).toEqual({ code: 'RATE_LIMITED', retryAfterSeconds: 2 });
      expect(limited.body.errors?.[0]?.message).toContain('space "busy"');
      expect(limited.body.errors?.[0]?.message).toContain('CAIRN_SPACE_RATE_LIMIT_PER_SECOND');
      expect(codeOf(await ask(second as string))).toBe('RATE_LIMITED');
      expect((await ask(calm as string)).status).toBe(200);
      now += 2;
      expect((await ask(second as string)).status).toBe(200);
    });
  });
});
