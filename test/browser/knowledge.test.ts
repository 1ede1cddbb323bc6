// The knowledge pages in real headless chromium against a real server over in-memory PGlite: counts, search,
// filters, cursor pages, the inspector's sanitised markdown, delete with confirmation, and an async URL import.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { artifactPath, chromiumPath, launchBrowser } from '../helpers/browser.js';
import { edgeTarget } from '../helpers/databases.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixtureSite.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';
import { ensureBuilt, FILLER_COUNT, gqlOk, HOSTILE_ID, openPage, seed } from './knowledgeSupport.js';

const chromium = chromiumPath();
const describeBrowser = chromium ? describe : describe.skip;

const GUIDE_HTML = `<!doctype html><html><head><title>Fixture onboarding guide</title></head>
<body><main><h1>Fixture onboarding guide</h1><p>New engineers request access to the ledger on their first day.</p>
<p>Then they pair with the payments team for a week.</p></main></body></html>`;

const PETS_SPEC = `openapi: 3.0.3
info: { title: Pet Store API, version: 1.0.0 }
paths:
  /pets:
    get:
      operationId: listPets
      summary: List all pets
      responses: { '200': { description: The pets } }
`;

describeBrowser('knowledge pages (chromium)', () => {
  let t: TestServer;
  let site: FixtureSite;
  let browser: Browser;
  let seeded: Awaited<ReturnType<typeof seed>>;

  beforeAll(async () => {
    ensureBuilt(['knowledge']);
    // The delay keeps the job running for a while, so the page must show it before it ends.
    site = await startFixtureSite({ '/guide': { type: 'text/html; charset=utf-8', body: GUIDE_HTML, delayMs: 1500 } });
    t = await startTestServer(edgeTarget(), { CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
    seeded = await seed(t);
    browser = await launchBrowser(chromium!);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await site?.close();
  });

  /** Opens a knowledge URL, runs `body`, then requires that the page logged no error. */
  async function withPage(path: string, body: (page: Page) => Promise<void>): Promise<void> {
    const { page, errors, close } = await openPage(browser);
    try {
      const res = await page.goto(`${t.server.url}${path}`);
      expect(res?.status()).toBe(200);
      expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
      await body(page);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }

  const rows = (page: Page) => page.getByTestId('document-row');
  const cardValue = (page: Page, id: string) => page.getByTestId(id).locator('.card-value');

  test('the dashboard shows the counts, ranked search hits and the gaps', async () => {
    await withPage('/knowledge', async (page) => {
      await expect(cardValue(page, 'count-documents').textContent()).resolves.toBe(String(seeded.documents));
      expect(await cardValue(page, 'count-chunks').textContent()).toBe(String(seeded.chunks));
      // The admin pages' one header: the same links on each, this page marked current.
      expect(await page.locator('header.cairn-topbar nav a').allTextContents()).toEqual([
        'Knowledge',
        'Graph explorer',
        'GraphiQL',
      ]);
      expect(await page.locator('header.cairn-topbar [aria-current=page]').textContent()).toBe('Knowledge');

      expect(await cardValue(page, 'count-entities').textContent()).toBe('2');
      expect(await cardValue(page, 'count-relationships').textContent()).toBe('1');
      const byType = await page.getByTestId('by-type').innerText();
      expect(byType).toMatch(new RegExp(`OTHER\\s+${FILLER_COUNT}`));
      expect(byType).toMatch(/FAQ\s+1/);
      expect(await page.getByTestId('top-tags').innerText()).toMatch(/payments\s+2/);
      expect(await page.getByTestId('embedder').innerText()).toContain('hashing');
      await page.getByTestId('gap-row').first().waitFor();
      expect(await page.getByTestId('gap-row').allInnerTexts()).toEqual([expect.stringContaining(seeded.gapQuery)]);

      const search = page.getByRole('search');
      await search.getByLabel('Query').fill('routing number ACH retry');
      await search.getByLabel('Mode').selectOption('HYBRID');
      await search.getByLabel('Top K').fill('5');
      await search.getByRole('button', { name: 'Search' }).click();
      const hits = page.getByTestId('search-hit');
      await page.getByTestId('search-summary').filter({ hasText: '“routing number ACH retry”, HYBRID' }).waitFor();
      expect(await hits.first().locator('.hit-title').textContent()).toBe('ACH returns');
      const scores = (await page.getByTestId('hit-score').allTextContents()).map(Number);
      expect(scores.length).toBeGreaterThan(0);
      expect(scores.length).toBeLessThanOrEqual(5);
      expect(scores.every((s) => s > 0 && s <= 1)).toBe(true);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
      expect(await hits.first().locator('.scores').innerText()).toMatch(/vector\s+0\.\d{3}[\s\S]*keyword\s+0\.\d{3}/);

      await page.screenshot({ path: artifactPath('knowledge.png'), fullPage: true });

      // A tag filter keeps only matching documents; a bad expression shows the API's error code.
      await search.getByLabel('Tags').fill('billing');
      await search.getByRole('button', { name: 'Search' }).click();
      await page.getByTestId('search-summary').filter({ hasText: 'with tags billing' }).waitFor();
      expect(new Set(await hits.locator('.hit-title').allTextContents())).toEqual(new Set(['Refunds']));
      await search.getByLabel('Tags').fill('Not Valid');
      await search.getByRole('button', { name: 'Search' }).click();
      const alert = page.locator('#search [role="alert"]');
      await alert.waitFor();
      expect(await alert.innerText()).toContain('BAD_USER_INPUT');
    });
  }, 60_000);

  test('the table filters by type, by tag link and pages with cursors', async () => {
    await withPage('/knowledge', async (page) => {
      await expect(page.getByTestId('page-status').textContent()).resolves.toBe(`1–20 of ${seeded.documents}`);
      expect(await rows(page).count()).toBe(20);
      await page.getByRole('button', { name: 'Next' }).first().click();
      await page
        .getByTestId('page-status')
        .filter({ hasText: `21–${seeded.documents} of` })
        .waitFor();
      expect(await rows(page).count()).toBe(seeded.documents - 20);
      await page.getByRole('button', { name: 'Previous' }).first().click();
      await page.getByTestId('page-status').filter({ hasText: '1–20 of' }).waitFor();

      const filters = page.getByRole('form', { name: 'Filter documents' });
      await filters.getByLabel('Type').selectOption('FAQ');
      await filters.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL('**/knowledge?type=FAQ');
      await page.getByTestId('page-status').filter({ hasText: '1–1 of 1' }).waitFor();
      expect(await rows(page).getAttribute('data-id')).toBe('faq:refunds');

      await page.getByRole('link', { name: 'Clear' }).click();
      await page
        .getByTestId('page-status')
        .filter({ hasText: `of ${seeded.documents}` })
        .waitFor();
      await page.locator('[data-id="runbook:ach-returns"] a.tag', { hasText: 'payments' }).click();
      await page.waitForURL('**/knowledge?tags=payments');
      await page.getByTestId('page-status').filter({ hasText: '1–2 of 2' }).waitFor();
      expect((await rows(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-id')))).sort()).toEqual([
        HOSTILE_ID,
        'runbook:ach-returns',
      ]);
      expect(await page.getByRole('form', { name: 'Filter documents' }).getByLabel('Tags').inputValue()).toBe(
        'payments',
      );

      // Back restores the unfiltered table (the filters live in the URL).
      await page.goBack();
      await page
        .getByTestId('page-status')
        .filter({ hasText: `of ${seeded.documents}` })
        .waitFor();
    });
  }, 60_000);

  test('the inspector renders sanitised markdown, chunks, entities and tag links', async () => {
    await withPage('/knowledge?tags=security', async (page) => {
      await page.locator(`[data-id="${HOSTILE_ID}"] td a`).first().click();
      await page.waitForURL(`**/knowledge/${encodeURIComponent(HOSTILE_ID)}`);
      await expect(page.getByTestId('document-title').textContent()).resolves.toBe('Markdown safety');
      const content = page.getByTestId('document-content');
      expect(await content.locator('h2').textContent()).toBe('Safe rendering');
      expect(await content.locator('strong').textContent()).toBe('markdown');
      expect(await content.locator('script, [onerror]').count()).toBe(0);
      const hrefs = await content.locator('a').evaluateAll((as) =>
        as.map((a) => ({
          text: a.textContent,
          href: a.getAttribute('href'),
          target: a.getAttribute('target'),
          rel: a.getAttribute('rel'),
        })),
      );
      expect(hrefs.filter((a) => a.href?.trim().toLowerCase().startsWith('javascript:'))).toEqual([]);
      expect(hrefs.find((a) => a.text === 'click')?.href ?? null).toBeNull();
      expect(hrefs.find((a) => a.text === 'docs')).toEqual({
        text: 'docs',
        href: 'https://docs.example.com/security',
        target: '_blank',
        rel: 'noopener noreferrer',
      });
      await content.getByText('click').click(); // a neutralised link does nothing
      expect(await page.evaluate(() => (globalThis as { __xss?: string }).__xss)).toBeUndefined();

      const meta = await page.getByTestId('document-meta').innerText();
      expect(meta).toContain(HOSTILE_ID);
      expect(meta).toContain('REFERENCE');
      expect(meta).toContain('https://docs.example.com/security');
      expect(JSON.parse(await page.getByTestId('document-json').innerText())).toEqual({
        owner: 'security-team',
        reviewed: true,
      });
      const doc = await gqlOk<{ document: { chunkCount: number } }>(
        t,
        'query($id: ID!) { document(id: $id) { chunkCount } }',
        { id: HOSTILE_ID },
      );
      expect(await page.getByTestId('chunk').count()).toBe(doc.document.chunkCount);
      expect(await page.getByTestId('chunk').first().innerText()).toMatch(/#0 · chars 0–\d+/);
      const entity = page.getByTestId('entity').getByRole('link', { name: 'Payment Service' });
      expect(await entity.getAttribute('href')).toBe('/explorer?entity=svc%3Apayments');

      await page.getByTestId('document-tags').getByRole('link', { name: 'security' }).click();
      await page.waitForURL('**/knowledge?tags=security');
      await page.getByTestId('page-status').filter({ hasText: '1–1 of 1' }).waitFor();
    });
    // A deep link straight to an id with ':' and '/', and an unknown id.
    await withPage(`/knowledge/${encodeURIComponent(HOSTILE_ID)}`, async (page) => {
      await expect(page.getByTestId('document-title').textContent()).resolves.toBe('Markdown safety');
    });
    await withPage(`/knowledge/${encodeURIComponent('no:such/doc')}`, async (page) => {
      await expect(page.getByRole('alert').innerText()).resolves.toMatch(/NOT_FOUND[\s\S]*no:such\/doc/);
    });
  }, 60_000);

  test('delete asks for confirmation and removes the document', async () => {
    await withPage('/knowledge?type=POLICY', async (page) => {
      await page.getByTestId('page-status').filter({ hasText: '1–1 of 1' }).waitFor();
      const messages: string[] = [];
      page.once('dialog', (d) => {
        messages.push(d.message());
        void d.dismiss();
      });
      await page.getByRole('button', { name: 'Delete Data retention' }).click();
      expect(messages).toEqual([expect.stringContaining('Delete “Data retention” (policy:retention)')]);
      expect(
        (await gqlOk<{ document: unknown }>(t, '{ document(id: "policy:retention") { id } }')).document,
      ).not.toBeNull();

      page.once('dialog', (d) => void d.accept());
      await page.getByRole('button', { name: 'Delete Data retention' }).click();
      await page.getByText('No document matches these filters.').waitFor();
      await cardValue(page, 'count-documents')
        .filter({ hasText: String(seeded.documents - 1) })
        .waitFor();
      expect(
        (await gqlOk<{ document: unknown }>(t, '{ document(id: "policy:retention") { id } }')).document,
      ).toBeNull();
    });
  }, 60_000);

  test('an async URL import shows its job until SUCCEEDED', async () => {
    await withPage('/knowledge', async (page) => {
      const before = Number(await cardValue(page, 'count-documents').textContent());
      const form = page.getByRole('form', { name: 'Import knowledge' });
      await form.getByLabel('A web page or file by URL').check();
      await form.getByLabel('URL', { exact: true }).fill(`${site.url}/guide`);
      await form.getByLabel(/Tags/).fill('onboarding');
      await form.getByRole('button', { name: 'Import' }).click();
      const job = page.getByTestId('import-job');
      await job.waitFor();
      expect(['QUEUED', 'RUNNING']).toContain(await job.getAttribute('data-status'));
      expect(await form.getByRole('button').textContent()).toBe('Importing…');
      await job.and(page.locator('[data-status="SUCCEEDED"]')).waitFor({ timeout: 30_000 });
      expect(await page.getByTestId('import-progress').textContent()).toBe('1/1 done');
      const link = job.getByRole('link', { name: 'Fixture onboarding guide' });
      await cardValue(page, 'count-documents')
        .filter({ hasText: String(before + 1) })
        .waitFor();
      expect(site.hits.get('/guide')).toBe(1);
      await link.click();
      await expect(page.getByTestId('document-content').innerText()).resolves.toContain('request access to the ledger');
      expect(await page.getByTestId('document-tags').innerText()).toContain('onboarding');
    });

    // A pasted OpenAPI spec: an overview document plus one per operation.
    await withPage('/knowledge', async (page) => {
      const form = page.getByRole('form', { name: 'Import knowledge' });
      await form.getByLabel('A pasted OpenAPI spec').check();
      await form.getByLabel('Spec (JSON or YAML)').fill(PETS_SPEC);
      await form.getByRole('button', { name: 'Import' }).click();
      const job = page.getByTestId('import-job').and(page.locator('[data-status="SUCCEEDED"]'));
      await job.waitFor({ timeout: 30_000 });
      expect(await job.getByRole('link').allTextContents()).toEqual(
        expect.arrayContaining(['Pet Store API', expect.stringContaining('List all pets')]),
      );
    });
  }, 90_000);

  test('what the agent sees: the context as an agent gets it, its parts, and a gap recorded in one click', async () => {
    const question = 'How does the Payment Service render markdown?';
    await withPage('/knowledge', async (page) => {
      const form = page.getByRole('form', { name: 'Ask as an agent' });
      await form.getByLabel('Question').fill(question);
      await form.getByLabel('Max chars').fill('3000');
      await form.getByRole('button', { name: 'Ask' }).click();
      const context = page.getByTestId('agent-context');
      await context.waitFor();
      // Exactly what enrichContext returns to an agent for the same input.
      const direct = await gqlOk<{ enrichContext: { context: string; entities: { score: number }[] } }>(
        t,
        'query($q: String!) { enrichContext(input: { query: $q, maxChars: 3000 }) { context entities { score } } }',
        { q: question },
      );
      expect(await context.textContent()).toBe(direct.enrichContext.context);
      expect(await page.getByTestId('agent-chunk').first().innerText()).toContain('Markdown safety');
      const entities = await page.getByTestId('agent-entity').allInnerTexts();
      expect(entities).toEqual(
        expect.arrayContaining([expect.stringContaining('Payment Service'), expect.stringContaining('Ledger')]),
      );
      // Each entity's graph score, in order, as GraphQL gives it.
      expect(entities.map((e) => /score ([\d.]+)/.exec(e)?.[1])).toEqual(
        direct.enrichContext.entities.map((e) => e.score.toFixed(3)),
      );
      expect(await page.getByTestId('agent-timings').innerText()).toMatch(/graph lane \d+ ms/);
      await page.getByRole('button', { name: 'Record as a knowledge gap' }).click();
      await page.getByRole('status').filter({ hasText: 'Recorded as a knowledge gap.' }).waitFor();
      await page.getByTestId('gap-row').filter({ hasText: question }).waitFor();
    });
  });

  test('an edit in the inspector is saved, listed in History and undone there', async () => {
    const read = () =>
      gqlOk<{ document: { title: string; tags: string[]; content: string; documentType: string } }>(
        t,
        '{ document(id: "faq:refunds") { title tags content documentType } }',
      );
    const before = (await read()).document;
    await withPage(`/knowledge/${encodeURIComponent('faq:refunds')}`, async (page) => {
      await page.getByRole('button', { name: 'Edit' }).click();
      const form = page.getByRole('form', { name: 'Edit document' });
      await form.getByLabel('Title').fill('Refunds and chargebacks');
      await form.getByLabel('Type').selectOption('POLICY');
      await form.getByLabel(/Tags/).fill('billing, chargebacks');
      await form.getByLabel('Content').fill('Refunds take 5 business days. Chargebacks take 30 days.');
      await form.getByRole('button', { name: 'Save' }).click();
      await page.getByTestId('document-title').filter({ hasText: 'Refunds and chargebacks' }).waitFor();
      expect(await page.getByTestId('document-content').innerText()).toContain('Chargebacks take 30 days.');
    });
    expect((await read()).document).toEqual({
      title: 'Refunds and chargebacks',
      tags: ['billing', 'chargebacks'],
      content: 'Refunds take 5 business days. Chargebacks take 30 days.',
      documentType: 'POLICY',
    });
    const log = await gqlOk<{ auditLog: { nodes: { id: string }[] } }>(
      t,
      '{ auditLog(first: 1, filter: { targetId: "faq:refunds", operation: "updateDocument" }) { nodes { id } } }',
    );
    const id = log.auditLog.nodes[0]?.id ?? '';
    await withPage('/knowledge', async (page) => {
      const row = page.locator(`[data-testid="history-row"][data-audit-id="${id}"]`);
      expect(await row.innerText()).toContain('faq:refunds');
      await row.getByRole('button', { name: 'Undo' }).click();
      await row.getByText('undone').waitFor();
      await page.getByRole('cell', { name: 'undo', exact: true }).first().waitFor();
    });
    // The store is back to its prior state, read through GraphQL.
    expect((await read()).document).toEqual(before);
  });

  // Last: creating the first key turns authentication on for this server.
  test('asks for an API key when the server needs one and keeps it for the tab', async () => {
    const { createApiKey } = await gqlOk<{ createApiKey: { key: string } }>(
      t,
      'mutation { createApiKey(input: { name: "browser-test", role: ADMIN }) { key } }',
    );
    expect((await t.gql('{ knowledgeStats { documentCount } }')).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const { page, errors, close } = await openPage(browser);
    const nativeDialogs: string[] = [];
    page.on('dialog', (d) => {
      nativeDialogs.push(d.type());
      void d.dismiss();
    });
    try {
      await page.goto(`${t.server.url}/knowledge`);
      // The key form is a masked field in the page, never window.prompt. Cancelled first: the page must then offer
      // a way to enter the key.
      const form = page.getByRole('dialog', { name: 'API key' });
      expect(await form.getByLabel('API key').getAttribute('type')).toBe('password');
      await form.getByRole('button', { name: 'Cancel' }).click();
      const alert = page.getByRole('alert');
      await alert.filter({ hasText: 'This server needs an API key' }).waitFor();
      expect(await alert.innerText()).toContain('UNAUTHENTICATED');
      await page.getByRole('button', { name: 'Enter an API key' }).click();
      await form.getByLabel('API key').fill(createApiKey.key);
      await form.getByRole('button', { name: 'Use this key' }).click();
      await cardValue(page, 'count-documents').waitFor();
      expect(nativeDialogs).toEqual([]);
      const stored = () =>
        page.evaluate(() =>
          (globalThis as unknown as { sessionStorage: { getItem(k: string): string | null } }).sessionStorage.getItem(
            'cairn.apiKey',
          ),
        );
      expect(await stored()).toBe(createApiKey.key);

      await page.reload();
      await cardValue(page, 'count-documents').waitFor();
      expect(await page.getByRole('dialog').count()).toBe(0);

      // The header's key button offers to forget the key; the page then asks again.
      await page.getByRole('button', { name: 'API key…' }).click();
      await form.getByRole('button', { name: 'Forget the key' }).click();
      await form.waitFor();
      expect(await stored()).toBeNull();
      // The refused requests are logged by chromium; nothing else may be.
      expect(errors.every((e) => e.includes('status of 401'))).toBe(true);
    } finally {
      await close();
    }
  }, 60_000);
});
