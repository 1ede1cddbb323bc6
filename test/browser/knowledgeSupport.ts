// Shared set-up of the knowledge/GraphiQL browser tests: built assets, seed data, pages that record their errors.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { projectPath } from '../../src/paths.js';
import type { TestServer } from '../helpers/testServer.js';

/** Builds the named web apps unless their index.html exists (npm test builds them before jest). */
export function ensureBuilt(apps: string[]): void {
  const missing = apps.filter((a) => !fs.existsSync(projectPath('web', 'dist', a, 'index.html')));
  if (missing.length === 0) return;
  execFileSync(
    process.execPath,
    [projectPath('node_modules', 'tsx', 'dist', 'cli.mjs'), projectPath('scripts', 'buildWeb.ts'), ...missing],
    {
      cwd: projectPath(),
      stdio: 'inherit',
    },
  );
}

/** Fails the calling test with the server's errors when an operation returned any. */
export async function gqlOk<T>(t: TestServer, query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await t.gql<T>(query, variables);
  if (res.errors?.length || !res.data) throw new Error(`GraphQL failed: ${JSON.stringify(res.errors)}`);
  return res.data;
}

/** The id of the document whose markdown tries scripts, handlers and javascript: links. */
export const HOSTILE_ID = 'guide:security/markdown';
/** Ids, types and tags of the named seed documents. */
export const SEED_DOCS = [
  {
    id: 'runbook:ach-returns',
    title: 'ACH returns',
    documentType: 'MANUAL',
    tags: ['payments', 'ach'],
    source: 'wiki/payments',
    content:
      'ACH payments fail when the receiving bank rejects the transfer. Verify the routing number, then retry the ACH payment.',
  },
  {
    id: 'faq:refunds',
    title: 'Refunds',
    documentType: 'FAQ',
    tags: ['billing'],
    source: 'wiki/billing',
    content: 'Refunds take 5 business days to reach the customer.',
  },
  {
    id: 'policy:retention',
    title: 'Data retention',
    documentType: 'POLICY',
    tags: ['compliance'],
    source: 'wiki/legal',
    content: 'We keep request logs for 30 days and invoices for 10 years.',
  },
  {
    id: HOSTILE_ID,
    title: 'Markdown safety',
    documentType: 'REFERENCE',
    tags: ['security', 'payments'],
    source: 'https://docs.example.com/security',
    metadata: { owner: 'security-team', reviewed: true },
    entityIds: ['svc:payments'],
    content: [
      '## Safe rendering',
      '',
      'The Payment Service renders **markdown**:',
      '',
      '- [click](javascript:alert(1))',
      '- [docs](https://docs.example.com/security)',
      '',
      '<script>window.__xss = "script"</script>',
      '<img src="data:," onerror="window.__xss = \'img\'">',
      '<a href="javascript:window.__xss=\'raw\'" id="raw-js">raw</a>',
    ].join('\n'),
  },
] as const;
/** Filler documents (type OTHER, tag filler) so that the table has a second page at 20 rows a page. */
export const FILLER_COUNT = 17;

/** Seeds two entities with a relationship, the documents, and a knowledge gap; returns the chunk total. */
export async function seed(t: TestServer): Promise<{ documents: number; chunks: number; gapQuery: string }> {
  await gqlOk(
    t,
    `mutation { upsertGraph(input: {
    entities: [{ id: "svc:payments", type: "Service", name: "Payment Service" }, { id: "sys:ledger", type: "System", name: "Ledger" }]
    relationships: [{ fromId: "svc:payments", toId: "sys:ledger", type: "DEPENDS_ON" }] }) { entities { id } } }`,
  );
  const fillers = Array.from({ length: FILLER_COUNT }, (_, i) => ({
    id: `note:${String(i).padStart(2, '0')}`,
    title: `Note ${i}`,
    documentType: 'OTHER',
    tags: ['filler'],
    content: `Filler note number ${i} about nothing in particular.`,
  }));
  // Fillers first: the table is newest first, so the named documents lead page one.
  const written = await gqlOk<{ upsertDocuments: { chunkCount: number }[] }>(
    t,
    'mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { chunkCount } }',
    { input: fillers },
  );
  let chunks = written.upsertDocuments.reduce((n, r) => n + r.chunkCount, 0);
  for (const doc of SEED_DOCS) {
    const r = await gqlOk<{ createDocument: { chunkCount: number } }>(
      t,
      'mutation($input: CreateDocumentInput!) { createDocument(input: $input) { chunkCount } }',
      { input: doc },
    );
    chunks += r.createDocument.chunkCount;
  }
  // enrichContext records a gap when retrieval finds nothing good; a filter matching no document guarantees it.
  const gapQuery = 'How do I recalibrate the flux capacitor?';
  await gqlOk(
    t,
    'query($q: String!) { enrichContext(input: { query: $q, filter: { tags: "no-such-tag" } }) { truncated } }',
    { q: gapQuery },
  );
  return { documents: FILLER_COUNT + SEED_DOCS.length, chunks, gapQuery };
}

/** A page in a fresh context that records uncaught exceptions and console errors (CSP violations log there). */
export async function openPage(browser: Browser): Promise<{ page: Page; errors: string[]; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  return { page, errors, close: () => context.close() };
}
