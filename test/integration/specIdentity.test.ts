import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { edgeTarget } from '../helpers/databases.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixtureSite.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';
import { eventually } from '../helpers/eventually.js';

// A spec's id is derived from its URL, its info.title or its file name unless the caller gives specId. Two specs
// that derive the same id must not replace each other: the second is refused with CONFLICT, naming the first.

const PREFLIGHT = { 'apollo-require-preflight': 'true' };
const IMPORT_OPENAPI = `mutation($input: ImportOpenApiInput!) {
  importOpenApi(input: $input) { warnings documents { id } job { id status errors { item code message } } }
}`;
const IMPORT_UPLOAD = `mutation($input: ImportUploadInput!) { importUpload(input: $input) { documents { id } job { status } } }`;
const IMPORT_URL = `mutation($input: ImportUrlInput!) { importUrl(input: $input) { documents { id } job { status } } }`;
const DOCUMENT = `query($id: ID!) { document(id: $id) { id title source content metadata } }`;

interface SpecShape {
  title: string;
  version?: string;
  servers?: string[];
  paths: string[];
}

/** A small valid OpenAPI 3 spec: one GET per path, operationIds from the path. */
function spec({ title, version = '1.0.0', servers = [], paths }: SpecShape): string {
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title, version },
    ...(servers.length > 0 ? { servers: servers.map((url) => ({ url })) } : {}),
    paths: Object.fromEntries(
      paths.map((p) => [
        p,
        {
          get: {
            operationId: `get${p.replace(/[^A-Za-z]/g, '')}`,
            summary: `Read ${p}`,
            responses: { '200': { description: 'ok' } },
          },
        },
      ]),
    ),
  });
}

type ImportResult = {
  importOpenApi: {
    documents: { id: string }[];
    job: { id: string; status: string; errors: { item: string; code: string; message: string }[] };
  };
};

// The guard does not depend on the store: one database (edgeTarget); imports.test.ts runs both.
describe.each([edgeTarget()])('OpenAPI spec identity: specId and the collision guard ($name)', (target) => {
  let t: TestServer;
  let site: FixtureSite;
  beforeAll(async () => {
    site = await startFixtureSite();
    t = await startTestServer(target, {
      CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      CAIRN_RATE_LIMIT_PER_SECOND: '0',
    });
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  const importSpec = (input: Record<string, unknown>) => t.gql<ImportResult>(IMPORT_OPENAPI, { input });
  const documentIds = async (prefix: string) => (await t.services.documents.idsWithPrefix(prefix)).sort();
  const entityIds = async (specId: string) =>
    (
      await t.services.graph.entityIdsWithPrefix([`operation:${specId}:`, `schema:${specId}:`, `tag:${specId}:`])
    ).sort();
  const documentCount = async () =>
    (await t.gql<{ knowledgeStats: { documentCount: number } }>('{ knowledgeStats { documentCount } }')).data!
      .knowledgeStats.documentCount;
  async function upload(name: string, text: string): Promise<string> {
    const form = new FormData();
    form.append('file', new Blob([text], { type: 'application/json' }), name);
    const res = await fetch(`${t.server.url}/v1/uploads`, { method: 'POST', body: form, headers: PREFLIGHT });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  }

  it('refuses a second inline spec with the same title from elsewhere, leaving the first intact; with a specId both coexist', async () => {
    const teamA = spec({
      title: 'API',
      servers: ['https://accounts.example.com/v1'],
      paths: ['/accounts', '/accounts/{id}'],
    });
    const first = await importSpec({ content: teamA, source: 'team-a' });
    expect(first.errors).toBeUndefined();
    const before = {
      docs: await documentIds('openapi:api'),
      entities: await entityIds('api'),
      count: await documentCount(),
    };
    expect(before.docs).toHaveLength(3);
    const overviewBefore = (await t.gql<{ document: { content: string } }>(DOCUMENT, { id: 'openapi:api' })).data!
      .document;

    // Another team's spec, also titled "API": other servers, other operations.
    const teamB = spec({ title: 'API', servers: ['https://orders.example.com'], paths: ['/orders'] });
    const refused = await importSpec({ content: teamB, source: 'team-b' });
    expect(refused.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const message = refused.errors![0]!.message;
    expect(message).toContain('spec id "api" already belongs to the spec "API"');
    expect(message).toContain('source "team-a"');
    expect(message).toContain('accounts.example.com');
    expect(message).toContain('specId');
    expect(message).toContain('re-import it from the same source');
    expect(message).toContain('Nothing was written');
    expect(await documentIds('openapi:api')).toEqual(before.docs);
    expect(await entityIds('api')).toEqual(before.entities);
    expect(await documentCount()).toBe(before.count);
    expect((await t.gql<{ document: { content: string } }>(DOCUMENT, { id: 'openapi:api' })).data!.document).toEqual(
      overviewBefore,
    );

    // No servers to compare: the operations tell the specs apart.
    const serverless = await importSpec({ content: spec({ title: 'API', paths: ['/health', '/metrics'] }) });
    expect(serverless.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    expect(serverless.errors![0]!.message).toContain('no operation (method and path) in common');
    expect(await documentIds('openapi:api')).toEqual(before.docs);

    const separate = await importSpec({ content: teamB, source: 'team-b', specId: 'orders-api' });
    expect(separate.errors).toBeUndefined();
    expect(separate.data!.importOpenApi.documents.map((d) => d.id).sort()).toEqual([
      'openapi:orders-api',
      'openapi:orders-api:GET%20/orders',
    ]);
    expect(await documentIds('openapi:api')).toEqual(before.docs);
    expect(await entityIds('api')).toEqual(before.entities);
    const api = await t.services.graph.getEntities(['api:api', 'api:orders-api']);
    expect(api.map((e) => e.properties.specId).sort()).toEqual(['api', 'orders-api']);
  });

  it('still replaces the same inline spec re-imported with a new version, new operations and a new server', async () => {
    const v1 = spec({
      title: 'Ledger API',
      servers: ['https://ledger.example.com'],
      paths: ['/entries', '/entries/{id}'],
    });
    expect((await importSpec({ content: v1 })).errors).toBeUndefined();
    const v2 = spec({
      title: 'Ledger API',
      version: '2.0.0',
      servers: ['https://ledger.example.com', 'https://staging.ledger.example.com'],
      paths: ['/entries', '/balances'],
    });
    const again = await importSpec({ content: v2 });
    expect(again.errors).toBeUndefined();
    expect(again.data!.importOpenApi.job.status).toBe('SUCCEEDED');
    expect(await documentIds('openapi:ledger-api')).toEqual([
      'openapi:ledger-api',
      'openapi:ledger-api:GET%20/balances',
      'openapi:ledger-api:GET%20/entries',
    ]);
    const overview = (
      await t.gql<{ document: { metadata: Record<string, unknown> } }>(DOCUMENT, { id: 'openapi:ledger-api' })
    ).data!.document;
    expect(overview.metadata).toMatchObject({
      apiVersion: '2.0.0',
      infoTitle: 'Ledger API',
      origin: { kind: 'content' },
      serverHosts: ['ledger.example.com', 'staging.ledger.example.com'],
    });
  });

  it('replaces another spec on purpose when its id is given as specId', async () => {
    expect(
      (
        await importSpec({
          content: spec({ title: 'Queue API', servers: ['https://queue.example.com'], paths: ['/jobs'] }),
        })
      ).errors,
    ).toBeUndefined();
    const other = spec({ title: 'Queue API', servers: ['https://broker.example.com'], paths: ['/topics'] });
    expect((await importSpec({ content: other })).errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const replaced = await importSpec({ content: other, specId: 'queue-api' });
    expect(replaced.errors).toBeUndefined();
    expect(await documentIds('openapi:queue-api')).toEqual(['openapi:queue-api', 'openapi:queue-api:GET%20/topics']);
  });

  it('fails an async import on a taken id as the job item CONFLICT, writing nothing', async () => {
    expect(
      (await importSpec({ content: spec({ title: 'Async API', servers: ['https://one.example.com'], paths: ['/a'] }) }))
        .errors,
    ).toBeUndefined();
    const count = await documentCount();
    const queued = await importSpec({
      content: spec({ title: 'Async API', servers: ['https://two.example.com'], paths: ['/b'] }),
      async: true,
    });
    expect(queued.errors).toBeUndefined();
    const id = queued.data!.importOpenApi.job.id;
    type Job = { status: string; errors: { item: string; code: string; message: string }[] };
    const job = await eventually(
      async () => {
        const { importJob } = (
          await t.gql<{ importJob: Job }>(
            'query($id: ID!) { importJob(id: $id) { status errors { item code message } } }',
            { id },
          )
        ).data!;
        return importJob.status !== 'QUEUED' && importJob.status !== 'RUNNING' && importJob;
      },
      { what: 'the import job ending' },
    );
    expect(job!.status).toBe('FAILED');
    expect(job!.errors).toEqual([
      {
        item: 'inline spec',
        code: 'CONFLICT',
        message: expect.stringContaining('spec id "async-api" already belongs to the spec "Async API"'),
      },
    ]);
    expect(await documentIds('openapi:async-api')).toEqual(['openapi:async-api', 'openapi:async-api:GET%20/a']);
    expect(await documentCount()).toBe(count);
  });

  it('tells two uploads named openapi.json apart by their specs, and replaces on a re-upload of the same spec', async () => {
    const billing = spec({ title: 'Billing API', servers: ['https://billing.example.com'], paths: ['/invoices'] });
    expect(
      (await t.gql(IMPORT_UPLOAD, { input: { uploadId: await upload('openapi.json', billing) } })).errors,
    ).toBeUndefined();
    expect(await documentIds('openapi:openapi.json')).toEqual([
      'openapi:openapi.json',
      'openapi:openapi.json:GET%20/invoices',
    ]);

    // Another folder's openapi.json: same name, another API.
    const payments = spec({ title: 'Payments API', servers: ['https://payments.example.com'], paths: ['/charges'] });
    const refused = await t.gql(IMPORT_UPLOAD, { input: { uploadId: await upload('openapi.json', payments) } });
    expect(refused.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    expect(refused.errors![0]!.message).toContain(
      'already belongs to the spec "Billing API" (from the file openapi.json)',
    );
    expect(refused.errors![0]!.message).toContain('its title is "Billing API", this one\'s "Payments API"');
    expect(await documentIds('openapi:openapi.json')).toEqual([
      'openapi:openapi.json',
      'openapi:openapi.json:GET%20/invoices',
    ]);

    const separate = await t.gql(IMPORT_UPLOAD, {
      input: { uploadId: await upload('openapi.json', payments), specId: 'payments' },
    });
    expect(separate.errors).toBeUndefined();
    expect(await documentIds('openapi:payments')).toEqual(['openapi:payments', 'openapi:payments:GET%20/charges']);

    const billingV2 = spec({
      title: 'Billing API',
      version: '1.1.0',
      servers: ['https://billing.example.com'],
      paths: ['/invoices', '/refunds'],
    });
    const updated = await t.gql(IMPORT_UPLOAD, { input: { uploadId: await upload('openapi.json', billingV2) } });
    expect(updated.errors).toBeUndefined();
    expect(await documentIds('openapi:openapi.json')).toEqual([
      'openapi:openapi.json',
      'openapi:openapi.json:GET%20/invoices',
      'openapi:openapi.json:GET%20/refunds',
    ]);
    expect(await documentIds('openapi:payments')).toEqual(['openapi:payments', 'openapi:payments:GET%20/charges']);

    // A document id the caller chose names the spec as chosen: it replaces whatever spec holds it.
    const chosen = await t.gql(IMPORT_UPLOAD, {
      input: { uploadId: await upload('openapi.json', payments), id: 'file:openapi.json' },
    });
    expect(chosen.errors).toBeUndefined();
    expect(await documentIds('openapi:openapi.json')).toEqual([
      'openapi:openapi.json',
      'openapi:openapi.json:GET%20/charges',
    ]);
  });

  it('refuses a spec URL whose id another URL already holds, and replaces on a re-import from the same URL', async () => {
    site.routes.set('/specs/pets-api.json', {
      body: spec({ title: 'Pets', paths: ['/pets'] }),
      type: 'application/json',
    });
    site.routes.set('/specs/pets/api.json', {
      body: spec({ title: 'Pets', paths: ['/pets'] }),
      type: 'application/json',
    });
    const first = await importSpec({ url: `${site.url}/specs/pets-api.json` });
    expect(first.errors).toBeUndefined();
    const specId = first.data!.importOpenApi.documents[0]!.id.replace(/^openapi:/, '');
    const docs = await documentIds(`openapi:${specId}`);

    // Another file whose URL gives the same slug, through either mutation.
    for (const refused of [
      await importSpec({ url: `${site.url}/specs/pets/api.json` }),
      await t.gql(IMPORT_URL, { input: { url: `${site.url}/specs/pets/api.json` } }),
    ]) {
      expect(refused.errors?.[0]?.extensions?.code).toBe('CONFLICT');
      expect(refused.errors![0]!.message).toContain(
        `fetched from ${site.url.replace(/^http:\/\//, '')}/specs/pets-api.json`,
      );
    }
    expect(await documentIds(`openapi:${specId}`)).toEqual(docs);

    site.routes.set('/specs/pets-api.json', {
      body: spec({ title: 'Pet Store (renamed)', version: '2', paths: ['/owners'] }),
      type: 'application/json',
    });
    const again = await importSpec({ url: `${site.url}/specs/pets-api.json` });
    expect(again.errors).toBeUndefined();
    expect(await documentIds(`openapi:${specId}`)).toEqual([`openapi:${specId}`, `openapi:${specId}:GET%20/owners`]);
    const viaImportUrl = await t.gql(IMPORT_URL, { input: { url: `${site.url}/specs/pets-api.json` } });
    expect(viaImportUrl.errors).toBeUndefined();
  });

  it('guards specs imported before origins were recorded, from what their overview and Api entity hold', async () => {
    expect((await importSpec({ content: spec({ title: 'Legacy API', paths: ['/old'] }) })).errors).toBeUndefined();
    await t.services.db.query(
      `UPDATE documents SET metadata = metadata - 'origin' - 'infoTitle' - 'serverHosts' WHERE id = 'openapi:legacy-api'`,
    );
    const refused = await importSpec({ content: spec({ title: 'Legacy API', paths: ['/new'] }) });
    expect(refused.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    expect(refused.errors![0]!.message).toContain('no recorded source');
    const again = await importSpec({ content: spec({ title: 'Legacy API', version: '2', paths: ['/old', '/new'] }) });
    expect(again.errors).toBeUndefined();
    expect(await documentIds('openapi:legacy-api')).toEqual([
      'openapi:legacy-api',
      'openapi:legacy-api:GET%20/new',
      'openapi:legacy-api:GET%20/old',
    ]);
  });

  it('validates specId: BAD_USER_INPUT naming the field and the allowed characters, before any job', async () => {
    const content = spec({ title: 'Valid', paths: ['/v'] });
    for (const bad of ['billing api', 'team:billing', 'a/b', '', 'x'.repeat(101)]) {
      const res = await importSpec({ content, specId: bad });
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.errors![0]!.message).toMatch(/^input\.specId: /);
      expect(res.errors![0]!.message).toMatch(
        bad === '' ? /must not be empty/ : /use 1-100 letters, digits, "_", "\." or "-"/,
      );
    }
    const uploadId = await upload('spec.json', content);
    const badUpload = await t.gql(IMPORT_UPLOAD, { input: { uploadId, specId: 'no spaces please' } });
    expect(badUpload.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(badUpload.errors![0]!.message).toContain('input.specId: "no spaces please" is not a valid spec id');

    // specId names a spec: on any other file it is a mistake, not silently ignored.
    const form = new FormData();
    form.append('file', new Blob(['# Notes\n\nNot a spec at all.'], { type: 'text/markdown' }), 'notes.md');
    const note = (
      (await (
        await fetch(`${t.server.url}/v1/uploads`, { method: 'POST', body: form, headers: PREFLIGHT })
      ).json()) as { id: string }
    ).id;
    const notSpec = await t.gql(IMPORT_UPLOAD, { input: { uploadId: note, specId: 'notes' } });
    expect(notSpec.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(notSpec.errors![0]!.message).toContain('"notes.md" is not an OpenAPI spec');
    expect((await t.gql<{ document: unknown }>(DOCUMENT, { id: 'file:notes.md' })).data!.document).toBeNull();
  });
});
