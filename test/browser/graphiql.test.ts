// GraphiQL in real headless chromium against a real server: everything loads from the server's own origin (other
// origins are cut off and must never be asked for), the CSP (no eval) holds, and operations run from the editor.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { artifactPath, chromiumPath, launchBrowser } from '../helpers/browser.js';
import { edgeTarget } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';
import { ensureBuilt, gqlOk, openPage } from './knowledgeSupport.js';

const chromium = chromiumPath();
const describeBrowser = chromium ? describe : describe.skip;

/** The text of GraphiQL's response pane once it contains `text`. */
async function responseContaining(page: Page, text: string): Promise<string> {
  const pane = page.locator('.graphiql-response .CodeMirror-code');
  try {
    await pane.filter({ hasText: text }).waitFor({ timeout: 15_000 });
  } catch (err) {
    throw new Error(
      `the response never contained ${text}; it shows:\n${await pane.innerText().catch(() => '(nothing)')}`,
      { cause: err },
    );
  }
  return pane.innerText();
}

describeBrowser('GraphiQL (chromium, offline)', () => {
  let t: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    ensureBuilt(['graphiql']);
    t = await startTestServer(edgeTarget());
    browser = await launchBrowser(chromium!);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  test('loads from the server alone, runs the preloaded tab and a typed query', async () => {
    const { page, errors, close } = await openPage(browser);
    const origin = new URL(t.server.url).origin;
    const foreign: string[] = [];
    const local: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('data:') || new URL(url).origin === origin) {
        local.push(url);
        return route.continue();
      }
      foreign.push(url);
      return route.abort('internetdisconnected');
    });
    try {
      const res = await page.goto(`${t.server.url}/graphiql`);
      expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
      await page.locator('.graphiql-container').waitFor();

      // The admin pages' one header: the same links on each, this page marked current.
      expect(await page.locator('header.cairn-topbar nav a').allTextContents()).toEqual([
        'Knowledge',
        'Graph explorer',
        'GraphiQL',
      ]);
      expect(await page.locator('header.cairn-topbar [aria-current=page]').textContent()).toBe('GraphiQL');
      // Five example tabs, the first one (upsertDocuments) active; introspection fills the docs explorer.
      expect(await page.locator('.graphiql-tab').count()).toBe(5);
      const editor = page.locator('.graphiql-query-editor .CodeMirror-code');
      expect(await editor.innerText()).toContain('mutation UpsertDocuments');
      await page.locator('.graphiql-execute-button').click();
      const created = await responseContaining(page, '"embeddedChunkCount"');
      expect(created).toContain('"id": "runbook:ach-failures"');
      // It really ran on the server.
      expect(
        (await gqlOk<{ document: { title: string } | null }>(t, '{ document(id: "runbook:ach-failures") { title } }'))
          .document,
      ).toEqual({ title: 'ACH failures' });

      // The second tab holds the search example with its variables. Tabs are clicked before any edit renames one:
      // a renamed tab resizes, and the others slide (animated) under the pointer.
      await page.locator('.graphiql-tab').nth(1).locator('.graphiql-tab-button').click();
      await page.locator('.graphiql-tab-active').filter({ hasText: 'Search' }).waitFor();
      await editor.filter({ hasText: 'query Search' }).waitFor();
      // At once: GraphiQL still holds the previous tab's operation name here; web/graphiql/operationName.ts corrects it.
      await page.locator('.graphiql-execute-button').click();
      expect(await responseContaining(page, '"score"')).toContain('"title": "ACH failures"');

      // Type a new operation into the editor and run it with the keyboard, again before GraphiQL re-reads the name.
      await page.locator('.graphiql-query-editor .CodeMirror').click();
      await page.keyboard.press('Control+A');
      await page.keyboard.insertText('query Stats { knowledgeStats { documentCount embedder { provider } } }');
      await page.keyboard.press('Control+Enter');
      const stats = await responseContaining(page, '"documentCount": 1');
      expect(stats).toContain('"provider": "hashing"');

      // The Docs panel works from introspection.
      await page.getByRole('button', { name: /documentation explorer/i }).click();
      await page.locator('.graphiql-doc-explorer').getByText('Query', { exact: true }).first().waitFor();
      await page.screenshot({ path: artifactPath('graphiql.png') });

      expect(foreign).toEqual([]);
      expect(local.filter((u) => u.includes('/assets/graphiql/main.js'))).toHaveLength(1);
      expect(local.filter((u) => u.endsWith('/graphql')).length).toBeGreaterThanOrEqual(4);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 90_000);

  // Last: creating the first key turns authentication on for this server.
  test('asks for the API key once and sends it with every operation', async () => {
    const { createApiKey } = await gqlOk<{ createApiKey: { key: string } }>(
      t,
      'mutation { createApiKey(input: { name: "graphiql-test", role: ADMIN }) { key } }',
    );
    const { page, errors, close } = await openPage(browser);
    const nativeDialogs: string[] = [];
    page.on('dialog', (d) => {
      nativeDialogs.push(d.message());
      void d.dismiss();
    });
    const authorizations: (string | undefined)[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/graphql')) authorizations.push(r.headers()['authorization']);
    });
    try {
      await page.goto(`${t.server.url}/graphiql`);
      const form = page.getByRole('dialog', { name: 'API key' });
      await form.getByLabel('API key').fill(createApiKey.key);
      await form.getByRole('button', { name: 'Use this key' }).click();
      await page.locator('.graphiql-execute-button').click();
      // The mutation in the first tab writes runbook:ach-failures again, which now exists: an upsert changes nothing.
      expect(await responseContaining(page, '"embeddedChunkCount": 0')).toContain('runbook:ach-failures');
      expect(nativeDialogs).toEqual([]);
      expect(await page.getByRole('dialog', { name: 'API key' }).count()).toBe(0); // asked once
      // Only the first (schema) request went without the key.
      expect(authorizations[0]).toBeUndefined();
      expect(authorizations.slice(1)).toEqual(authorizations.slice(1).map(() => `Bearer ${createApiKey.key}`));
      expect(authorizations.length).toBeGreaterThanOrEqual(3);
      expect(errors).toEqual([expect.stringContaining('status of 401')]);
    } finally {
      await close();
    }
  }, 60_000);
});
