import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { edgeTarget } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

// The pages themselves are exercised in test/browser; this checks how the server serves them (npm test builds them first).
describe('admin pages and landing page', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(edgeTarget());
  });
  afterAll(async () => {
    await t?.close();
  });

  it("Apollo's landing page links to the local GraphiQL and the admin pages, with no CDN", async () => {
    const res = await fetch(`${t.server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('href="/graphiql"');
    expect(html).toContain('href="/explorer"');
    expect(html).toContain('href="/knowledge"');
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('serves each page with a strict CSP, its bundle from /assets, and redirects / to /knowledge', async () => {
    for (const page of ['/explorer', '/knowledge', '/knowledge/runbook%3Aach', '/graphiql']) {
      const res = await fetch(`${t.server.url}${page}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      const app = page.split('/')[1] as string;
      expect(await res.text()).toContain(`/assets/${app}/main.js`);
      expect((await fetch(`${t.server.url}/assets/${app}/main.js`)).status).toBe(200);
    }
    const root = await fetch(`${t.server.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/knowledge');
    const missing = await fetch(`${t.server.url}/assets/nope.js`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('not found');
  });
});
