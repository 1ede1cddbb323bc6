// Shared set-up of the explorer's browser tests: a fresh build, the fixture graph, and pages that record their errors.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { projectPath } from '../../src/paths.js';
import { eventually } from '../helpers/eventually.js';
import type { TestServer } from '../helpers/testServer.js';
import type { ExplorerSnapshot, ExplorerStatsHook } from '../../web/explorer/statsTypes.js';

/** Builds the explorer when its bundle is missing or older than its sources (web/explorer, web/shared). */
export function ensureExplorerBuilt(): void {
  const bundle = projectPath('web', 'dist', 'explorer', 'main.js');
  const built =
    fs.existsSync(projectPath('web', 'dist', 'explorer', 'index.html')) && fs.existsSync(bundle)
      ? fs.statSync(bundle).mtimeMs
      : 0;
  const newest = Math.max(
    ...['explorer', 'shared'].flatMap((dir) => filesUnder(projectPath('web', dir))).map((f) => fs.statSync(f).mtimeMs),
  );
  if (built >= newest) return;
  execFileSync(
    process.execPath,
    [projectPath('node_modules', 'tsx', 'dist', 'cli.mjs'), projectPath('scripts', 'buildWeb.ts'), 'explorer'],
    { cwd: projectPath(), stdio: 'inherit' },
  );
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** Runs an operation and fails with the server's errors when it returned any. */
export async function gqlOk<T>(t: TestServer, query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await t.gql<T>(query, variables);
  if (res.errors?.length || !res.data) throw new Error(`GraphQL failed: ${JSON.stringify(res.errors)}`);
  return res.data;
}

/** Writes entities and relationships in calls of at most 5,000 items (upsertGraph's cap). */
export async function upsertGraphInBatches(
  t: TestServer,
  entities: Record<string, unknown>[],
  relationships: { fromId: string; toId: string; type: string }[],
): Promise<void> {
  const q = `mutation($input: UpsertGraphInput!) { upsertGraph(input: $input) { entities { id } } }`;
  for (let i = 0; i < entities.length; i += 5000)
    await gqlOk(t, q, { input: { entities: entities.slice(i, i + 5000) } });
  for (let i = 0; i < relationships.length; i += 2500)
    await gqlOk(t, q, { input: { relationships: relationships.slice(i, i + 2500) } });
}

/** The explorer's current state. */
export function snapshot(page: Page): Promise<ExplorerSnapshot> {
  return page.evaluate(() =>
    (globalThis as unknown as { __explorerStats: ExplorerStatsHook }).__explorerStats.snapshot(),
  );
}

/** Where a node is drawn, in page pixels (null when not loaded). */
export function position(page: Page, id: string): Promise<{ x: number; y: number } | null> {
  return page.evaluate(
    (nodeId) => (globalThis as unknown as { __explorerStats: ExplorerStatsHook }).__explorerStats.position(nodeId),
    id,
  );
}

/** Frames drawn per second over `ms`, counted in the page by the render loop. */
export function measureFps(page: Page, ms: number): Promise<{ frames: number; ms: number; fps: number }> {
  return page.evaluate(
    (d) => (globalThis as unknown as { __explorerStats: ExplorerStatsHook }).__explorerStats.measureFps(d),
    ms,
  );
}

/** Restarts the layout at full heat. */
export function reheat(page: Page): Promise<void> {
  return page.evaluate(() =>
    (globalThis as unknown as { __explorerStats: ExplorerStatsHook }).__explorerStats.reheat(),
  );
}

/** Waits until no request is in flight and, with `settled`, the layout has stopped moving. */
export async function waitIdle(page: Page, settled = true, timeout = 30_000): Promise<ExplorerSnapshot> {
  await page.waitForFunction(
    (s) => {
      const h = (globalThis as unknown as { __explorerStats?: ExplorerStatsHook }).__explorerStats;
      if (!h) return false;
      const snap = h.snapshot();
      return snap.busy === 0 && snap.totalNodes > 0 && (!s || !snap.running);
    },
    settled,
    { timeout, polling: 100 },
  );
  return snapshot(page);
}

/** A page that records uncaught exceptions and console errors (and failed requests) into `errors`. */
export async function openPage(browser: Browser, url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  await page.goto(url);
  return { page, errors };
}

/** Polls the snapshot until `ok` holds (or fails after `timeout` with the last snapshot). */
export async function untilSnapshot(
  page: Page,
  ok: (s: ExplorerSnapshot) => boolean,
  timeout = 20_000,
): Promise<ExplorerSnapshot> {
  let last: ExplorerSnapshot | undefined;
  try {
    return await eventually(
      async () => {
        last = await snapshot(page);
        return ok(last) ? last : undefined;
      },
      { within: timeout, every: 100, what: 'the explorer reaching the expected state' },
    );
  } catch (err) {
    const shown = last && JSON.stringify({ ...last, nodeIds: last.nodeIds.slice(0, 50) });
    throw new Error(`${(err as Error).message}; last snapshot: ${shown}`, { cause: err });
  }
}
