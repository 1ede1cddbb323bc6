import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dbTargets } from '../../helpers/databases.js';
import { startFixtureSite, type FixtureSite } from '../../helpers/fixtureSite.js';
import { startTestServer, type TestServer } from '../../helpers/testServer.js';

// Runs the whole path (GraphQL, job, safe fetcher, pipeline, PGlite) against a fixture site on 127.0.0.1.

const IMPORT_URL = `mutation($input: ImportUrlInput!) {
  importUrl(input: $input) { documents { id title content metadata } job { id status errors { item code message } } }
}`;
const IMPORT_OPENAPI = `mutation($input: ImportOpenApiInput!) { importOpenApi(input: $input) { job { id } } }`;

describe.each(dbTargets())('URL imports through the server ($name)', (target) => {
  let t: TestServer;
  let site: FixtureSite;
  beforeAll(async () => {
    site = await startFixtureSite({ '/plain.txt': { body: 'Rotate the signing keys every quarter.', type: 'text/plain' } });
    t = await startTestServer(target, { CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
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
      const res = await t.gql<{ importUrl?: { job: { errors: { item: string; code: string; message: string }[] } } }>(query, { input });
      expect(JSON.stringify(res)).not.toContain('s3cret');
      const error = res.errors?.[0] ?? res.data?.importUrl?.job.errors[0];
      expect(error).toBeDefined();
      const item = (error as { extensions?: { item?: unknown }; item?: unknown }).extensions?.item ?? (error as { item?: unknown }).item;
      expect(item).toBe(shown);
      expect(error!.message).toContain(`fetch of ${redacted} blocked: URLs with a user name or password are not allowed`);
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
