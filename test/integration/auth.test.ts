import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildSchema, getIntrospectionQuery, type GraphQLObjectType } from 'graphql';
import { ApiKeyService } from '../../src/auth/ApiKeyService.js';
import { ROLES, roleAtLeast, type Role } from '../../src/auth/roles.js';
import { loadTypeDefs } from '../../src/graphql/schema.js';
import { startHttpServer } from '../../src/server/httpServer.js';
import { codeOf, gqlAs } from '../helpers/auth.js';
import { eventually } from '../helpers/eventually.js';
import { edgeTarget } from '../helpers/databases.js';
import { ROOT_OPERATIONS } from '../helpers/rootOperations.js';
import { startLoggedServer } from '../helpers/loggedServer.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

const NOT_ALLOWED = ['FORBIDDEN', 'UNAUTHENTICATED'];
let counter = 0;

/** POSTs a one-file multipart upload, with the preflight header /v1/uploads requires unless `preflight` is false. */
async function upload(
  url: string,
  key: string | undefined,
  preflight = true,
): Promise<{ status: number; code: string | undefined }> {
  const form = new FormData();
  form.append('file', new Blob(['# Note\n\nPayments retry after a failure.'], { type: 'text/markdown' }), 'note.md');
  const headers: Record<string, string> = preflight
    ? { 'apollo-require-preflight': 'true' }
    : { origin: 'http://evil.example' };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(`${url}/v1/uploads`, { method: 'POST', body: form, headers });
  const body = (await res.json()) as { errors?: { extensions?: { code?: string } }[] };
  return { status: res.status, code: body.errors?.[0]?.extensions?.code };
}

/** A raw request with a chosen Host header (fetch does not allow setting one). */
function requestWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/graphql`,
      { method: 'POST', headers: { host, 'content-type': 'application/json' } },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ query: '{ knowledgeStats { documentCount } }' }));
  });
}

describe.each([edgeTarget()])('access control ($name)', (target) => {
  describe('with a key of each role', () => {
    let t: TestServer;
    const keys = {} as Record<Role, string>;
    beforeAll(async () => {
      t = await startTestServer(target);
      for (const role of ROLES) keys[role] = (await t.services.apiKeys.create(`${role}-key`, role)).key;
      const doc = await gqlAs(
        t.server.url,
        keys.admin,
        'mutation { createDocument(input: { id: "doc:keep", title: "Payments", content: "Payments retry after a failure." }) { chunkCount } }',
      );
      expect(codeOf(doc)).toBeUndefined();
    });
    afterAll(async () => {
      await t?.close();
    });

    it('has an operation for every root field of schema.graphql', () => {
      const schema = buildSchema(loadTypeDefs());
      const fields = (['Query', 'Mutation'] as const).flatMap((type) =>
        Object.keys((schema.getType(type) as GraphQLObjectType).getFields()).map((f) => `${type}.${f}`),
      );
      expect(ROOT_OPERATIONS.map((o) => `${o.type}.${o.field}`).sort()).toEqual(fields.sort());
    });

    it('answers every root field without a key with 401 UNAUTHENTICATED', async () => {
      for (const op of ROOT_OPERATIONS) {
        const res = await gqlAs(t.server.url, undefined, op.query(++counter));
        expect({ field: op.field, status: res.status, code: codeOf(res) }).toEqual({
          field: op.field,
          status: 401,
          code: 'UNAUTHENTICATED',
        });
        expect(res.headers.get('www-authenticate')).toContain('Bearer');
      }
    });

    it.each(ROLES)('lets %s call exactly the root fields its role reaches', async (role) => {
      for (const op of ROOT_OPERATIONS) {
        const res = await gqlAs(t.server.url, keys[role], op.query(++counter));
        const code = codeOf(res);
        if (roleAtLeast(role, op.need)) {
          expect({
            field: op.field,
            code: NOT_ALLOWED.includes(code ?? '') || code === 'INTERNAL_SERVER_ERROR' ? code : 'ok',
          }).toEqual({ field: op.field, code: 'ok' });
        } else {
          expect({ field: op.field, code, data: res.body.data }).toEqual({
            field: op.field,
            code: 'FORBIDDEN',
            data: null,
          });
          expect(res.body.errors?.[0]?.message).toContain(`needs the ${op.need} role`);
        }
      }
    });

    it('writes nothing on a refused operation', async () => {
      const del = await gqlAs(t.server.url, keys.editor, 'mutation { deleteDocument(id: "doc:keep") { deleted } }');
      expect(codeOf(del)).toBe('FORBIDDEN');
      const create = await gqlAs(
        t.server.url,
        keys.agent,
        'mutation { createDocument(input: { id: "doc:agent", title: "T", content: "c" }) { chunkCount } }',
      );
      expect(codeOf(create)).toBe('FORBIDDEN');
      const { rows } = await t.services.db.query<{ id: string }>(
        "SELECT id FROM documents WHERE id IN ('doc:keep', 'doc:agent')",
      );
      expect(rows.map((r) => r.id)).toEqual(['doc:keep']);
    });

    it('refuses unknown, malformed and revoked keys', async () => {
      const forged = keys.admin.slice(0, -4) + 'AAAA';
      for (const bad of [forged, 'cairn_nothing', 'not-a-key'])
        expect(codeOf(await gqlAs(t.server.url, bad, '{ documents { totalCount } }'))).toBe('UNAUTHENTICATED');
      const basic = await fetch(`${t.server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Basic ${keys.admin}` },
        body: '{"query":"{ __typename }"}',
      });
      expect(basic.status).toBe(401);
      const victim = await t.services.apiKeys.create('to-revoke', 'editor');
      expect(codeOf(await gqlAs(t.server.url, victim.key, '{ documents { totalCount } }'))).toBeUndefined();
      const revoked = await gqlAs<{ revokeApiKey: { revokedAt: string | null } }>(
        t.server.url,
        keys.admin,
        `mutation { revokeApiKey(id: "${victim.apiKey.id}") { revokedAt } }`,
      );
      expect(revoked.body.data?.revokeApiKey.revokedAt).toEqual(expect.any(String));
      const after = await gqlAs(t.server.url, victim.key, '{ documents { totalCount } }');
      expect({ status: after.status, code: codeOf(after) }).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    });

    it('records last_used_at on first use, then at most once a minute', async () => {
      const { apiKey, key } = await t.services.apiKeys.create('usage', 'reader');
      const lastUsed = async () =>
        (
          await t.services.db.query<{ at: Date | null }>('SELECT last_used_at AS at FROM api_keys WHERE id = $1', [
            apiKey.id,
          ])
        ).rows[0]?.at ?? null;
      expect(await lastUsed()).toBeNull();
      await gqlAs(t.server.url, key, '{ documents { totalCount } }');
      await t.services.apiKeys.settle(); // the use is written in the background
      const first = await lastUsed();
      expect(first).toBeInstanceOf(Date);
      // now() has microsecond resolution: an unthrottled second write would change the stamp.
      await gqlAs(t.server.url, key, '{ documents { totalCount } }');
      await t.services.apiKeys.settle();
      expect((await lastUsed())?.getTime()).toBe(first?.getTime());
    });

    it('allows introspection to admins only (__typename to everyone)', async () => {
      for (const role of ['editor', 'agent', 'reader'] as const) {
        for (const query of [
          '{ __schema { queryType { name } } }',
          '{ __type(name: "Document") { name } }',
          'query { ...F } fragment F on Query { __schema { types { name } } }',
        ]) {
          const res = await gqlAs(t.server.url, keys[role], query);
          expect({ role, status: res.status, code: codeOf(res) }).toEqual({ role, status: 403, code: 'FORBIDDEN' });
        }
        expect((await gqlAs(t.server.url, keys[role], '{ __typename }')).body).toEqual({
          data: { __typename: 'Query' },
        });
      }
      // GraphiQL's full introspection query fits the default limits.
      const full = await gqlAs<{ __schema: { types: unknown[] } }>(t.server.url, keys.admin, getIntrospectionQuery());
      expect(full.body.errors).toBeUndefined();
      expect(full.body.data?.__schema.types.length).toBeGreaterThan(20);
    });

    it('requires editor for POST /v1/uploads', async () => {
      expect(await upload(t.server.url, undefined)).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
      expect(await upload(t.server.url, keys.agent)).toEqual({ status: 403, code: 'FORBIDDEN' });
      expect((await upload(t.server.url, keys.editor)).status).toBe(201);
      // The CSRF rule holds with authentication on too: a valid key does not replace the preflight header.
      expect(await upload(t.server.url, keys.admin, false)).toEqual({ status: 400, code: 'BAD_REQUEST' });
    });

    it('manages keys through GraphQL: the key once, lists without secrets', async () => {
      const created = await gqlAs<{
        createApiKey: { key: string; apiKey: { id: string; role: string; name: string } };
      }>(
        t.server.url,
        keys.admin,
        'mutation { createApiKey(input: { name: "support-bot", role: AGENT }) { key apiKey { id name role lastUsedAt revokedAt } } }',
      );
      const made = created.body.data?.createApiKey;
      expect(made?.key).toMatch(/^cairn_[0-9a-f]{16}_[\w-]{43}$/);
      expect(made?.apiKey).toEqual({
        id: made?.key.slice(6, 22),
        name: 'support-bot',
        role: 'AGENT',
        lastUsedAt: null,
        revokedAt: null,
      });
      expect(
        codeOf(await gqlAs(t.server.url, made?.key, '{ search(input: { query: "payments" }) { score } }')),
      ).toBeUndefined();
      const listed = await gqlAs<{ apiKeys: { id: string; role: string }[] }>(
        t.server.url,
        keys.admin,
        '{ apiKeys { id name role createdAt lastUsedAt revokedAt } }',
      );
      expect(listed.body.data?.apiKeys).toEqual(
        expect.arrayContaining([expect.objectContaining({ id: made?.apiKey.id, role: 'AGENT' })]),
      );
      expect(JSON.stringify(listed.body)).not.toContain(made?.key.slice(23));
      const bad = await gqlAs(
        t.server.url,
        keys.admin,
        'mutation { createApiKey(input: { name: "  ", role: READER }) { key } }',
      );
      expect(codeOf(bad)).toBe('BAD_USER_INPUT');
    });

    it('keeps an admin key, refuses names that display as others, and echoes no secret or huge id', async () => {
      const revoke = (id: string) =>
        gqlAs(t.server.url, keys.admin, 'mutation($id: ID!) { revokeApiKey(id: $id) { id revokedAt } }', { id });
      const adminId = keys.admin.slice(6, 22);
      const last = await revoke(adminId);
      expect(codeOf(last)).toBe('CONFLICT');
      expect(last.body.errors?.[0]?.message).toContain('last active admin key');
      const second = await gqlAs<{ createApiKey: { apiKey: { id: string } } }>(
        t.server.url,
        keys.admin,
        'mutation { createApiKey(input: { name: "second admin", role: ADMIN }) { apiKey { id } } }',
      );
      expect(codeOf(await revoke(second.body.data!.createApiKey.apiKey.id))).toBeUndefined();
      expect(codeOf(await revoke(adminId))).toBe('CONFLICT');
      expect(codeOf(await gqlAs(t.server.url, keys.admin, '{ apiKeys { id } }'))).toBeUndefined();
      // An admin pasting the whole key gets no echo of its secret.
      const pasted = await revoke(keys.reader);
      expect(codeOf(pasted)).toBe('BAD_USER_INPUT');
      expect(JSON.stringify(pasted.body)).not.toContain(keys.reader.slice(23));
      const huge = await revoke('x'.repeat(200_000));
      expect(codeOf(huge)).toBe('NOT_FOUND');
      expect(JSON.stringify(huge.body).length).toBeLessThan(2000);
      const bidi = await gqlAs(
        t.server.url,
        keys.admin,
        'mutation($n: String!) { createApiKey(input: { name: $n, role: READER }) { key } }',
        { n: 'ops\u202Etoor' },
      );
      expect(codeOf(bidi)).toBe('BAD_USER_INPUT');
    });

    it('stores only a SHA-256 of each key', async () => {
      const { key } = await t.services.apiKeys.create('hashed', 'reader');
      const secret = key.slice(23);
      const { rows } = await t.services.db.query<Record<string, unknown>>('SELECT * FROM api_keys');
      const dump = JSON.stringify(rows);
      expect(dump).not.toContain(secret);
      expect(dump).toContain(createHash('sha256').update(key).digest('hex'));
    });
  });

  describe('without keys', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer(target);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('serves local requests as admin, refuses relayed or foreign-Host ones', async () => {
      expect(
        codeOf(await gqlAs(t.server.url, undefined, 'mutation { deleteDocument(id: "doc:x") { deleted } }')),
      ).toBeUndefined();
      const proxied = await gqlAs(t.server.url, undefined, '{ documents { totalCount } }', undefined, {
        'x-forwarded-for': '203.0.113.9',
      });
      expect({ status: proxied.status, code: codeOf(proxied) }).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
      expect(proxied.body.errors?.[0]?.message).toContain('keys create --role admin');
      expect((await requestWithHost(t.server.url, 'rebound.example:4000')).status).toBe(401);
      expect((await requestWithHost(t.server.url, 'localhost:4000')).status).toBe(200);
    });

    it('makes the first key an admin key, so that someone can still manage keys', async () => {
      const first = await gqlAs(
        t.server.url,
        undefined,
        'mutation { createApiKey(input: { name: "bot", role: READER }) { key } }',
      );
      expect(codeOf(first)).toBe('BAD_USER_INPUT');
      expect(first.body.errors?.[0]?.message).toContain('the first API key must be an ADMIN key');
      // Nothing was created: authentication is still off.
      expect(codeOf(await gqlAs(t.server.url, undefined, '{ documents { totalCount } }'))).toBeUndefined();
    });

    it('refuses cross-site uploads while authentication is off', async () => {
      const stored = async () =>
        (await t.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM uploads')).rows[0]!.n;
      expect(await upload(t.server.url, undefined, false)).toEqual({ status: 400, code: 'BAD_REQUEST' });
      expect(await stored()).toBe(0);
      expect((await upload(t.server.url, undefined)).status).toBe(201);
      expect(await stored()).toBe(1);
    });

    it('turns authentication on, per request, once another process creates a key', async () => {
      // A second service over the same database writes the key, like `cairn keys create` does.
      const elsewhere = new ApiKeyService(t.services.db);
      const { key } = await elsewhere.create('from-elsewhere', 'reader');
      await eventually(
        async () => codeOf(await gqlAs(t.server.url, undefined, '{ documents { totalCount } }')) === 'UNAUTHENTICATED',
        { what: 'authentication turning on' },
      );
      expect(codeOf(await gqlAs(t.server.url, key, '{ documents { totalCount } }'))).toBeUndefined();
      expect((await fetch(`${t.server.url}/healthz`)).status).toBe(200);
    });
  });

  describe('with CAIRN_AUTH=required and no key', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer(target, { CAIRN_AUTH: 'required' });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('refuses every operation and upload, keeps health and pages public', async () => {
      for (const op of ROOT_OPERATIONS) {
        const res = await gqlAs(t.server.url, undefined, op.query(++counter));
        expect({ field: op.field, status: res.status, code: codeOf(res) }).toEqual({
          field: op.field,
          status: 401,
          code: 'UNAUTHENTICATED',
        });
      }
      expect(await upload(t.server.url, undefined)).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
      expect((await fetch(`${t.server.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${t.server.url}/readyz`)).status).toBe(200);
      for (const page of ['/explorer', '/knowledge', '/graphiql'])
        expect((await fetch(`${t.server.url}${page}`)).status).not.toBe(401);
    });
  });
});

describe('listening beyond loopback', () => {
  it('starts once a key exists, and keeps requiring keys after all are revoked', async () => {
    const t = await startTestServer(edgeTarget());
    try {
      const { apiKey, key } = await t.services.apiKeys.create('ops', 'admin');
      const exposed = await startHttpServer(t.services, 0, '0.0.0.0');
      try {
        const url = `http://127.0.0.1:${(exposed.httpServer.address() as AddressInfo).port}`;
        expect(codeOf(await gqlAs(url, key, '{ documents { totalCount } }'))).toBeUndefined();
        await t.services.apiKeys.revoke(apiKey.id);
        expect(codeOf(await gqlAs(url, undefined, '{ documents { totalCount } }'))).toBe('UNAUTHENTICATED');
        // The loopback-only server is open again: no key exists.
        expect(codeOf(await gqlAs(t.server.url, undefined, '{ documents { totalCount } }'))).toBeUndefined();
      } finally {
        await exposed.stop();
      }
    } finally {
      await t.close();
    }
  });
});

describe('request logs', () => {
  it('never contain a bearer key', async () => {
    const server = await startLoggedServer();
    try {
      const { key } = await server.services.apiKeys.create('logged', 'reader');
      expect(codeOf(await gqlAs(server.url, key, '{ documents { totalCount } }'))).toBeUndefined();
      expect(codeOf(await gqlAs(server.url, `${key}x`, '{ documents { totalCount } }'))).toBe('UNAUTHENTICATED');
      await eventually(() => (server.logged().match(/request completed|request errored/g) ?? []).length >= 2, {
        what: 'both requests logged',
      });
      expect(server.logged()).toContain('"authorization":"[redacted]"');
      expect(server.logged()).not.toContain(key.slice(23));
    } finally {
      await server.close();
    }
  });
});
