// The graph explorer in headless chromium against a real server over PGlite, seeded through GraphQL.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { projectPath } from '../../src/paths.js';
import { artifactPath, chromiumPath, launchBrowser } from '../helpers/browser.js';
import { edgeTarget } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';
import { FIXTURE, seedFixture } from './explorerFixture.js';
import {
  ensureExplorerBuilt,
  gqlOk,
  openPage,
  position,
  snapshot,
  untilSnapshot,
  waitIdle,
} from './explorerSupport.js';

const chromium = chromiumPath();
const suite = chromium ? describe : describe.skip;

suite('graph explorer (/explorer)', () => {
  let t: TestServer;
  let browser: Browser;
  const pages: Page[] = [];
  beforeAll(async () => {
    ensureExplorerBuilt();
    t = await startTestServer(edgeTarget());
    await seedFixture(t);
    browser = await launchBrowser(chromium!);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function open(query = ''): Promise<{ page: Page; errors: string[] }> {
    const opened = await openPage(browser, `${t.server.url}/explorer${query}`);
    pages.push(opened.page);
    return opened;
  }
  const text = async (page: Page, selector: string): Promise<string> =>
    ((await page.locator(selector).first().textContent()) ?? '').trim();
  async function choose(page: Page, typed: string, name: string): Promise<void> {
    await page.fill('#search-input', typed);
    await page.locator('#search-results [role=option]', { hasText: name }).click();
  }

  it('search → select shows type, name, aliases, properties, relationships and documents; a document opens the inspector', async () => {
    const { page, errors } = await open();
    await waitIdle(page, false);
    await choose(page, 'pay-a', 'Payments API');
    await page.locator('#panel [data-field=name]', { hasText: 'Payments API' }).waitFor();
    expect(new URL(page.url()).searchParams.get('entity')).toBe(FIXTURE.payments);
    expect(await text(page, '#panel [data-field=type]')).toBe('Service');
    expect(await text(page, '#panel [data-field=aliases]')).toBe('pay-api, payments');
    expect(JSON.parse(await text(page, '#panel [data-field=properties]'))).toEqual({
      tier: 1,
      language: 'TypeScript',
      oncall: { rotation: 'payments-primary', pager: true },
    });
    const rels = await page.locator('#panel [data-field=relationships] li').allTextContents();
    expect(rels).toHaveLength(9);
    expect(rels).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/→\s*DEPENDS_ON\s*Ledger\s*Service/),
        expect.stringMatching(/←\s*DEPENDS_ON\s*Checkout/),
      ]),
    );
    const docs = page.locator('#panel [data-field=documents] a');
    expect((await docs.allTextContents()).sort()).toEqual(['KYC questions', 'Payments failures runbook']);
    expect(
      await page.locator('#panel [data-field=documents] li', { hasText: 'Payments failures runbook' }).textContent(),
    ).toContain('MANUAL · wiki/payments/runbook');

    const s = await waitIdle(page);
    expect(s.selectedId).toBe(FIXTURE.payments);
    expect(s.nodeIds).toEqual(expect.arrayContaining([FIXTURE.payments, 'svc:ledger', 'svc:checkout', 'concept:pci']));
    // Fit the whole fixture, then hover the selection so the screenshot shows highlighting and relationship labels.
    await page.click('#fit');
    await page.locator('#search-input').blur();
    await waitIdle(page);
    const payments = (await position(page, FIXTURE.payments))!;
    await page.mouse.move(payments.x, payments.y);
    await page.waitForTimeout(200);
    await page.screenshot({ path: artifactPath('explorer.png') });
    // The README's picture (docs/explorer.png) is refreshed on request only, so a test run leaves the working tree clean.
    if (process.env.CAIRN_UPDATE_DOCS === '1') {
      fs.mkdirSync(projectPath('docs'), { recursive: true });
      fs.copyFileSync(artifactPath('explorer.png'), projectPath('docs', 'explorer.png'));
    }
    expect(errors).toEqual([]);

    await docs.filter({ hasText: 'Payments failures runbook' }).click();
    await page.waitForURL((u) => u.pathname === `/knowledge/${encodeURIComponent(FIXTURE.runbook)}`);
  });

  it('double-click expands a node with its neighbours and "Collapse" removes them again', async () => {
    const { page, errors } = await open(`?entity=${FIXTURE.fraud}`);
    const before = await waitIdle(page);
    expect([...before.nodeIds].sort()).toEqual(
      ['concept:kyc', 'db:events', FIXTURE.payments, FIXTURE.fraud, FIXTURE.riskTeam].sort(),
    );
    const events = (await position(page, 'db:events'))!;
    await page.mouse.dblclick(events.x, events.y);
    const expanded = await untilSnapshot(page, (s) => s.totalNodes === before.totalNodes + 3 && s.busy === 0);
    expect(expanded.nodeIds).toEqual(expect.arrayContaining(['svc:search', 'svc:reports', FIXTURE.unmentioned]));
    expect(expanded.expandedIds).toContain('db:events');
    expect(expanded.selectedId).toBe('db:events');
    await page.locator('#panel button[data-action=collapse]').click();
    const collapsed = await untilSnapshot(page, (s) => s.totalNodes === before.totalNodes);
    expect([...collapsed.nodeIds].sort()).toEqual([...before.nodeIds].sort());
    expect(collapsed.expandedIds).not.toContain('db:events');
    expect(await page.locator('#panel button[data-action=expand]').count()).toBe(1);
    expect(errors).toEqual([]);
  });

  it('shows the documents mentioning an entity as page nodes linked to it, and hides them again', async () => {
    const { page, errors } = await open(`?entity=${FIXTURE.fraud}`);
    const before = await waitIdle(page);
    // The admin pages' one header: the same links on each, this page marked current.
    expect(await page.locator('header.cairn-topbar nav a').allTextContents()).toEqual([
      'Knowledge',
      'Graph explorer',
      'GraphiQL',
    ]);
    expect(await page.locator('header.cairn-topbar [aria-current=page]').textContent()).toBe('Graph explorer');
    const runbook = `~doc:${FIXTURE.runbook}`;
    await page.locator('#panel [data-action=toggle-documents]', { hasText: 'Show documents in graph' }).click();
    const shown = await untilSnapshot(page, (s) => s.nodeIds.includes(runbook) && !s.running);
    expect(shown.totalNodes).toBe(before.totalNodes + 1);
    expect(shown.totalLinks).toBe(before.totalLinks + 1);
    // Drawn as a page in its own fill, where every entity is a disc in its type's colour.
    const colorAt = (id: string) =>
      page.evaluate(
        (nodeId) =>
          (globalThis as unknown as { __explorerStats: { colorAt(i: string): string | null } }).__explorerStats.colorAt(
            nodeId,
          ),
        id,
      );
    expect(await colorAt(runbook)).toBe('#fef3c7');
    expect(await colorAt(FIXTURE.fraud)).not.toBe('#fef3c7');
    expect(await page.locator('#legend', { hasText: 'Document' }).count()).toBe(1);
    if (process.env.CAIRN_UPDATE_DOCS === '1') {
      await page.screenshot({ path: artifactPath('explorer-documents.png') });
      fs.copyFileSync(artifactPath('explorer-documents.png'), projectPath('docs', 'explorer-documents.png'));
    }

    const at = (await position(page, runbook))!;
    await page.mouse.click(at.x, at.y);
    const card = page.locator('#panel [data-field=document-card]');
    await card.locator('h2', { hasText: 'Payments failures runbook' }).waitFor();
    expect(await card.locator('a[data-action=open-document]').getAttribute('href')).toBe(
      `/knowledge/${encodeURIComponent(FIXTURE.runbook)}`,
    );
    expect(new URL(page.url()).searchParams.get('entity')).toBe(FIXTURE.fraud); // the address names entities only

    const fraud = (await position(page, FIXTURE.fraud))!;
    await page.mouse.click(fraud.x, fraud.y);
    await page.locator('#panel [data-action=toggle-documents]', { hasText: 'Hide documents in graph' }).click();
    const hidden = await untilSnapshot(page, (s) => !s.nodeIds.includes(runbook));
    expect([...hidden.nodeIds].sort()).toEqual([...before.nodeIds].sort());
    expect(hidden.totalLinks).toBe(before.totalLinks);
    expect(errors).toEqual([]);
  });

  it('the legend hides and shows entity types and relationship types', async () => {
    const { page, errors } = await open(`?entity=${FIXTURE.payments}`);
    const before = await waitIdle(page, false);
    const concepts = before.nodeIds.filter((id) => id.startsWith('concept:'));
    expect(concepts).toHaveLength(3);
    const toggle = page.locator('#legend [data-key="node:Concept"]');
    await toggle.click();
    const hidden = await snapshot(page);
    expect(hidden.hiddenTypes).toEqual(['Concept']);
    expect(hidden.nodes).toBe(before.nodes - 3);
    expect(hidden.nodeIds.some((id) => id.startsWith('concept:'))).toBe(false);
    expect(hidden.links).toBe(before.links - 3);
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    await toggle.click();
    expect((await snapshot(page)).nodes).toBe(before.nodes);

    const { graphStats } = await gqlOk<{ graphStats: { relationshipsByType: { key: string; count: number }[] } }>(
      t,
      `{ graphStats { relationshipsByType { key count } } }`,
    );
    const dependsOn = graphStats.relationshipsByType.find((r) => r.key === 'DEPENDS_ON')!.count;
    expect(await text(page, '#legend [data-key="rel:DEPENDS_ON"] .count')).toBe(`4/${dependsOn}`);
    await page.locator('#legend [data-key="rel:DEPENDS_ON"]').click();
    const noDeps = await snapshot(page);
    expect(noDeps.links).toBe(before.links - 4);
    expect(noDeps.nodes).toBe(before.nodes);
    expect(errors).toEqual([]);
  });

  it('highlights the shortest path between two entities (panel buttons and shift-click)', async () => {
    const ref = await gqlOk<{
      shortestPath: { entities: { id: string; name: string }[]; relationships: { id: string }[] };
    }>(
      t,
      `query($a: ID!, $b: ID!) { shortestPath(fromId: $a, toId: $b, maxDepth: 6) { entities { id name } relationships { id } } }`,
      { a: FIXTURE.shipping, b: FIXTURE.kyc },
    );
    expect(ref.shortestPath.relationships.length).toBeGreaterThanOrEqual(3);
    const { page, errors } = await open(`?entity=${FIXTURE.shipping}`);
    await waitIdle(page, false);
    await page.locator('#panel button[data-action=path-from]').click();
    expect(await text(page, '#pathbar')).toContain('Path from Shipping');
    await choose(page, 'know your', 'KYC');
    await page.locator('#panel [data-field=name]', { hasText: 'KYC' }).waitFor();
    await page.locator('#panel button[data-action=path-to]').click();
    const s = await untilSnapshot(page, (x) => x.pathNodeIds.length > 0);
    expect(s.pathNodeIds).toEqual(ref.shortestPath.entities.map((e) => e.id));
    expect(s.pathLinkIds).toEqual(ref.shortestPath.relationships.map((r) => r.id));
    expect(s.nodeIds).toEqual(expect.arrayContaining(s.pathNodeIds));
    const steps = await page.locator('#pathbar [data-field=path] button').allTextContents();
    expect(steps).toEqual(ref.shortestPath.entities.map((e) => e.name));

    await page.locator('#pathbar [data-action=clear-path]').click();
    expect((await snapshot(page)).pathNodeIds).toEqual([]);
    await waitIdle(page);
    const fraud = (await position(page, FIXTURE.fraud))!;
    await page.keyboard.down('Shift');
    await page.mouse.click(fraud.x, fraud.y);
    await page.keyboard.up('Shift');
    const hop = await untilSnapshot(page, (x) => x.pathNodeIds.length > 0);
    expect(hop.pathNodeIds).toEqual([FIXTURE.kyc, FIXTURE.fraud]);
    expect(hop.pathLinkIds).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it('a deep link opens centred on the entity with its neighbours', async () => {
    const { page, errors } = await open(`?entity=${encodeURIComponent(FIXTURE.ledgerDb)}`);
    const s = await waitIdle(page);
    expect(s.selectedId).toBe(FIXTURE.ledgerDb);
    expect(s.nodeIds).toEqual(expect.arrayContaining([FIXTURE.ledgerDb, 'svc:ledger']));
    const p = (await position(page, FIXTURE.ledgerDb))!;
    expect(Math.abs(p.x - (s.canvas.left + s.canvas.width / 2))).toBeLessThan(3);
    expect(Math.abs(p.y - (s.canvas.top + s.canvas.height / 2))).toBeLessThan(3);
    expect(await text(page, '#panel [data-field=name]')).toBe('Ledger DB');
    expect(errors).toEqual([]);
  });

  it('the gaps view lists the orphan and the unmentioned entity and highlights them', async () => {
    const { page, errors } = await open();
    await waitIdle(page, false);
    await page.click('#gaps-toggle');
    const orphans = page.locator('#gaps [data-list=orphans] button');
    const unmentioned = page.locator('#gaps [data-list=unmentioned] button');
    await page.locator('#gaps [data-list=orphans] [data-id="concept:quantum"]').waitFor();
    const orphanIds = await orphans.evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
    const unmentionedIds = await unmentioned.evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
    expect(orphanIds).toEqual([FIXTURE.orphan]);
    const { graphStats } = await gqlOk<{ graphStats: { unmentionedCount: number } }>(
      t,
      `{ graphStats { unmentionedCount } }`,
    );
    expect(unmentionedIds).toHaveLength(graphStats.unmentionedCount);
    expect(await text(page, '#gaps [data-field=gaps-status]')).toBe(
      `1 without relationships, ${graphStats.unmentionedCount} not mentioned by any document.`,
    );
    expect(unmentionedIds).toContain(FIXTURE.unmentioned);
    expect(unmentionedIds).not.toContain(FIXTURE.orphan);
    expect(unmentionedIds).not.toContain(FIXTURE.payments);
    await page.getByRole('button', { name: 'Highlight in graph' }).click();
    const s = await untilSnapshot(page, (x) => x.gapIds.length > 0 && x.busy === 0);
    expect(s.gapIds).toEqual(expect.arrayContaining([FIXTURE.orphan, FIXTURE.unmentioned]));
    expect(s.nodeIds).toEqual(expect.arrayContaining([FIXTURE.orphan, FIXTURE.unmentioned]));
    await orphans.first().click();
    await page.locator('#panel [data-field=name]', { hasText: 'Quantum Ledger Sync' }).waitFor();
    expect(await text(page, '#panel')).toContain('No relationships.');
    expect(errors).toEqual([]);
  });

  it('works from the keyboard: labelled controls, search with arrows and Enter, canvas keys', async () => {
    const { page, errors } = await open();
    await waitIdle(page, false);
    const unlabelled = await page
      .locator('button, input, select, canvas')
      .evaluateAll(
        (els) =>
          els.filter(
            (e) =>
              !(
                e.textContent?.trim() ||
                e.getAttribute('aria-label') ||
                (e.id && e.ownerDocument.querySelector(`label[for="${e.id}"]`))
              ),
          ).length,
      );
    expect(unlabelled).toBe(0);
    // The first Tab reaches the skip link, which jumps past the pages' header to the search.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    expect(
      await page.evaluate(
        () => (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement.id,
      ),
    ).toBe('search-input');
    await page.keyboard.type('Ledger D');
    await page.locator('#search-results [role=option][aria-selected=true]', { hasText: 'Ledger DB' }).waitFor();
    await page.keyboard.press('Enter');
    await page.locator('#panel [data-field=name]', { hasText: 'Ledger DB' }).waitFor();
    const before = await waitIdle(page);
    await page.focus('#graph');
    await page.keyboard.press('+');
    expect((await snapshot(page)).zoom).toBeCloseTo(before.zoom * 1.25, 5);
    expect(before.expandedIds).toContain(FIXTURE.ledgerDb);
    await page.keyboard.press('Enter');
    await untilSnapshot(page, (s) => !s.expandedIds.includes(FIXTURE.ledgerDb));
    await page.keyboard.press('Enter');
    await untilSnapshot(page, (s) => s.expandedIds.includes(FIXTURE.ledgerDb) && s.busy === 0);
    expect(errors).toEqual([]);
  });

  it('renders API text as text, never as markup', async () => {
    const name = '<img src=x onerror="window.__xss=1">Evil';
    await gqlOk(t, `mutation($e: CreateEntityInput!) { createEntity(input: $e) { id } }`, {
      e: {
        id: 'concept:evil',
        type: 'Concept',
        name,
        description: '<script>window.__xss=2</script>',
        properties: { html: '<b>x</b>' },
      },
    });
    const { page, errors } = await open('?entity=concept:evil');
    await page.locator('#panel [data-field=name]').waitFor();
    expect(await text(page, '#panel [data-field=name]')).toBe(name);
    expect(await page.locator('#panel img, #panel script, #panel b').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it('tells extracted entities apart: origin in the panel and the legend, evidence quotes linking to documents', async () => {
    await gqlOk(
      t,
      `mutation { createDocument(input: { id: "guide:hmr", title: "HMR guide", content: "Hot Module Replacement swaps modules." }) { document { id } } }`,
    );
    await t.services.graph.upsertGraph(
      [
        { id: 'x:hmr', type: 'Concept', name: 'Hot Module Replacement' },
        { id: 'x:esm', type: 'Concept', name: 'Native ESM' },
      ],
      [{ fromId: 'x:hmr', type: 'RELATED_TO', toId: 'x:esm' }],
      { origin: 'EXTRACTED' },
    );
    await t.services.db.query(
      `INSERT INTO extraction_evidence (fact_key, fact, document_id, chunk_id, extractor, quote, confidence)
       VALUES ('e:x:hmr', '{}'::jsonb, 'guide:hmr', NULL, 'offline', 'Hot Module Replacement swaps modules', 0.8)`,
    );
    const { page, errors } = await open('?entity=x:hmr');
    await page.locator('#panel [data-field=name]', { hasText: 'Hot Module Replacement' }).waitFor();
    expect(await text(page, '#panel [data-field=origin]')).toBe('EXTRACTED');
    const quote = page.locator('#panel [data-field=evidence] li').first();
    expect(await quote.locator('q').textContent()).toBe('Hot Module Replacement swaps modules');
    expect(await quote.locator('a').getAttribute('href')).toBe('/knowledge/guide%3Ahmr');
    const before = await waitIdle(page, false);
    expect(before.nodeIds).toEqual(expect.arrayContaining(['x:hmr', 'x:esm']));
    expect(await text(page, '#legend [data-key="origin:EXTRACTED"] .count')).toBe('2');
    await page.locator('#legend [data-key="origin:EXTRACTED"]').click();
    const hidden = await snapshot(page);
    expect(hidden.nodeIds).not.toContain('x:esm');
    expect(hidden.nodes).toBe(before.nodes - 2);
    expect(errors).toEqual([]);
  });
});
