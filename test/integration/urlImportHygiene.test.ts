import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { edgeTarget } from '../helpers/databases.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixtureSite.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

// Runs the whole path (GraphQL, job, safe fetcher, pipeline, PGlite) against a fixture site on 127.0.0.1.

const IMPORT_URL = `mutation($input: ImportUrlInput!) {
  importUrl(input: $input) { documents { id title content metadata } job { id status errors { item code message } } }
}`;
const IMPORT_OPENAPI = `mutation($input: ImportOpenApiInput!) { importOpenApi(input: $input) { job { id } } }`;

describe.each([edgeTarget()])('URL imports through the server ($name)', (target) => {
  let t: TestServer;
  let site: FixtureSite;
  beforeAll(async () => {
    const page = (head: string, body: string) => ({
      body: `<html><head>${head}</head><body>${body}</body></html>`,
      type: 'text/html',
    });
    site = await startFixtureSite({
      '/plain.txt': { body: 'Rotate the signing keys every quarter.', type: 'text/plain' },
      '/long-title': page(
        `<title>${'Quarterly key rotation '.repeat(150)}</title>`,
        '<main><p>Rotate the signing keys every quarter.</p></main>',
      ),
      '/big-description': page(
        `<title>Keys</title><meta name="description" content="${'d'.repeat(200_000)}">`,
        '<main><p>Rotate the keys.</p></main>',
      ),
      '/empty': page('<title>Nothing here</title>', '<nav>Home</nav><script>1</script>'),
      '/no-content': (_req, res) => res.writeHead(204).end(),
      '/broken.pdf': { body: 'not a pdf at all', type: 'application/pdf' },
      '/deep': page(
        '<title>Deep</title>',
        `<main><p>Rotate the keys.</p>${'<div>'.repeat(50_000)}innermost text${'</div>'.repeat(50_000)}</main>`,
      ),
    });
    t = await startTestServer(target, { CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  it("shortens a title and metadata taken from the page instead of failing the import, and keeps the caller's metadata", async () => {
    type Doc = { title: string; metadata: Record<string, string> };
    const titled = await t.gql<{ importUrl: { documents: Doc[] } }>(IMPORT_URL, {
      input: { url: `${site.url}/long-title` },
    });
    expect(titled.errors).toBeUndefined();
    const title = titled.data!.importUrl.documents[0]!.title;
    expect(title.length).toBeLessThanOrEqual(1000);
    expect(title.length).toBeGreaterThan(990);
    expect(title).toMatch(/^Quarterly key rotation Quarterly .*…$/);

    const note = 'n'.repeat(1500);
    const described = await t.gql<{ importUrl: { documents: Doc[] } }>(IMPORT_URL, {
      input: { url: `${site.url}/big-description`, metadata: { note } },
    });
    expect(described.errors).toBeUndefined();
    const { metadata } = described.data!.importUrl.documents[0]!;
    expect(metadata.description).toBe(`${'d'.repeat(999)}…`);
    expect(metadata).toMatchObject({
      note,
      url: `${site.url}/big-description`,
      finalUrl: `${site.url}/big-description`,
    });
    // Beside metadata of the caller's that nearly fills the 64 KB cap, the page's largest value gives way.
    const full = await t.gql<{ importUrl: { documents: Doc[] } }>(IMPORT_URL, {
      input: { url: `${site.url}/big-description`, metadata: { note: 'n'.repeat(64_500) } },
    });
    expect(full.errors).toBeUndefined();
    expect(full.data!.importUrl.documents[0]!.metadata).not.toHaveProperty('description');
    expect(full.data!.importUrl.documents[0]!.metadata).toMatchObject({ url: `${site.url}/big-description` });
  });

  it('imports a page nested 50,000 elements deep with its text, flattening the deepest tags with a warning', async () => {
    const res = await t.gql<{ importUrl: { documents: { content: string }[]; job: { id: string } } }>(IMPORT_URL, {
      input: { url: `${site.url}/deep` },
    });
    expect(res.errors).toBeUndefined();
    expect(res.data!.importUrl.documents[0]!.content).toContain('innermost text');
    const job = await t.gql<{ importJob: { warnings: string[] } }>(
      'query($id: ID!) { importJob(id: $id) { warnings } }',
      { id: res.data!.importUrl.job.id },
    );
    expect(job.data!.importJob.warnings.join('\n')).toMatch(/nested deeper than 200 levels were flattened/);
  });

  it('fails a page with no text, or an empty answer, as a file with no text, naming the URL', async () => {
    for (const path of ['/empty', '/no-content']) {
      const res = await t.gql(IMPORT_URL, { input: { url: `${site.url}${path}` } });
      expect(res.errors?.[0]).toMatchObject({
        message: `"${site.url}${path}" contains no text`,
        extensions: { code: 'INVALID_FILE', item: `${site.url}${path}` },
      });
    }
    const pdf = await t.gql(IMPORT_URL, { input: { url: `${site.url}/broken.pdf` } });
    expect(pdf.errors?.[0]?.extensions?.code).toBe('INVALID_FILE');
    expect(pdf.errors?.[0]?.message).toMatch(new RegExp(`^"${site.url}/broken.pdf" `));
  });

  it('shortens a too-long heading of an uploaded file used as its title', async () => {
    const form = new FormData();
    form.append(
      'file',
      new Blob([`# ${'Escalation '.repeat(300)}\n\nPage the on-call engineer.`], { type: 'text/markdown' }),
      'escalation.md',
    );
    const up = await fetch(`${t.server.url}/v1/uploads`, {
      method: 'POST',
      body: form,
      headers: { 'apollo-require-preflight': 'true' },
    });
    const { id } = (await up.json()) as { id: string };
    const res = await t.gql<{ importUpload: { documents: { title: string }[] } }>(
      `mutation($input: ImportUploadInput!) { importUpload(input: $input) { documents { title } } }`,
      { input: { uploadId: id } },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.importUpload.documents[0]!.title).toMatch(/^Escalation Escalation .{900,}…$/);
  });

  it('never repeats or stores the password of a URL: errors, items, jobs and redirects show http://***@', async () => {
    const withPassword = `${site.url.replace('http://', 'http://user:s3cret@')}/plain.txt`;
    const redacted = `${site.url.replace('http://', 'http://***@')}/plain.txt`;
    site.routes.set('/to-credentials', { redirect: withPassword });
    const attempts = [
      { query: IMPORT_URL, input: { url: withPassword }, shown: redacted },
      { query: IMPORT_OPENAPI, input: { url: withPassword }, shown: redacted },
      { query: IMPORT_URL, input: { url: `${site.url}/to-credentials` }, shown: `${site.url}/to-credentials` },
    ];
    for (const { query, input, shown } of attempts) {
      const res = await t.gql<{ importUrl?: { job: { errors: { item: string; code: string; message: string }[] } } }>(
        query,
        { input },
      );
      expect(JSON.stringify(res)).not.toContain('s3cret');
      const error = res.errors?.[0] ?? res.data?.importUrl?.job.errors[0];
      expect(error).toBeDefined();
      const item =
        (error as { extensions?: { item?: unknown }; item?: unknown }).extensions?.item ??
        (error as { item?: unknown }).item;
      expect(item).toBe(shown);
      expect(error!.message).toContain(
        `fetch of ${redacted} blocked: URLs with a user name or password are not allowed`,
      );
    }
    expect(site.hits.get('/plain.txt') ?? 0).toBe(0);
    const listed = await t.gql(`{ importJobs(first: 100) { nodes { errors { item message } } } }`);
    expect(JSON.stringify(listed)).toContain('***@');
    expect(JSON.stringify(listed)).not.toContain('s3cret');
    const stored = await t.services.db.query<{ row: string }>(
      `SELECT j.request::text || ' ' || string_agg(i.label || ' ' || coalesce(i.error, ''), ' ') AS row FROM import_jobs j JOIN import_job_items i ON i.job_id = j.id GROUP BY j.id`,
    );
    expect(stored.rows.map((r) => r.row).join('\n')).not.toContain('s3cret');
  });
});
