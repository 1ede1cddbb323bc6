import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { SourceService } from '../../importers/sources/SourceService.js';
import { edgeTarget, type ScratchDatabase } from '../helpers/databases.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixtureSite.js';
import { createSafeFetcher } from '../../importers/http/safeFetch.js';
import { loadConfig as configFor } from '../../src/config.js';
import { NO_BACKGROUND_EXTRACTION } from '../helpers/backgroundWork.js';

/** The safe fetcher with loopback allowed, as the services under test use it. */
const createSafeFetcherForTest = () =>
  createSafeFetcher(configFor({ CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: '127.0.0.1' }).import);

const page = (title: string, body: string, links: string[] = []) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`;

/** A page that answers 304 to its own ETag; `notModified` counts those answers. */
function etagPage(html: () => string, counter: { notModified: number }) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const body = html();
    const etag = `"${createHash('sha1').update(body).digest('hex')}"`;
    if (req.headers['if-none-match'] === etag) {
      counter.notModified += 1;
      res.writeHead(304, { etag }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html', etag }).end(body);
  };
}

async function owned(s: Services, sourceId: string): Promise<string[]> {
  const { rows } = await s.db.query<{ source: string }>(
    "SELECT metadata->>'url' AS source FROM documents WHERE source_id = $1 ORDER BY 1",
    [sourceId],
  );
  return rows.map((r) => new URL(r.source).pathname);
}

// Crawling and syncing do not depend on the store: one database (edgeTarget); sources.test.ts runs both.
describe.each([edgeTarget()])('SITE and OPENAPI sources on a real local site ($name)', (target) => {
  let site: FixtureSite;
  let s: Services;
  let root: string;
  let database: ScratchDatabase;
  const counter = { notModified: 0 };
  const texts: Record<string, string> = {
    a: 'Alpha page text.',
    b: 'Beta page text.',
    keep: 'This page never changes.',
    c: 'Gamma page text.',
  };
  let sitemapPages = ['a', 'b', 'keep'];

  beforeAll(async () => {
    site = await startFixtureSite();
    for (const name of Object.keys(texts))
      site.routes.set(
        `/docs/${name}.html`,
        etagPage(() => page(`Page ${name}`, texts[name] as string), counter),
      );
    site.routes.set('/docs/private.html', { body: page('Private', 'no robots'), type: 'text/html' });
    site.routes.set('/robots.txt', { body: 'User-agent: *\nDisallow: /docs/private.html\n', type: 'text/plain' });
    site.routes.set('/sitemap.xml', (_req, res) => {
      const urls = [
        ...sitemapPages.map((p) => `${site.url}/docs/${p}.html`),
        `${site.url}/docs/private.html`,
        'http://10.0.0.7/docs/internal.html',
      ];
      res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(`<?xml version="1.0"?><urlset>${urls.map((u) => `<url><loc>${u}</loc></url>`).join('')}</urlset>`);
    });
    // A crawled guide: index → one, two; one → three; links off the site and to the metadata address.
    site.routes.set('/guide/index.html', {
      body: page('Guide', 'Start here.', [
        'one.html',
        '/guide/two.html#part',
        'http://169.254.169.254/latest/meta-data',
        '/blog/post.html',
        'https://example.com/',
      ]),
      type: 'text/html',
    });
    site.routes.set('/guide/one.html', { body: page('One', 'Step one.', ['three.html']), type: 'text/html' });
    site.routes.set('/guide/two.html', { body: page('Two', 'Step two.'), type: 'text/html' });
    site.routes.set('/guide/three.html', { body: page('Three', 'Step three.'), type: 'text/html' });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-site-'));
    database = await target.createDatabase();
    const config = loadConfig({
      ...NO_BACKGROUND_EXTRACTION,
      NODE_ENV: 'test',
      ...database.env,
      CAIRN_EMBEDDING_PROVIDER: 'hashing',
      CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
      CAIRN_SOURCES_CACHE_DIR: root,
      CAIRN_SOURCES_TICK_MS: '0',
      CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    });
    s = await createServices(config, silentLogger(), { embedder: new HashingEmbeddingProvider({ dimensions: 64 }) });
  });
  afterAll(async () => {
    await s?.close();
    await database?.drop();
    await site?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('follows its sitemap, obeys robots.txt, skips private links, and re-fetches with ETags', async () => {
    const source = await s.sources.create({
      name: 'docs site',
      kind: 'SITE',
      url: `${site.url}/docs/`,
      sitemapUrl: `${site.url}/sitemap.xml`,
      delayMs: 0,
    });
    await s.sources.sync(source.id, { async: false });
    let after = await s.sources.byIdOrNameOrFail(source.id);
    expect(after.lastError).toBeNull();
    expect(after.counts).toEqual({ added: 3, updated: 0, removed: 0, unchanged: 0, skipped: 2 });
    expect(await owned(s, source.id)).toEqual(['/docs/a.html', '/docs/b.html', '/docs/keep.html']);
    expect(site.hits.get('/docs/private.html')).toBeUndefined();

    texts.b = 'Beta page, second edition.';
    sitemapPages = ['b', 'keep', 'c'];
    site.routes.delete('/docs/a.html');
    const before304 = counter.notModified;
    await s.sources.sync(source.id, { async: false });
    after = await s.sources.byIdOrNameOrFail(source.id);
    expect(after.counts).toEqual({ added: 1, updated: 1, removed: 1, unchanged: 1, skipped: 2 });
    expect(counter.notModified - before304).toBe(1);
    expect(await owned(s, source.id)).toEqual(['/docs/b.html', '/docs/c.html', '/docs/keep.html']);
    const [b] = await s.documents.findByIds([
      (await s.db.query<{ id: string }>("SELECT id FROM documents WHERE metadata->>'url' LIKE '%/docs/b.html'"))
        .rows[0]!.id,
    ]);
    expect(b?.content).toContain('second edition');
  });

  it('crawls same-origin links under its prefix up to the page limit, counting what it skips', async () => {
    const source = await s.sources.create({
      name: 'guide',
      kind: 'SITE',
      url: `${site.url}/guide/index.html`,
      maxPages: 3,
      concurrency: 2,
      delayMs: 0,
    });
    await s.sources.sync(source.id, { async: false });
    const after = await s.sources.byIdOrNameOrFail(source.id);
    expect(after.lastError).toBeNull();
    expect(after.counts).toMatchObject({ added: 3, skipped: 2 });
    expect(await owned(s, source.id)).toEqual(['/guide/index.html', '/guide/one.html', '/guide/two.html']);
    expect(site.hits.get('/blog/post.html')).toBeUndefined();
    const job = (await s.sources.jobs(source.id, 1))[0];
    expect(job?.warnings.join('\n')).toMatch(/169\.254\.169\.254.*blocked address/);
    expect(job?.warnings.join('\n')).toMatch(/three\.html: past the page limit of 3/);
  });

  it('re-imports an OpenAPI spec URL when it changed, removing vanished operations', async () => {
    const spec = (ops: string[]) =>
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'Pets', version: '1' },
        paths: Object.fromEntries(
          ops.map((op) => [
            `/${op}`,
            { get: { operationId: op, summary: `Get ${op}`, responses: { 200: { description: 'ok' } } } },
          ]),
        ),
      });
    let body = spec(['listPets', 'getPet']);
    site.routes.set('/specs/pets.json', (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(body),
    );
    const source = await s.sources.create({ name: 'pets api', kind: 'OPENAPI', url: `${site.url}/specs/pets.json` });
    await s.sources.sync(source.id, { async: false });
    let after = await s.sources.byIdOrNameOrFail(source.id);
    expect(after.lastError).toBeNull();
    expect(after.counts).toMatchObject({ added: 3, updated: 0, removed: 0 });
    const ids = async () =>
      (
        await s.db.query<{ id: string }>('SELECT id FROM documents WHERE source_id = $1 ORDER BY id', [source.id])
      ).rows.map((r) => r.id);
    const first = await ids();
    expect(first.filter((id) => /getpet|listpets/i.test(id))).toHaveLength(2);

    await s.sources.sync(source.id, { async: false });
    after = await s.sources.byIdOrNameOrFail(source.id);
    expect(after.counts).toEqual({ added: 0, updated: 0, removed: 0, unchanged: 3, skipped: 0 });

    body = spec(['listPets', 'createPet']);
    await s.sources.sync(source.id, { async: false });
    after = await s.sources.byIdOrNameOrFail(source.id);
    expect(after.counts).toMatchObject({ added: 1, removed: 1 });
    const now = await ids();
    expect(now.some((id) => /getpet/i.test(id))).toBe(false);
    expect(now.some((id) => /createpet/i.test(id))).toBe(true);
    expect(now).toHaveLength(3);
  });

  it('a sync past its timeout fails with TIMEOUT, keeps the pages it finished, and the next sync does the rest', async () => {
    let hold = true;
    let reachedSlow!: () => void;
    const slowReached = new Promise<void>((resolve) => (reachedSlow = resolve));
    site.routes.set('/slow/one.html', { body: page('One', 'First slow page.'), type: 'text/html' });
    site.routes.set('/slow/two.html', (_req, res) => {
      if (!hold) return void res.writeHead(200, { 'content-type': 'text/html' }).end(page('Two', 'Second slow page.'));
      reachedSlow(); // held until the client gives up
    });
    site.routes.set('/slow-sitemap.xml', {
      body: `<urlset><url><loc>${site.url}/slow/one.html</loc></url><url><loc>${site.url}/slow/two.html</loc></url></urlset>`,
      type: 'application/xml',
    });
    // A service whose deadline the test fires itself once the second page is being fetched: no sleeping.
    const deadline = new AbortController();
    const serviceWith = (deadlines: { deadline?: () => { signal: AbortSignal; dispose(): void } }) =>
      new SourceService({
        db: s.db,
        documents: s.documents,
        graph: s.graph,
        imports: s.imports,
        runtime: {
          fetcher: createSafeFetcherForTest(),
          importConfig: s.config.import,
          cacheDir: root,
          folderRoot: undefined,
          logger: silentLogger(),
        },
        limits: s.config,
        logger: silentLogger(),
        tickMs: 0,
        ...deadlines,
      });
    const timed = serviceWith({ deadline: () => ({ signal: deadline.signal, dispose: () => undefined }) });
    const source = await timed.create({
      name: 'slow site',
      kind: 'SITE',
      url: `${site.url}/slow/`,
      sitemapUrl: `${site.url}/slow-sitemap.xml`,
      concurrency: 1,
      delayMs: 0,
      syncTimeoutSeconds: 5,
    });
    const running = timed.sync(source.id, { async: false });
    await slowReached;
    deadline.abort();
    expect((await running).status).toBe('FAILED');
    const failed = await timed.byIdOrNameOrFail(source.id);
    expect(failed.status).toBe('FAILED');
    expect(failed.lastErrorCode).toBe('TIMEOUT');
    expect(failed.lastError).toMatch(/passed its timeout of 5 s/);
    expect(await owned(s, source.id)).toEqual(['/slow/one.html']);

    hold = false;
    const normal = serviceWith({}); // runs syncs from now on, with a real timer
    await normal.sync(source.id, { async: false });
    const after = await normal.byIdOrNameOrFail(source.id);
    expect(after.status).toBe('SUCCEEDED');
    expect(after.counts).toMatchObject({ added: 1, unchanged: 1 });
    expect(await owned(s, source.id)).toEqual(['/slow/one.html', '/slow/two.html']);
  });
});
