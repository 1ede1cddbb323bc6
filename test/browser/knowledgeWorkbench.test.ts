// Editing documents in bulk and uploading files on /knowledge, in headless chromium against a real server over PGlite:
// files dropped on the page are uploaded and imported with per-file progress, selected rows are tagged and deleted,
// and every change is read back through GraphQL and undone (the upload jobs with undoImportJob).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { projectPath } from '../../src/paths.js';
import { artifactPath, chromiumPath, launchBrowser } from '../helpers/browser.js';
import { edgeTarget } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';
import { ensureBuilt, gqlOk, openPage } from './knowledgeSupport.js';

const chromium = chromiumPath();
const describeBrowser = chromium ? describe : describe.skip;

/** Fixture files to drop, with the MIME type a browser would give them. */
const FILES = [
  { name: 'guide.md', type: 'text/markdown' },
  { name: 'page.html', type: 'text/html' },
  { name: 'report.pdf', type: 'application/pdf' },
  { name: 'handbook.docx', type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
];

interface DocRead {
  id: string;
  title: string;
  tags: string[];
}

describeBrowser('knowledge workbench: upload and bulk edits (chromium)', () => {
  let t: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    ensureBuilt(['knowledge']);
    t = await startTestServer(edgeTarget());
    await gqlOk(t, 'mutation($d: [CreateDocumentInput!]!) { upsertDocuments(input: $d) { document { id } } }', {
      d: ['alpha', 'beta', 'gamma'].map((w) => ({
        id: `note:${w}`,
        title: `Note ${w}`,
        content: `The ${w} note explains the ${w} rollout.`,
        tags: ['notes'],
      })),
    });
    browser = await launchBrowser(chromium!);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const documents = async (): Promise<DocRead[]> =>
    (await gqlOk<{ documents: { nodes: DocRead[] } }>(t, '{ documents(first: 100) { nodes { id title tags } } }'))
      .documents.nodes;

  /** Drops files on the drop zone as a drag from the desktop would (a DataTransfer holding File objects). */
  async function dropFiles(page: Page, files: typeof FILES): Promise<void> {
    const payload = files.map((f) => ({
      ...f,
      base64: fs.readFileSync(projectPath('test', 'fixtures', 'files', f.name)).toString('base64'),
    }));
    const transfer = await page.evaluateHandle((list) => {
      // Browser globals, typed here since the tests compile without the DOM library.
      const w = globalThis as unknown as {
        DataTransfer: new () => { items: { add(file: unknown): void } };
        File: new (parts: unknown[], name: string, options: { type: string }) => unknown;
        atob(text: string): string;
      };
      const dt = new w.DataTransfer();
      for (const f of list) {
        const bytes = Uint8Array.from(w.atob(f.base64), (c) => c.charCodeAt(0));
        dt.items.add(new w.File([bytes], f.name, { type: f.type }));
      }
      return dt;
    }, payload);
    await page.getByTestId('drop-zone').dispatchEvent('dragover', { dataTransfer: transfer });
    await page.getByTestId('drop-zone').dispatchEvent('drop', { dataTransfer: transfer });
  }

  test('dropped files upload and import with per-file progress; undoing their jobs removes them', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${t.server.url}/knowledge`);
      const before = (await documents()).map((d) => d.id).sort();
      await page.fill('input[name=uploadTags]', 'dropped');
      await dropFiles(page, FILES);
      const rows = page.getByTestId('upload-file');
      await expect(rows.count()).resolves.toBe(FILES.length);
      for (const f of FILES)
        await page.locator(`[data-testid=upload-file][data-name="${f.name}"][data-phase=done]`).waitFor();
      for (const f of FILES)
        expect(
          await page.locator(`[data-testid=upload-file][data-name="${f.name}"] progress`).getAttribute('value'),
        ).toBe('1');
      expect(await page.locator('[data-testid=upload-file] a').count()).toBe(FILES.length);
      await page.locator('#upload').screenshot({ path: artifactPath('knowledge-upload.png') });
      // docs/knowledge-upload.png is refreshed on request only, so a test run leaves the working tree clean.
      if (process.env.CAIRN_UPDATE_DOCS === '1')
        fs.copyFileSync(artifactPath('knowledge-upload.png'), projectPath('docs', 'knowledge-upload.png'));

      const added = (await documents()).filter((d) => !before.includes(d.id));
      expect(added).toHaveLength(FILES.length);
      expect(added.every((d) => d.tags.includes('dropped'))).toBe(true);

      // Each upload is an import job: undoing it leaves the store as it was. The first from History's "Undo job".
      const [first, ...rest] = added;
      const row = page
        .getByTestId('history-row')
        .filter({ hasText: 'createDocument' })
        .filter({ has: page.getByRole('link', { name: first!.id, exact: true }) });
      await row.getByRole('button', { name: 'Undo job' }).click();
      await row.getByText('undone').waitFor();
      expect((await documents()).some((d) => d.id === first!.id)).toBe(false);
      for (const d of rest) {
        const log = await gqlOk<{ auditLog: { nodes: { jobId: string | null }[] } }>(
          t,
          'query($id: ID!) { auditLog(first: 1, filter: { targetId: $id, operation: "createDocument" }) { nodes { jobId } } }',
          { id: d.id },
        );
        const jobId = log.auditLog.nodes[0]?.jobId;
        expect(jobId).toBeTruthy();
        await gqlOk(t, 'mutation($id: ID!) { undoImportJob(id: $id) { undone } }', { id: jobId });
      }
      expect((await documents()).map((d) => d.id).sort()).toEqual(before);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  test('selected rows are tagged and deleted in bulk, and the changes undo', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${t.server.url}/knowledge`);
      await page.getByTestId('document-row').first().waitFor();
      await page.getByRole('checkbox', { name: 'Select Note alpha' }).check();
      await page.getByRole('checkbox', { name: 'Select Note beta' }).check();
      expect(await page.getByTestId('bulk-count').textContent()).toBe('2 documents selected');
      await page.fill('input[name=bulkTags]', 'reviewed, q3');
      await page.click('[data-action=bulk-tag]');
      await page.getByRole('status').filter({ hasText: 'Tagged 2 documents.' }).waitFor();
      const tagsOf = async (id: string) => (await documents()).find((d) => d.id === id)?.tags;
      expect(await tagsOf('note:alpha')).toEqual(['notes', 'reviewed', 'q3']);
      expect(await tagsOf('note:beta')).toEqual(['notes', 'reviewed', 'q3']);
      expect(await tagsOf('note:gamma')).toEqual(['notes']);

      // Delete: a confirmation that says what goes, then both rows are gone.
      await page.getByRole('checkbox', { name: 'Select Note alpha' }).check();
      await page.getByRole('checkbox', { name: 'Select Note beta' }).check();
      await page.click('[data-action=bulk-delete]');
      const confirm = page.getByRole('alertdialog', { name: 'Delete the selected documents?' });
      expect(await confirm.textContent()).toContain('Delete 2 documents with their 2 chunks?');
      await page.click('[data-action=bulk-delete-confirm]');
      await page.locator('[data-testid=document-row][data-id="note:alpha"]').waitFor({ state: 'detached' });
      expect((await documents()).map((d) => d.id).sort()).toEqual(['note:gamma']);

      // Undo every change, newest first: the documents are back as they were.
      const log = await gqlOk<{ auditLog: { nodes: { id: string; operation: string }[] } }>(
        t,
        '{ auditLog(first: 4, filter: { actor: "local" }) { nodes { id operation } } }',
      );
      expect(log.auditLog.nodes.map((n) => n.operation).sort()).toEqual([
        'deleteDocument',
        'deleteDocument',
        'updateDocument',
        'updateDocument',
      ]);
      for (const entry of log.auditLog.nodes)
        await gqlOk(t, 'mutation($id: ID!) { undo(auditId: $id) { id } }', { id: entry.id });
      expect(await tagsOf('note:alpha')).toEqual(['notes']);
      expect(await tagsOf('note:beta')).toEqual(['notes']);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  test('what the agent sees takes every option and filter, and matches enrichContext', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${t.server.url}/knowledge`);
      const form = page.getByRole('form', { name: 'Ask as an agent' });
      await form.getByLabel('Question').fill('gamma rollout');
      await form.getByLabel('Top K').fill('2');
      await form.getByLabel('Max entities').fill('0');
      await form.getByLabel('Depth').fill('2');
      await form.getByLabel('Max chars').fill('1500');
      await form.getByLabel('Tags').fill('notes');
      await form.getByLabel('Type').selectOption('OTHER');
      await form.getByRole('button', { name: 'Ask' }).click();
      const context = page.getByTestId('agent-context');
      await context.waitFor();
      const direct = await gqlOk<{ enrichContext: { context: string; chunks: { document: { id: string } }[] } }>(
        t,
        `{ enrichContext(input: { query: "gamma rollout", topK: 2, maxEntities: 0, graphDepth: 2, maxChars: 1500,
           filter: { tags: "notes", types: [OTHER] } }) { context chunks { document { id } } } }`,
      );
      expect(await context.textContent()).toBe(direct.enrichContext.context);
      expect(direct.enrichContext.chunks[0]?.document.id).toBe('note:gamma');
      await page.getByTestId('agent-chunk').first().waitFor();
      expect(await page.getByTestId('agent-timings').innerText()).toMatch(/documents lane \d+ ms · graph lane \d+ ms/);
      // A filter nothing passes: the agent gets no chunk, as GraphQL says.
      await form.getByLabel('Type').selectOption('FAQ');
      await form.getByRole('button', { name: 'Ask' }).click();
      await page.getByRole('heading', { name: 'Chunks (0)' }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);
  // Last: creating keys turns authentication on for the rest of the suite.
  test('readers see no edit controls and editors no deletes; the server refuses them the same', async () => {
    const admin = (await t.services.apiKeys.create('wb-admin', 'admin')).key;
    const reader = (await t.services.apiKeys.create('wb-reader', 'reader')).key;
    const editor = (await t.services.apiKeys.create('wb-editor', 'editor')).key;
    const openAs = async (key: string, path: string) => {
      const opened = await openPage(browser);
      await opened.page.addInitScript((k) => {
        const storage = (globalThis as unknown as { sessionStorage: { setItem(n: string, v: string): void } })
          .sessionStorage;
        storage.setItem('cairn.apiKey', k);
      }, key);
      await opened.page.goto(`${t.server.url}${path}`);
      await opened.page.locator('body[data-edit-role]').waitFor();
      return opened;
    };
    const asReader = await openAs(reader, '/knowledge');
    try {
      const { page, errors } = asReader;
      expect(await page.locator('body').getAttribute('data-edit-role')).toBe('reader');
      await page.locator('[data-testid=document-row][data-id="note:gamma"]').waitFor();
      expect(await page.getByRole('heading', { name: 'Search' }).count()).toBe(1);
      for (const heading of ['Import', 'Upload files', 'History'])
        expect(await page.getByRole('heading', { name: heading, exact: true }).count()).toBe(0);
      expect(await page.getByRole('checkbox').count()).toBe(0);
      expect(await page.getByRole('button', { name: /^Delete/ }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /^Sync / }).count()).toBe(0);
      await page.goto(`${t.server.url}/knowledge/${encodeURIComponent('note:gamma')}`);
      await page.getByTestId('document-title').waitFor();
      expect(await page.getByRole('button', { name: 'Edit', exact: true }).count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await asReader.close();
    }
    // What the page hides, the server refuses.
    const asKey = (key: string, query: string) =>
      fetch(`${t.server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query }),
      }).then((r) => r.json() as Promise<{ errors?: { extensions?: { code?: string } }[] }>);
    const edit = 'mutation { updateDocument(id: "note:gamma", input: { tags: ["x"] }) { document { id } } }';
    expect((await asKey(reader, edit)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const remove = 'mutation { deleteDocument(id: "note:gamma") { deleted } }';
    expect((await asKey(editor, remove)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');

    const asEditor = await openAs(editor, '/knowledge');
    try {
      const { page, errors } = asEditor;
      expect(await page.locator('body').getAttribute('data-edit-role')).toBe('editor');
      await page.getByRole('checkbox', { name: 'Select Note gamma' }).waitFor();
      expect(await page.getByRole('heading', { name: 'Upload files' }).count()).toBe(1);
      expect(await page.getByRole('heading', { name: 'History' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Delete Note gamma' }).count()).toBe(0);
      await page.getByRole('checkbox', { name: 'Select Note gamma' }).check();
      await page.locator('[data-action=bulk-tag]').waitFor();
      expect(await page.locator('[data-action=bulk-delete]').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await asEditor.close();
    }
    const asAdmin = await openAs(admin, '/knowledge');
    try {
      expect(await asAdmin.page.locator('body').getAttribute('data-edit-role')).toBe('admin');
      await asAdmin.page.getByRole('button', { name: 'Delete Note gamma' }).waitFor();
      await asAdmin.page.getByRole('heading', { name: 'History' }).waitFor();
    } finally {
      await asAdmin.close();
    }
  }, 90_000);
});
