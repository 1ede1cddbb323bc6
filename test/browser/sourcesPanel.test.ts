// The sources panel of /knowledge in real headless chromium: live status over graphql-ws, "Sync now", the last
// sync's counts and error, and the link to the source's documents.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { chromiumPath, launchBrowser } from '../helpers/browser.js';
import { edgeTarget } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';
import { ensureBuilt, openPage } from './knowledgeSupport.js';

const chromium = chromiumPath();
const describeBrowser = chromium ? describe : describe.skip;

describeBrowser('sources panel (chromium)', () => {
  let t: TestServer;
  let browser: Browser;
  let root: string;

  beforeAll(async () => {
    ensureBuilt(['knowledge']);
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-sources-page-'));
    fs.mkdirSync(path.join(root, 'wiki'));
    fs.writeFileSync(path.join(root, 'wiki', 'one.md'), '# One\n\nFirst page.');
    fs.writeFileSync(path.join(root, 'wiki', 'two.md'), '# Two\n\nSecond page.');
    t = await startTestServer(edgeTarget(), { CAIRN_SOURCES_FOLDER_ROOT: root, CAIRN_SOURCES_TICK_MS: '0' });
    await t.services.documents.create({
      id: 'doc:by-hand',
      title: 'By hand',
      content: 'typed',
      documentType: 'other',
      source: null,
      tags: [],
      metadata: {},
      expiresAt: null,
    });
    browser = await launchBrowser(chromium!);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('shows a source live through "Sync now" and links to its documents', async () => {
    await t.services.sources.create({ name: 'wiki', kind: 'FOLDER', path: 'wiki', schedule: '@daily' });
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${t.server.url}/knowledge`);
      const row = page.locator('[data-testid="source-row"][data-name="wiki"]');
      await expect(row.locator('[data-testid="source-status"]').textContent()).resolves.toBe('NEVER_SYNCED');
      await row.getByRole('button', { name: 'Sync wiki now' }).click();
      // No reload: the status arrives over the subscription.
      await row.locator('[data-testid="source-status"]', { hasText: 'SUCCEEDED' }).waitFor();
      await expect(row.locator('[data-testid="source-counts"]').textContent()).resolves.toContain('+2');
      await expect(row.locator('[data-testid="source-documents"]').textContent()).resolves.toBe('2');

      fs.writeFileSync(path.join(root, 'wiki', 'two.md'), '# Two\n\nSecond page, edited.');
      await row.getByRole('button', { name: 'Sync wiki now' }).click();
      await row.locator('[data-testid="source-counts"]', { hasText: '~1' }).waitFor();

      await row.locator('[data-testid="source-documents"]').click();
      await page.locator('[data-testid="source-filter"]').waitFor();
      await page.locator('[data-testid="document-row"]').first().waitFor();
      const ids = await page
        .locator('[data-testid="document-row"]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
      expect(ids.sort()).toEqual(['file:wiki/one.md', 'file:wiki/two.md']);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
