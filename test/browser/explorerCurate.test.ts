// Curating the extracted graph in the explorer, in headless chromium against a real server over PGlite: extracted
// facts are marked, their evidence links to documents, and accept, reject, merge and undo merge are one click each,
// read back through GraphQL; accept is undone with undo(auditId) and the store is back as it was.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import fs from 'node:fs';
import { projectPath } from '../../src/paths.js';
import { artifactPath, chromiumPath, launchBrowser } from '../helpers/browser.js';
import { edgeTarget } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';
import { FIXTURE, seedFixture } from './explorerFixture.js';
import { ensureExplorerBuilt, gqlOk, openPage, waitIdle } from './explorerSupport.js';

const chromium = chromiumPath();
const suite = chromium ? describe : describe.skip;

interface EntityRead {
  entity: {
    name: string;
    origin: string;
    aliases: string[];
    relationships: { id: string; type: string; origin: string; from: { id: string }; to: { id: string } }[];
  } | null;
}
const ENTITY = `query($id: ID!) { entity(id: $id) { name origin aliases
  relationships { id type origin from { id } to { id } } } }`;

suite('curating the extracted graph (/explorer)', () => {
  let t: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    ensureExplorerBuilt();
    t = await startTestServer(edgeTarget());
    await seedFixture(t);
    // What extraction writes: EXTRACTED facts, and the evidence that supports them.
    await t.services.graph.upsertGraph(
      [
        { id: 'x:chargeback', type: 'Concept', name: 'Chargebacks' },
        { id: 'x:chargeback2', type: 'Concept', name: 'Chargeback disputes' },
        { id: 'x:noise', type: 'Concept', name: 'Card payments fail' },
      ],
      [
        { fromId: FIXTURE.payments, type: 'HANDLES', toId: 'x:chargeback' },
        { fromId: FIXTURE.payments, type: 'HANDLES', toId: 'x:chargeback2' },
        { fromId: FIXTURE.payments, type: 'MENTIONS', toId: 'x:noise' },
      ],
      { origin: 'EXTRACTED' },
    );
    await t.services.db.query(
      `INSERT INTO extraction_evidence (fact_key, fact, document_id, chunk_id, extractor, quote, confidence)
       VALUES ('e:x:chargeback', '{}'::jsonb, $1, NULL, 'offline', 'check the fraud scores', 0.8)`,
      [FIXTURE.runbook],
    );
    await t.services.outbox?.drain();
    browser = await launchBrowser(chromium!);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const read = async (id: string) => (await gqlOk<EntityRead>(t, ENTITY, { id })).entity;
  async function choose(page: Page, typed: string, name: string): Promise<void> {
    await page.fill('#search-input', typed);
    await page.locator('#search-results [role=option]', { hasText: name }).click();
    await page.locator('#panel h2', { hasText: name }).waitFor();
  }
  const note = (page: Page, text: string) => page.locator('#panel [data-field=edit-note]', { hasText: text }).waitFor();

  it('marks extracted facts, shows their evidence, and accepts, merges, undoes the merge and rejects', async () => {
    const { page, errors } = await openPage(browser, 'about:blank');
    await page.goto(`${t.server.url}/explorer?entity=${encodeURIComponent('x:chargeback')}`);
    await page.locator('body[data-edit-role]').waitFor();
    await waitIdle(page, false);
    await page.locator('#panel h2', { hasText: 'Chargebacks' }).waitFor();
    expect(await page.locator('#panel [data-field=origin]').textContent()).toBe('EXTRACTED');
    expect(await page.locator('#panel [data-field=rel-origin]').count()).toBe(1);
    // The evidence: the quote, linking to its document in the inspector.
    const evidence = page.locator('#panel [data-field=evidence] li').first();
    expect(await evidence.locator('q').textContent()).toBe('check the fraud scores');
    expect(await evidence.locator('a').getAttribute('href')).toBe(`/knowledge/${encodeURIComponent(FIXTURE.runbook)}`);
    await page.screenshot({ path: artifactPath('explorer-curate.png') });
    // docs/explorer-curate.png is refreshed on request only, so a test run leaves the working tree clean.
    if (process.env.CAIRN_UPDATE_DOCS === '1')
      fs.copyFileSync(artifactPath('explorer-curate.png'), projectPath('docs', 'explorer-curate.png'));

    // Accept: one click, and the fact is curated; its relationship too. Undo puts both back.
    await page.click('#panel [data-action=accept]');
    await note(page, 'Accepted Chargebacks');
    expect((await read('x:chargeback'))?.origin).toBe('MANUAL');
    expect(await page.locator('#panel [data-action=accept]').count()).toBe(0);
    await page.click('#panel [data-action=accept-relationship]');
    await note(page, 'Accepted relationship Payments API HANDLES Chargebacks');
    expect((await read('x:chargeback'))?.relationships.map((r) => r.origin)).toEqual(['MANUAL']);
    const log = await gqlOk<{ auditLog: { nodes: { id: string; operation: string }[] } }>(
      t,
      '{ auditLog(first: 2, filter: { targetId: "x:chargeback" }) { nodes { id operation } } }',
    );
    for (const entry of log.auditLog.nodes)
      await gqlOk(t, 'mutation($id: ID!) { undo(auditId: $id) { id } }', { id: entry.id });
    const restored = await read('x:chargeback');
    expect(restored?.origin).toBe('EXTRACTED');
    expect(restored?.relationships.map((r) => r.origin)).toEqual(['EXTRACTED']);

    // Merge the duplicate into Chargebacks: "Merge into…" on it, select the one to keep, one click.
    await choose(page, 'disputes', 'Chargeback disputes');
    await page.click('#panel [data-action=merge]');
    await choose(page, 'Chargebacks', 'Chargebacks');
    await page.click('#panel [data-action=confirm-merge]');
    await note(page, 'Merged Chargeback disputes into Chargebacks.');
    expect(await read('x:chargeback2')).toBeNull();
    expect((await read('x:chargeback'))?.aliases).toEqual(['Chargeback disputes']);
    // Undo the merge, one click: the duplicate is back and the kept entity as it was.
    await page.click('#panel [data-action=undo-merge]');
    await note(page, 'Merge undone: Chargeback disputes is back.');
    expect((await read('x:chargeback2'))?.name).toBe('Chargeback disputes');
    expect((await read('x:chargeback'))?.aliases).toEqual([]);

    // Reject an extracted relationship from the panel's list: it goes, both entities stay.
    await choose(page, 'disputes', 'Chargeback disputes');
    await page.click('#panel [data-action=reject-relationship]');
    await note(page, 'Rejected relationship Payments API HANDLES Chargeback disputes');
    expect((await read('x:chargeback2'))?.relationships).toEqual([]);
    expect((await read(FIXTURE.payments))?.name).toBe('Payments API');

    // Reject: the entity goes, and the name is kept from extraction.
    await choose(page, 'Card payments', 'Card payments fail');
    await page.click('#panel [data-action=reject]');
    await page.locator('#panel [data-field=edit-note]', { hasText: 'Rejected Card payments fail' }).waitFor();
    expect(await read('x:noise')).toBeNull();
    const entries = await gqlOk<{ auditLog: { nodes: { operation: string }[] } }>(
      t,
      '{ auditLog(first: 1, filter: { targetId: "x:noise" }) { nodes { operation } } }',
    );
    expect(entries.auditLog.nodes[0]?.operation).toBe('rejectEntity');
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('exports the visible subgraph as JSON and GraphML, folds the legend, and invites to fill an empty graph', async () => {
    const { page, errors } = await openPage(browser, 'about:blank');
    await page.goto(`${t.server.url}/explorer?entity=${encodeURIComponent(FIXTURE.payments)}`);
    await page.locator('body[data-edit-role]').waitFor();
    await waitIdle(page, false);
    // Hide what extraction wrote: the export leaves it out, with its relationships.
    await page.locator('#legend [data-key="origin:EXTRACTED"]').click();
    const [json] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
    expect(json.suggestedFilename()).toBe('cairn-graph.json');
    const exported = JSON.parse(fs.readFileSync((await json.path())!, 'utf8')) as {
      entities: { id: string; origin: string }[];
      relationships: { fromId: string; toId: string }[];
    };
    const ids = new Set(exported.entities.map((e) => e.id));
    expect(ids.has(FIXTURE.payments)).toBe(true);
    expect(exported.entities.some((e) => e.origin === 'EXTRACTED')).toBe(false);
    expect(exported.relationships.length).toBeGreaterThan(0);
    expect(exported.relationships.every((r) => ids.has(r.fromId) && ids.has(r.toId))).toBe(true);
    const direct = await gqlOk<{ entity: { relationships: { from: { id: string }; to: { id: string } }[] } }>(
      t,
      `{ entity(id: "${FIXTURE.payments}") { relationships { from { id } to { id } } } }`,
    );
    const curatedLinks = direct.entity.relationships.filter((r) => !r.to.id.startsWith('x:'));
    expect(
      exported.relationships.filter((r) => r.fromId === FIXTURE.payments || r.toId === FIXTURE.payments),
    ).toHaveLength(curatedLinks.length);
    const [graphml] = await Promise.all([page.waitForEvent('download'), page.click('#export-graphml')]);
    const xmlText = fs.readFileSync((await graphml.path())!, 'utf8');
    expect(xmlText).toContain('<graphml xmlns="http://graphml.graphdrawing.org/xmlns">');
    expect(xmlText.match(/<node /g)).toHaveLength(exported.entities.length);
    expect(xmlText.match(/<edge /g)).toHaveLength(exported.relationships.length);
    expect(xmlText).toContain(`<node id="${FIXTURE.payments}"><data key="type">Service</data>`);

    // Relationship types have their own colours in the legend (the canvas draws each type's links in it).
    const swatches = await page
      .locator('#legend [aria-label="Relationship types"] .line-swatch')
      .evaluateAll((spans) =>
        spans.map((span) => (span as unknown as { style: { background: string } }).style.background),
      );
    expect(swatches.length).toBeGreaterThan(2);
    expect(new Set(swatches).size).toBe(swatches.length);
    // The legend sits beside the canvas, so it covers no node; it folds down to its toggle, widening the canvas.
    const boxes = async () => ({
      legend: (await page.locator('#legend').boundingBox())!,
      canvas: (await page.locator('#graph').boundingBox())!,
    });
    const open = await boxes();
    expect(open.legend.x + open.legend.width).toBeLessThanOrEqual(open.canvas.x);
    await page.click('#legend [data-action=legend-toggle]');
    expect(await page.locator('#legend li').count()).toBe(0);
    const folded = await boxes();
    expect(folded.legend.x + folded.legend.width).toBeLessThanOrEqual(folded.canvas.x);
    expect(folded.canvas.width).toBeGreaterThan(open.canvas.width);
    await page.click('#legend [data-action=legend-toggle]');
    expect(await page.locator('#legend li').count()).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.close();

    // An empty graph says so and offers what to do.
    const empty = await startTestServer(edgeTarget());
    try {
      const opened = await openPage(browser, `${empty.server.url}/explorer`);
      const cta = opened.page.getByRole('region', { name: 'Empty graph' });
      await cta.waitFor();
      expect(await cta.getByRole('link', { name: 'Import documents' }).getAttribute('href')).toBe('/knowledge#upload');
      await opened.page.locator('#empty-new-entity').waitFor();
      await opened.page.click('#empty-new-entity');
      await opened.page.locator('#panel form.entity-form').waitFor();
      expect(opened.errors).toEqual([]);
      await opened.page.close();
    } finally {
      await empty.close();
    }
  }, 120_000);
});
