import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projectPath } from '../../src/paths.js';
import { edgeTarget } from '../helpers/databases.js';
import { heldRoute, startFixtureSite, type FixtureSite } from '../helpers/fixtureSite.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';
import { eventually } from '../helpers/eventually.js';

const IMPORT_URL = `mutation($input: ImportUrlInput!) {
  importUrl(input: $input) {
    chunkCount warnings
    documents { id title documentType source tags metadata content }
    job { id kind status progress { done total } embeddedChunkCount errors { item code message } }
  }
}`;
const IMPORT_OPENAPI = `mutation($input: ImportOpenApiInput!) {
  importOpenApi(input: $input) { chunkCount documents { id title documentType } job { status embeddedChunkCount } }
}`;
const JOB = `query($id: ID!) { importJob(id: $id) { id status progress { done total } documents { id } errors { item code } } }`;

// The preflight header /v1/uploads requires (docs/security.md "CSRF"); a cross-site HTML form cannot send it.
const PREFLIGHT = { 'apollo-require-preflight': 'true' };

/** The first error of a JSON error body: the shape every route answers with. */
async function firstError(res: Response): Promise<{ message: string; code: string | undefined }> {
  const body = (await res.json()) as { errors: { message: string; extensions: { code?: string } }[] };
  return { message: body.errors[0]!.message, code: body.errors[0]!.extensions.code };
}

const page = (name: string) => fs.readFileSync(projectPath('test', 'fixtures', 'pages', name), 'utf8');

const SPEC = (extraOperation: boolean) => `
openapi: 3.0.3
info: { title: Billing API, version: 1.2.0, description: Invoices and customers. }
servers: [{ url: https://billing.example.com/v1 }]
tags: [{ name: invoices, description: Invoice operations }]
paths:
  /invoices/{invoiceId}:
    get:
      operationId: getInvoice
      summary: Fetch an invoice
      tags: [invoices]
      parameters:
        - { name: invoiceId, in: path, required: true, schema: { type: string }, description: The invoice id }
      responses:
        '200': { description: The invoice, content: { application/json: { schema: { $ref: '#/components/schemas/Invoice' } } } }
${
  extraOperation
    ? `  /invoices:
    post:
      operationId: createInvoice
      summary: Create an invoice
      tags: [invoices]
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Invoice' } } } }
      responses:
        '201': { description: Created, content: { application/json: { schema: { $ref: '#/components/schemas/Invoice' } } } }
`
    : ''
}components:
  schemas:
    Customer: { type: object, properties: { id: { type: string }, email: { type: string, format: email } } }
    Invoice:
      type: object
      required: [id]
      properties:
        id: { type: string }
        amountCents: { type: integer, description: Total in cents }
        customer: { $ref: '#/components/schemas/Customer' }
`;

// The importers do not depend on the store: one database (edgeTarget); the CLI's import suites run on PGlite.
describe.each([edgeTarget()])('imports over GraphQL ($name)', (target) => {
  let t: TestServer;
  let site: FixtureSite;
  beforeAll(async () => {
    site = await startFixtureSite({
      '/blog/release-notes': { body: page('article.html'), type: 'text/html; charset=utf-8' },
      '/docs/guide/install': { body: page('docs.html'), type: 'text/html; charset=utf-8' },
      '/help/faq': { body: page('noisy.html'), type: 'text/html' },
      '/notes.md': {
        body: '# Deploy notes\n\nRoll out canary first, then the rest of the fleet.',
        type: 'text/markdown',
      },
      '/old': { redirect: '/help/faq' },
      '/to-metadata': { redirect: 'http://169.254.169.254/latest/meta-data/' },
      '/manuals/report.pdf': {
        body: fs.readFileSync(projectPath('test', 'fixtures', 'files', 'report.pdf')),
        type: 'application/pdf',
      },
      '/api/openapi.yaml': { body: SPEC(false), type: 'application/yaml' },
      '/image.png': { body: Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), type: 'image/png' },
    });
    t = await startTestServer(target, {
      CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      CAIRN_UPLOAD_MAX_BYTES: '200000',
    });
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  it('imports an HTML page as clean markdown, searchable at once, with detected type and fetch metadata', async () => {
    const res = await t.gql<{
      importUrl: {
        chunkCount: number;
        documents: {
          id: string;
          title: string;
          documentType: string;
          source: string;
          metadata: Record<string, unknown>;
          content: string;
          tags: string[];
        }[];
        job: { status: string; kind: string; progress: { done: number; total: number } };
      };
    }>(IMPORT_URL, { input: { url: `${site.url}/docs/guide/install?utm_source=x#top`, tags: ['docs'] } });
    expect(res.errors).toBeUndefined();
    const result = res.data!.importUrl;
    expect(result.job).toMatchObject({ status: 'SUCCEEDED', kind: 'URL', progress: { done: 1, total: 1 } });
    const doc = result.documents[0]!;
    expect(doc.id).toBe(`${site.url}/docs/guide/install`);
    expect(doc.documentType).toBe('TUTORIAL');
    expect(doc.tags).toEqual(['docs']);
    expect(doc.content).toMatch(/^#{1,3} /m);
    expect(doc.content).toContain('```');
    expect(doc.content).not.toMatch(/<script|!\[/);
    expect(doc.metadata).toMatchObject({
      finalUrl: `${site.url}/docs/guide/install?utm_source=x`,
      contentType: 'text/html',
    });
    expect(typeof doc.metadata.fetchedAt).toBe('string');
    expect(result.chunkCount).toBeGreaterThan(0);

    const hits = await t.gql<{ search: { document: { id: string } }[] }>(
      `query($q: String!) { search(input: {query: $q, topK: 3}) { document { id } } }`,
      {
        q: doc.title,
      },
    );
    expect(hits.data!.search.map((h) => h.document.id)).toContain(doc.id);
  });

  it('re-importing the same URL updates the same document and re-embeds only what changed', async () => {
    const url = `${site.url}/notes.md`;
    const first = await t.gql<{
      importUrl: {
        documents: { id: string; documentType: string; title: string }[];
        job: { embeddedChunkCount: number };
      };
    }>(IMPORT_URL, { input: { url } });
    expect(first.errors).toBeUndefined();
    expect(first.data!.importUrl.documents[0]).toMatchObject({ id: url, title: 'Deploy notes', documentType: 'OTHER' });
    expect(first.data!.importUrl.job.embeddedChunkCount).toBe(1);
    const again = await t.gql<{ importUrl: { job: { embeddedChunkCount: number } } }>(IMPORT_URL, { input: { url } });
    expect(again.data!.importUrl.job.embeddedChunkCount).toBe(0);
    site.routes.set('/notes.md', {
      body: '# Deploy notes\n\nRoll out canary first. Watch the error budget for an hour.',
      type: 'text/markdown',
    });
    const changed = await t.gql<{ importUrl: { documents: { id: string }[]; job: { embeddedChunkCount: number } } }>(
      IMPORT_URL,
      { input: { url } },
    );
    expect(changed.data!.importUrl.documents.map((d) => d.id)).toEqual([url]);
    expect(changed.data!.importUrl.job.embeddedChunkCount).toBe(1);
    const count = await t.gql<{ documents: { totalCount: number } }>(
      `{ documents(filter: {text: "Deploy notes"}) { totalCount } }`,
    );
    expect(count.data!.documents.totalCount).toBe(1);
  });

  it('routes PDFs to the file extractor and OpenAPI bodies to the OpenAPI importer', async () => {
    const pdf = await t.gql<{
      importUrl: { documents: { documentType: string; content: string; metadata: Record<string, unknown> }[] };
    }>(IMPORT_URL, {
      input: { url: `${site.url}/manuals/report.pdf` },
    });
    expect(pdf.errors).toBeUndefined();
    const doc = pdf.data!.importUrl.documents[0]!;
    expect(doc.documentType).toBe('MANUAL');
    expect(doc.metadata).toMatchObject({ pageCount: 3, contentType: 'application/pdf' });
    expect(doc.content.length).toBeGreaterThan(50);

    const spec = await t.gql<{ importUrl: { documents: { id: string; documentType: string }[] } }>(IMPORT_URL, {
      input: { url: `${site.url}/api/openapi.yaml` },
    });
    expect(spec.errors).toBeUndefined();
    expect(spec.data!.importUrl.documents).toHaveLength(2);
    expect(new Set(spec.data!.importUrl.documents.map((d) => d.documentType))).toEqual(new Set(['API_SPEC']));
  });

  it('follows redirects, records the final URL and detects the type from it', async () => {
    const res = await t.gql<{
      importUrl: { documents: { documentType: string; metadata: { finalUrl: string; url: string } }[] };
    }>(IMPORT_URL, {
      input: { url: `${site.url}/old`, title: 'Help centre' },
    });
    expect(res.errors).toBeUndefined();
    expect(res.data!.importUrl.documents[0]).toMatchObject({
      documentType: 'FAQ',
      metadata: { url: `${site.url}/old`, finalUrl: `${site.url}/help/faq` },
    });
  });

  it('refuses private targets and redirects to metadata addresses with IMPORT_FETCH_BLOCKED, writing nothing', async () => {
    const before = await t.gql<{ knowledgeStats: { documentCount: number } }>(`{ knowledgeStats { documentCount } }`);
    const hitsBefore = site.hits.get('/notes.md') ?? 0;
    for (const url of [
      `${site.localhostUrl}/notes.md`,
      `${site.url}/to-metadata`,
      'file:///etc/passwd',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      const res = await t.gql(IMPORT_URL, { input: { url } });
      expect(res.errors?.[0]?.extensions?.code).toBe('IMPORT_FETCH_BLOCKED');
      expect(res.errors?.[0]?.extensions?.jobId).toEqual(expect.any(String));
    }
    expect(site.hits.get('/notes.md') ?? 0).toBe(hitsBefore);
    const after = await t.gql<{ knowledgeStats: { documentCount: number } }>(`{ knowledgeStats { documentCount } }`);
    expect(after.data!.knowledgeStats.documentCount).toBe(before.data!.knowledgeStats.documentCount);
  });

  it('answers unsupported content and bad URLs with their own codes', async () => {
    const png = await t.gql(IMPORT_URL, { input: { url: `${site.url}/image.png` } });
    expect(png.errors?.[0]?.extensions?.code).toBe('UNSUPPORTED_CONTENT_TYPE');
    const missing = await t.gql(IMPORT_URL, { input: { url: `${site.url}/nope` } });
    expect(missing.errors?.[0]?.extensions?.code).toBe('IMPORT_FETCH_FAILED');
    expect(missing.errors?.[0]?.message).toContain('404');
    const bad = await t.gql(IMPORT_URL, { input: { url: 'not a url' } });
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('runs an async import as a job that can be polled and listed', async () => {
    // The page is held until the mutation has answered: the job cannot finish first, however busy the machine.
    const slow = heldRoute({
      body: '<html><head><title>Slow page</title></head><body><main><h1>Slow page</h1><p>Patience is a virtue in page loading.</p></main></body></html>',
      type: 'text/html',
    });
    site.routes.set('/slow', slow.route);
    const res = await t.gql<{ importUrl: { job: { id: string; status: string }; documents: unknown[] } }>(IMPORT_URL, {
      input: { url: `${site.url}/slow`, async: true },
    });
    expect(res.errors).toBeUndefined();
    expect(['QUEUED', 'RUNNING']).toContain(res.data!.importUrl.job.status);
    expect(res.data!.importUrl.documents).toEqual([]);
    slow.release();
    const id = res.data!.importUrl.job.id;
    type Job = { status: string; progress: { done: number; total: number }; documents: { id: string }[] };
    const job = await eventually(
      async () => {
        const { importJob } = (await t.gql<{ importJob: Job }>(JOB, { id })).data!;
        return importJob.status !== 'QUEUED' && importJob.status !== 'RUNNING' && importJob;
      },
      { what: 'the async import ending' },
    );
    expect(job).toMatchObject({
      status: 'SUCCEEDED',
      progress: { done: 1, total: 1 },
      documents: [{ id: `${site.url}/slow` }],
    });

    const list = await t.gql<{
      importJobs: {
        totalCount: number;
        nodes: { id: string }[];
        pageInfo: { endCursor: string; hasNextPage: boolean };
      };
    }>(`{ importJobs(first: 2) { totalCount nodes { id } pageInfo { endCursor hasNextPage } } }`);
    expect(list.data!.importJobs.nodes[0]!.id).toBe(id);
    expect(list.data!.importJobs.pageInfo.hasNextPage).toBe(true);
    const next = await t.gql<{ importJobs: { nodes: { id: string }[] } }>(
      `query($a: String) { importJobs(first: 100, after: $a) { nodes { id } } }`,
      {
        a: list.data!.importJobs.pageInfo.endCursor,
      },
    );
    expect(next.data!.importJobs.nodes.map((n) => n.id)).not.toContain(id);
    expect(next.data!.importJobs.nodes.length).toBe(list.data!.importJobs.totalCount - 2);
    const failed = await t.gql<{ importJobs: { nodes: { status: string }[] } }>(
      `{ importJobs(status: FAILED, first: 100) { nodes { status } } }`,
    );
    expect(failed.data!.importJobs.nodes.length).toBeGreaterThan(0);
    expect(new Set(failed.data!.importJobs.nodes.map((n) => n.status))).toEqual(new Set(['FAILED']));
  });

  it('imports an OpenAPI spec into documents and graph nodes, and a re-import drops vanished operations', async () => {
    const res = await t.gql<{
      importOpenApi: { documents: { id: string; documentType: string }[]; job: { status: string } };
    }>(IMPORT_OPENAPI, {
      input: { content: SPEC(true), tags: ['billing'] },
    });
    expect(res.errors).toBeUndefined();
    const docs = res.data!.importOpenApi.documents;
    expect(docs).toHaveLength(3); // overview + 2 operations
    expect(new Set(docs.map((d) => d.documentType))).toEqual(new Set(['API_SPEC']));

    const graph = await t.gql<{ entities: { nodes: { id: string; type: string; name: string }[] } }>(
      `{ entities(first: 100) { nodes { id type name } } }`,
    );
    const specId = docs
      .map((d) => d.id)
      .find((id) => id.split(':').length === 2)!
      .split(':')[1];
    const ofSpec = graph.data!.entities.nodes.filter((e) => e.id.split(':')[1] === specId);
    const types = ofSpec.map((e) => e.type).sort();
    expect(types.filter((x) => x === 'Operation')).toHaveLength(2);
    expect(types.filter((x) => x === 'Schema')).toHaveLength(2);
    expect(types).toContain('Api');
    expect(types).toContain('Tag');
    const invoice = ofSpec.find((e) => e.type === 'Schema' && e.name === 'Invoice')!;
    const around = await t.gql<{
      entity: { relationships: { type: string; from: { type: string }; to: { name: string } }[] };
    }>(`query($id: ID!) { entity(id: $id) { relationships { type from { type } to { name } } } }`, { id: invoice.id });
    const rels = around.data!.entity.relationships.map((r) => `${r.from.type}-${r.type}->${r.to.name}`).sort();
    expect(rels).toEqual(
      expect.arrayContaining([
        'Operation-ACCEPTS->Invoice',
        'Operation-RETURNS->Invoice',
        'Schema-REFERENCES->Customer',
      ]),
    );

    const again = await t.gql<{ importOpenApi: { documents: { id: string }[]; job: { embeddedChunkCount: number } } }>(
      IMPORT_OPENAPI,
      {
        input: { content: SPEC(false), tags: ['billing'] },
      },
    );
    expect(again.errors).toBeUndefined();
    expect(again.data!.importOpenApi.documents).toHaveLength(2);
    const gone = docs.map((d) => d.id).filter((id) => !again.data!.importOpenApi.documents.some((d) => d.id === id));
    expect(gone).toHaveLength(1);
    const lookup = await t.gql<{ document: unknown }>(`query($id: ID!) { document(id: $id) { id } }`, { id: gone[0] });
    expect(lookup.data!.document).toBeNull();
  });

  it('rejects an invalid spec with INVALID_OPENAPI and writes nothing', async () => {
    const before = await t.gql<{ knowledgeStats: { documentCount: number } }>(`{ knowledgeStats { documentCount } }`);
    const res = await t.gql(IMPORT_OPENAPI, {
      input: {
        content: 'openapi: 3.0.0\ninfo: { title: Broken }\npaths:\n  /x:\n    get:\n      responses: { 200: 7 }\n',
      },
    });
    expect(res.errors?.[0]?.extensions?.code).toBe('INVALID_OPENAPI');
    const both = await t.gql(IMPORT_OPENAPI, { input: { content: 'x', url: 'https://example.com/spec.yaml' } });
    expect(both.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const after = await t.gql<{ knowledgeStats: { documentCount: number } }>(`{ knowledgeStats { documentCount } }`);
    expect(after.data!.knowledgeStats.documentCount).toBe(before.data!.knowledgeStats.documentCount);
  });

  it('uploads a file with POST /v1/uploads and imports it with importUpload', async () => {
    const form = new FormData();
    form.append(
      'file',
      new Blob(['# Escalation policy\n\nPage the on-call engineer after 15 minutes without an answer.'], {
        type: 'text/markdown',
      }),
      'escalation.md',
    );
    const up = await fetch(`${t.server.url}/v1/uploads`, { method: 'POST', body: form, headers: PREFLIGHT });
    expect(up.status).toBe(201);
    const upload = (await up.json()) as { id: string; fileName: string; byteSize: number; sha256: string };
    expect(upload).toMatchObject({
      fileName: 'escalation.md',
      byteSize: expect.any(Number),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const res = await t.gql<{ importUpload: { documents: { id: string; title: string; documentType: string }[] } }>(
      `mutation($input: ImportUploadInput!) { importUpload(input: $input) { documents { id title documentType } } }`,
      { input: { uploadId: upload.id, documentType: 'POLICY' } },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.importUpload.documents).toEqual([
      { id: 'file:escalation.md', title: 'Escalation policy', documentType: 'POLICY' },
    ]);

    const missing = await t.gql(`mutation { importUpload(input: {uploadId: "upl_nope"}) { job { id } } }`);
    expect(missing.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');

    const png = new FormData();
    png.append('file', new Blob([Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex')]), 'picture.md');
    const pngUpload = (await (
      await fetch(`${t.server.url}/v1/uploads`, { method: 'POST', body: png, headers: PREFLIGHT })
    ).json()) as { id: string };
    const bad = await t.gql(`mutation($id: ID!) { importUpload(input: {uploadId: $id}) { job { id } } }`, {
      id: pngUpload.id,
    });
    expect(bad.errors?.[0]?.extensions?.code).toBe('UNSUPPORTED_CONTENT_TYPE');
    const doc = await t.gql<{ document: unknown }>(`{ document(id: "file:picture.md") { id } }`);
    expect(doc.data!.document).toBeNull();

    const none = await fetch(`${t.server.url}/v1/uploads`, {
      method: 'POST',
      body: new FormData(),
      headers: PREFLIGHT,
    });
    expect(none.status).toBe(400);
    expect(((await none.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe(
      'BAD_USER_INPUT',
    );
  });

  it('caps upload size while streaming', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(t.config.import.uploadMaxBytes + 10, 97)]), 'big.txt');
    const res = await fetch(`${t.server.url}/v1/uploads`, { method: 'POST', body: form, headers: PREFLIGHT });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe(
      'IMPORT_TOO_LARGE',
    );
  });

  it('refuses uploads without a preflight header, with a part not named "file" or with two files, storing nothing', async () => {
    const count = async () =>
      (await t.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM uploads')).rows[0]!.n;
    const note = () => new Blob(['# Note\n\nPayments retry after a failure.'], { type: 'text/markdown' });
    const formOf = (...parts: [field: string, value: Blob | string][]) => {
      const form = new FormData();
      for (const [field, value] of parts) {
        if (typeof value === 'string') form.append(field, value);
        else form.append(field, value, 'note.md');
      }
      return form;
    };
    const post = (form: FormData, headers: Record<string, string> = PREFLIGHT) =>
      fetch(`${t.server.url}/v1/uploads`, { method: 'POST', body: form, headers });
    const before = await count();

    // What a page on another origin can send: a form post, with no way to add a custom header.
    const crossSite: Record<string, string>[] = [{ origin: 'http://evil.example' }, { 'apollo-require-preflight': '' }];
    for (const headers of crossSite) {
      const res = await post(formOf(['file', note()]), headers);
      expect(res.status).toBe(400);
      const error = await firstError(res);
      expect(error.code).toBe('BAD_REQUEST');
      expect(error.message).toContain('Cross-Site Request Forgery');
      expect(error.message).toContain('apollo-require-preflight: true');
    }
    expect(await count()).toBe(before);

    const misnamed = await post(formOf(['doc', note()]));
    expect(misnamed.status).toBe(400);
    const wrongField = await firstError(misnamed);
    expect(wrongField).toEqual({ code: 'BAD_USER_INPUT', message: expect.stringContaining('"doc"') });
    expect(wrongField.message).toContain('named "file"');

    const two = await post(formOf(['file', note()], ['file', note()]));
    expect(two.status).toBe(400);
    expect(await firstError(two)).toEqual({
      code: 'BAD_USER_INPUT',
      message: expect.stringContaining('one file per request'),
    });

    const extraField = await post(formOf(['file', note()], ['tags', 'hr']));
    expect(extraField.status).toBe(400);
    expect((await firstError(extraField)).message).toContain('"tags"');
    const textFile = await post(formOf(['file', 'just text']));
    expect(textFile.status).toBe(400);
    expect((await firstError(textFile)).message).toContain('not a file');
    expect(await count()).toBe(before);

    // Either of Apollo's preflight headers is accepted.
    expect(
      (await post(formOf(['file', note()]), { 'apollo-require-preflight': 'true', origin: 'http://localhost' })).status,
    ).toBe(201);
    expect((await post(formOf(['file', note()]), { 'x-apollo-operation-name': 'upload' })).status).toBe(201);
    expect(await count()).toBe(before + 2);
  });
});

describe('imports of sources longer than CAIRN_MAX_DOCUMENT_CHARS', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(edgeTarget(), { CAIRN_MAX_DOCUMENT_CHARS: '200' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('fail with IMPORT_TOO_LARGE naming the document and the setting, and write nothing', async () => {
    const form = new FormData();
    form.append(
      'file',
      new Blob([`# Long\n\n${'Payments retry after a failure. '.repeat(20)}`], { type: 'text/markdown' }),
      'long.md',
    );
    const up = await fetch(`${t.server.url}/v1/uploads`, { method: 'POST', body: form, headers: PREFLIGHT });
    const { id } = (await up.json()) as { id: string };
    const res = await t.gql(
      `mutation($input: ImportUploadInput!) { importUpload(input: $input) { documents { id } } }`,
      { input: { uploadId: id } },
    );
    expect(res.errors?.[0]?.extensions?.code).toBe('IMPORT_TOO_LARGE');
    expect(res.errors?.[0]?.message).toContain('"file:long.md"');
    expect(res.errors?.[0]?.message).toContain('CAIRN_MAX_DOCUMENT_CHARS');
    expect((await t.gql<{ document: unknown }>(`{ document(id: "file:long.md") { id } }`)).data!.document).toBeNull();
  });
});
