import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { edgeTarget, type ScratchDatabase } from '../helpers/databases.js';
import { NO_BACKGROUND_EXTRACTION } from '../helpers/backgroundWork.js';
import { failureOf } from '../helpers/failureOf.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixtureSite.js';

// What createSource and updateSource refuse up front, on PGlite: repositories git would reach by other transports or
// on this machine, URLs at blocked addresses, and schedules that never fire.

/** Host names the tests control: docs.test answers with whatever `addresses` holds at the time. */
const addresses: Record<string, string> = { 'docs.test': '93.184.215.14', 'private.test': '10.1.2.3' };
const resolve = async (host: string) => {
  const address = addresses[host];
  if (!address) throw Object.assign(new Error(`no such host ${host}`), { code: 'ENOTFOUND' });
  return [{ address, family: 4 as const }];
};

let s: Services;
let database: ScratchDatabase | undefined;
let root: string;
let site: FixtureSite;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-source-validation-'));
  site = await startFixtureSite({
    '/docs/': { body: '<html><body><main><p>Docs</p></main></body></html>', type: 'text/html' },
  });
  // Validation does not depend on the store: one migrated database (an in-memory one would run every migration).
  database = await edgeTarget().createDatabase();
  const config = loadConfig({
    ...NO_BACKGROUND_EXTRACTION,
    NODE_ENV: 'test',
    ...database.env,
    CAIRN_EMBEDDING_PROVIDER: 'hashing',
    CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
    CAIRN_SOURCES_CACHE_DIR: path.join(root, '.cache'),
    CAIRN_SOURCES_TICK_MS: '0',
    CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: `127.0.0.1:${new URL(site.url).port}`,
  });
  s = await createServices(config, silentLogger(), {
    embedder: new HashingEmbeddingProvider({ dimensions: 64 }),
    resolve,
  });
});
afterAll(async () => {
  await s?.close();
  await database?.drop();
  await site?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('GIT sources: only https and ssh remotes', () => {
  const refused = [
    'ext::ssh%S-oProxyCommand=id',
    'fd::3',
    'foo::bar',
    '/srv/git/docs.git',
    './docs',
    '../docs.git',
    '~/docs.git',
    'file:///srv/git/docs.git',
  ];

  it.each(refused)('refuses %s at creation, saying what is allowed', async (url) => {
    const err = await failureOf(s.sources.create({ name: 'repo', kind: 'GIT', url }));
    expect(err.code).toBe('BAD_USER_INPUT');
    expect(err.message).toMatch(/^input\.url: /);
    expect(err.message).toContain("a source's repository must be an https:// URL or an ssh remote");
    expect(err.message).not.toMatch(/deploy key/);
  });

  it('says why: a remote helper runs commands, a path is read on this server', async () => {
    const ext = await failureOf(s.sources.create({ name: 'repo', kind: 'GIT', url: 'ext::sh%S-c%Sid' }));
    expect(ext.message).toContain('"ext::" selects git\'s remote helper "ext"');
    const local = await failureOf(s.sources.create({ name: 'repo', kind: 'GIT', url: '/srv/git/docs.git' }));
    expect(local.message).toContain('is a path on this server, which GIT sources do not read');
    expect(local.message).toContain('FOLDER source');
  });

  it('refuses them when a source is changed, and keeps the stored URL', async () => {
    const source = await s.sources.create({ name: 'docs-repo', kind: 'GIT', url: 'https://docs.test/acme/docs.git' });
    const err = await failureOf(s.sources.update(source.id, { url: 'ext::nc%Sevil.example%S22' }));
    expect(err).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect((await s.sources.byIdOrNameOrFail(source.id)).config).toMatchObject({
      url: 'https://docs.test/acme/docs.git',
    });
    await s.sources.delete(source.id, false);
  });
});

describe('SITE and OPENAPI sources at blocked addresses', () => {
  it('refuses them at creation, naming the URL given and how to allow it', async () => {
    const cases = [
      { kind: 'SITE' as const, url: 'http://10.0.0.7/docs/' },
      { kind: 'SITE' as const, url: 'http://private.test/docs/' },
      { kind: 'OPENAPI' as const, url: 'http://169.254.169.254/openapi.json' },
      { kind: 'SITE' as const, url: `http://127.0.0.1:1/docs/` },
    ];
    for (const { kind, url } of cases) {
      const err = await failureOf(s.sources.create({ name: 'blocked', kind, url }));
      expect(err.code).toBe('IMPORT_FETCH_BLOCKED');
      expect(err.message).toMatch(new RegExp(`^input\\.url: fetch of ${url.replace(/[.?*+/]/g, '\\$&')} blocked: `));
      expect(err.message).toContain('CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS');
      expect(err.message).not.toContain('robots.txt');
    }
    const sitemap = await failureOf(
      s.sources.create({
        name: 'blocked',
        kind: 'SITE',
        url: `${site.url}/docs/`,
        sitemapUrl: 'http://10.0.0.7/s.xml',
      }),
    );
    expect(sitemap.message).toMatch(/^input\.sitemapUrl: fetch of http:\/\/10\.0\.0\.7\/s\.xml blocked/);
    expect(await s.sources.list()).toEqual([]);
  });

  it('accepts an allow-listed host, and a name that does not resolve yet', async () => {
    const local = await s.sources.create({ name: 'local', kind: 'SITE', url: `${site.url}/docs/` });
    const later = await s.sources.create({ name: 'later', kind: 'OPENAPI', url: 'https://not-yet.test/openapi.json' });
    await s.sources.delete(local.id, false);
    await s.sources.delete(later.id, false);
  });

  it('refuses a change to a blocked address', async () => {
    const source = await s.sources.create({ name: 'spec', kind: 'OPENAPI', url: 'https://docs.test/openapi.json' });
    const err = await failureOf(s.sources.update(source.id, { url: 'http://10.0.0.7/openapi.json' }));
    expect(err.code).toBe('IMPORT_FETCH_BLOCKED');
    expect((await s.sources.byIdOrNameOrFail(source.id)).config).toMatchObject({
      url: 'https://docs.test/openapi.json',
    });
    await s.sources.delete(source.id, false);
  });

  it('names the start page, not /robots.txt, when the site turned out blocked at sync', async () => {
    const source = await s.sources.create({ name: 'moved', kind: 'SITE', url: 'http://docs.test/guide/' });
    addresses['docs.test'] = '10.9.8.7'; // the name now points inside the network
    try {
      const job = await s.sources.sync(source.id, { async: false });
      expect(job.status).toBe('FAILED');
      const after = await s.sources.byIdOrNameOrFail(source.id);
      expect(after.lastErrorCode).toBe('IMPORT_FETCH_BLOCKED');
      expect(after.lastError).toContain('http://docs.test/guide/');
      expect(after.lastError).not.toContain('robots.txt');
    } finally {
      addresses['docs.test'] = '93.184.215.14';
      await s.sources.delete(source.id, false);
    }
  });
});

describe('schedules', () => {
  it.each(['0 0 31 2 *', '0 0 30 2 *', '0 12 31 4,6,9,11 *'])(
    'refuses "%s", which never fires, at creation and on change',
    async (schedule) => {
      const err = await failureOf(
        s.sources.create({ name: 'never', kind: 'OPENAPI', url: 'https://docs.test/a.json', schedule }),
      );
      expect(err.code).toBe('BAD_USER_INPUT');
      expect(err.message).toContain(`input.schedule: "${schedule}" never fires`);
      const source = await s.sources.create({ name: 'manual', kind: 'OPENAPI', url: 'https://docs.test/a.json' });
      const change = await failureOf(s.sources.update(source.id, { schedule }));
      expect(change.message).toContain('never fires');
      await s.sources.delete(source.id, false);
    },
  );

  it('accepts a schedule that fires rarely', async () => {
    const source = await s.sources.create({
      name: 'leap',
      kind: 'OPENAPI',
      url: 'https://docs.test/a.json',
      schedule: '0 0 29 2 *',
    });
    expect(source.nextRunAt).not.toBeNull();
    await s.sources.delete(source.id, false);
  });
});
