import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { dbTargets, edgeTarget, type ScratchDatabase } from '../helpers/databases.js';
import { failureOf } from '../helpers/failureOf.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/gitHttpServer.js';
import { NO_BACKGROUND_EXTRACTION } from '../helpers/backgroundWork.js';

/** Services over the store `databaseEnv` reaches, FOLDER sources allowed under `folderRoot`. */
async function services(
  folderRoot: string,
  clock: { now: Date },
  env: Record<string, string>,
  databaseEnv: Record<string, string>,
  resolve?: (host: string) => Promise<{ address: string; family: 4 | 6 }[]>,
): Promise<Services> {
  const config = loadConfig({
    ...NO_BACKGROUND_EXTRACTION,
    NODE_ENV: 'test',
    ...databaseEnv,
    CAIRN_EMBEDDING_PROVIDER: 'hashing',
    CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
    CAIRN_SOURCES_FOLDER_ROOT: folderRoot,
    CAIRN_SOURCES_CACHE_DIR: path.join(folderRoot, '.cache'),
    CAIRN_SOURCES_TICK_MS: '0',
    ...env,
  });
  return createServices(config, silentLogger(), {
    embedder: new HashingEmbeddingProvider({ dimensions: 64 }),
    now: () => clock.now,
    ...(resolve ? { resolve } : {}),
  });
}

function write(dir: string, files: Record<string, string | null>): void {
  for (const [file, content] of Object.entries(files)) {
    const full = path.join(dir, file);
    if (content === null) fs.rmSync(full);
    else {
      fs.mkdirSync(path.dirname(full), { recursive: true });
      fs.writeFileSync(full, content);
    }
  }
}

async function ownedDocuments(s: Services, sourceId: string): Promise<Record<string, string>> {
  const { rows } = await s.db.query<{ id: string; content: string }>(
    'SELECT id, content FROM documents WHERE source_id = $1 ORDER BY id',
    [sourceId],
  );
  return Object.fromEntries(rows.map((r) => [r.id, r.content]));
}

describe.each(dbTargets())('FOLDER sources ($name)', (target) => {
  let root: string;
  let s: Services;
  let database: ScratchDatabase;
  const clock = { now: new Date('2026-03-02T10:02:00Z') };
  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-sources-'));
    database = await target.createDatabase();
    s = await services(root, clock, {}, database.env);
  });
  afterAll(async () => {
    await s?.close();
    await database?.drop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('adds, updates and removes exactly the files that changed between syncs', async () => {
    const dir = path.join(root, 'handbook');
    write(dir, {
      'intro.md': '# Intro\n\nWelcome to the handbook.',
      'ops/oncall.md': '# On call\n\nPage the owner.',
      'notes.txt': 'plain notes',
    });
    const source = await s.sources.create({ name: 'handbook', kind: 'FOLDER', path: 'handbook', tags: ['team'] });
    const first = await s.sources.sync(source.id, { async: false });
    expect(first.status).toBe('SUCCEEDED');
    let after = await s.sources.byIdOrNameOrFail('handbook');
    expect(after.status).toBe('SUCCEEDED');
    expect(after.counts).toEqual({ added: 3, updated: 0, removed: 0, unchanged: 0, skipped: 0 });
    const docs = await ownedDocuments(s, source.id);
    expect(Object.keys(docs)).toEqual([
      'file:handbook/intro.md',
      'file:handbook/notes.txt',
      'file:handbook/ops/oncall.md',
    ]);
    const [intro] = await s.documents.findByIds(['file:handbook/intro.md']);
    expect(intro?.tags).toEqual(['team']);

    write(dir, {
      'intro.md': '# Intro\n\nWelcome to the new handbook.',
      'notes.txt': null,
      'faq.md': '# FAQ\n\nAsk away.',
    });
    await s.sources.sync(source.id, { async: false });
    after = await s.sources.byIdOrNameOrFail(source.id);
    expect(after.counts).toEqual({ added: 1, updated: 1, removed: 1, unchanged: 1, skipped: 0 });
    const now = await ownedDocuments(s, source.id);
    expect(Object.keys(now)).toEqual(['file:handbook/faq.md', 'file:handbook/intro.md', 'file:handbook/ops/oncall.md']);
    expect(now['file:handbook/intro.md']).toContain('new handbook');

    const unchanged = await s.sources.sync(source.id, { async: false });
    expect(unchanged.status).toBe('SUCCEEDED');
    expect((await s.sources.byIdOrNameOrFail(source.id)).counts).toEqual({
      added: 0,
      updated: 0,
      removed: 0,
      unchanged: 3,
      skipped: 0,
    });

    // A synced document deleted by hand comes back with the next sync, though its file did not change.
    await s.documents.delete('file:handbook/faq.md');
    await s.sources.sync(source.id, { async: false });
    expect((await s.sources.byIdOrNameOrFail(source.id)).counts).toEqual({
      added: 1,
      updated: 0,
      removed: 0,
      unchanged: 2,
      skipped: 0,
    });
    expect(Object.keys(await ownedDocuments(s, source.id))).toContain('file:handbook/faq.md');
    expect((await s.sources.jobs(source.id, 10)).map((j) => j.kind)).toEqual(['source', 'source', 'source', 'source']);

    // Two "Sync now" at once start one sync: the second gets the first one's job.
    const [j1, j2] = await Promise.all([s.sources.sync(source.id), s.sources.sync(source.id)]);
    expect(j2.id).toBe(j1.id);
    expect((await s.imports.waitFor(j1.id)).status).toBe('SUCCEEDED');
    expect(await s.sources.jobs(source.id, 10)).toHaveLength(5);
  });

  it('counts the files no importer reads and names them, by reason, in the sync job warnings', async () => {
    write(path.join(root, 'pictures'), {
      'guide.md': '# Guide\n\nRead me.',
      'logo.png': 'png',
      'img/arch.svg': '<svg/>',
      'flow.drawio': '<mxfile/>',
      '.hidden.png': 'never content',
      'node_modules/dep.png': 'never content',
    });
    const source = await s.sources.create({ name: 'pictures', kind: 'FOLDER', path: 'pictures' });
    const job = await s.sources.sync(source.id, { async: false });
    expect(job.status).toBe('SUCCEEDED');
    expect((await s.sources.byIdOrNameOrFail(source.id)).counts).toEqual({
      added: 1,
      updated: 0,
      removed: 0,
      unchanged: 0,
      skipped: 3,
    });
    expect(job.warnings).toEqual([
      'skipped 1 file: flow.drawio (no importer reads diagram files; describe the diagram in a markdown file)',
      'skipped 2 files: img/arch.svg, logo.png (Cairn imports text, not images)',
    ]);
  });

  it('refuses a folder outside CAIRN_SOURCES_FOLDER_ROOT', async () => {
    const err = await failureOf(s.sources.create({ name: 'etc', kind: 'FOLDER', path: '../../etc' }));
    expect(err).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect((err as Error).message).toMatch(/outside .*CAIRN_SOURCES_FOLDER_ROOT/);
  });

  it('never overwrites a document made by hand: the item fails with CONFLICT and the rest syncs', async () => {
    const dir = path.join(root, 'clash');
    write(dir, { 'mine.md': '# Mine\n\nfrom the folder', 'other.md': '# Other\n\nfrom the folder' });
    await s.documents.create({
      id: 'file:clash/mine.md',
      title: 'Hand made',
      content: 'typed by a person',
      documentType: 'other',
      source: null,
      tags: [],
      metadata: {},
      expiresAt: null,
    });
    const source = await s.sources.create({ name: 'clash', kind: 'FOLDER', path: 'clash' });
    await s.sources.sync(source.id, { async: false });
    const after = await s.sources.byIdOrNameOrFail(source.id);
    expect(after.status).toBe('PARTIAL');
    expect(after.lastErrorCode).toBe('CONFLICT');
    expect(after.lastError).toMatch(/mine\.md.*made by hand/);
    const [hand] = await s.documents.findByIds(['file:clash/mine.md']);
    expect(hand?.content).toBe('typed by a person');
    expect(Object.keys(await ownedDocuments(s, source.id))).toEqual(['file:clash/other.md']);

    // A second source over the same folder may not take the first one's documents either.
    const twin = await s.sources.create({ name: 'clash twin', kind: 'FOLDER', path: 'clash' });
    await s.sources.sync(twin.id, { async: false });
    const twinAfter = await s.sources.byIdOrNameOrFail(twin.id);
    expect(twinAfter.status).toBe('FAILED');
    expect(twinAfter.lastError).toMatch(/belongs to another source/);
    expect(Object.keys(await ownedDocuments(s, source.id))).toEqual(['file:clash/other.md']);
  });

  it('removes a source with its documents, or keeps them detached', async () => {
    write(path.join(root, 'keep'), { 'a.md': '# A\n\nkept' });
    write(path.join(root, 'drop'), { 'b.md': '# B\n\ndropped' });
    const keep = await s.sources.create({ name: 'keep', kind: 'FOLDER', path: 'keep' });
    const drop = await s.sources.create({ name: 'drop', kind: 'FOLDER', path: 'drop' });
    await s.sources.sync(keep.id, { async: false });
    await s.sources.sync(drop.id, { async: false });
    expect(await s.sources.delete(keep.id, true)).toMatchObject({ documentsKept: 1, documentsRemoved: 0 });
    expect(await s.sources.delete(drop.id, false)).toMatchObject({ documentsKept: 0, documentsRemoved: 1 });
    const left = await s.db.query<{ id: string; source_id: string | null }>(
      "SELECT id, source_id FROM documents WHERE id IN ('file:keep/a.md', 'file:drop/b.md')",
    );
    expect(left.rows).toEqual([{ id: 'file:keep/a.md', source_id: null }]);
    expect(await s.sources.byId(keep.id)).toBeUndefined();
  });

  it('fires a schedule on time by the injected clock, and a changed schedule takes effect at once', async () => {
    write(path.join(root, 'timed'), { 'a.md': '# Timed\n\nfirst' });
    clock.now = new Date('2026-03-02T10:02:00Z');
    const source = await s.sources.create({ name: 'timed', kind: 'FOLDER', path: 'timed', schedule: '*/15 * * * *' });
    expect(source.nextRunAt?.toISOString()).toBe('2026-03-02T10:15:00.000Z');
    clock.now = new Date('2026-03-02T10:14:59Z');
    expect(await s.sources.tick()).toEqual([]);
    clock.now = new Date('2026-03-02T10:15:00Z');
    const [job] = await s.sources.tick();
    expect(job).toBeDefined();
    expect((await s.imports.waitFor(job!.id)).status).toBe('SUCCEEDED');
    const after = await s.sources.byIdOrNameOrFail(source.id);
    expect(after.lastRunAt?.toISOString()).toBe('2026-03-02T10:15:00.000Z');
    expect(after.nextRunAt?.toISOString()).toBe('2026-03-02T10:30:00.000Z');
    expect(await s.sources.tick()).toEqual([]);

    const hourly = await s.sources.update(source.id, { schedule: '@hourly' });
    expect(hourly.nextRunAt?.toISOString()).toBe('2026-03-02T11:00:00.000Z');
    const manual = await s.sources.update(source.id, { schedule: null });
    expect(manual.nextRunAt).toBeNull();
    const bad = await failureOf(s.sources.update(source.id, { schedule: '61 * * * *' }));
    expect(bad).toMatchObject({ code: 'BAD_USER_INPUT' });
  });
});

describe('GIT sources over a real git HTTP server', () => {
  let root: string;
  let database: ScratchDatabase | undefined;
  let s: Services;
  let repo: GitHttpServer;
  const clock = { now: new Date('2026-03-02T10:00:00Z') };
  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-sources-'));
    repo = await startGitHttpServer('runbooks');
    // docs.invalid resolves only through the injected resolver: git reaches it only if pinned to the checked address.
    const names: Record<string, string> = { 'docs.invalid': '127.0.0.1', 'metadata.invalid': '169.254.169.254' };
    const resolve = async (host: string) =>
      names[host]
        ? [{ address: names[host] as string, family: 4 as const }]
        : Promise.reject(new Error(`ENOTFOUND ${host}`));
    // What git fetches does not depend on the store: one database.
    database = await edgeTarget().createDatabase();
    const allow = { CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: '127.0.0.1,docs.invalid' };
    s = await services(root, clock, allow, database.env, resolve);
  });
  afterAll(async () => {
    await s?.close();
    await database?.drop();
    await repo?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('imports only changed files of the include globs and removes the documents of deleted files', async () => {
    const c1 = repo.commit({
      'docs/a.md': '# A\n\nalpha',
      'docs/deep/b.md': '# B\n\nbeta',
      'docs/skip.md': '# Skip\n\nno',
      'src/code.md': '# Code\n\nnot docs',
    });
    const source = await s.sources.create({
      name: 'runbooks',
      kind: 'GIT',
      url: repo.url,
      branch: 'main',
      include: ['docs/**/*.md'],
      exclude: ['docs/skip.md'],
    });
    expect((await s.sources.sync(source.id, { async: false })).status).toBe('SUCCEEDED');
    let after = await s.sources.byIdOrNameOrFail(source.id);
    expect(after.lastError).toBeNull();
    expect(after.counts).toMatchObject({ added: 2, updated: 0, removed: 0, unchanged: 0 });
    expect(after.state).toEqual({ commit: c1 });
    const prefix = `git:127.0.0.1:${new URL(repo.url).port}/runbooks`;
    expect(Object.keys(await ownedDocuments(s, source.id))).toEqual([
      `${prefix}/docs/a.md`,
      `${prefix}/docs/deep/b.md`,
    ]);
    const [a] = await s.documents.findByIds([`${prefix}/docs/a.md`]);
    expect(a?.metadata).toMatchObject({ commit: c1, path: 'docs/a.md', repository: repo.url });

    const c2 = repo.commit({
      'docs/a.md': '# A\n\nalpha two',
      'docs/deep/b.md': null,
      'docs/c.md': '# C\n\ngamma',
      'src/code.md': '# Code\n\nchanged',
    });
    await s.sources.sync(source.id, { async: false });
    after = await s.sources.byIdOrNameOrFail(source.id);
    expect(after.counts).toMatchObject({ added: 1, updated: 1, removed: 1, unchanged: 0 });
    expect(after.state).toEqual({ commit: c2 });
    const docs = await ownedDocuments(s, source.id);
    expect(Object.keys(docs)).toEqual([`${prefix}/docs/a.md`, `${prefix}/docs/c.md`]);
    expect(docs[`${prefix}/docs/a.md`]).toContain('alpha two');
    const [a2] = await s.documents.findByIds([`${prefix}/docs/a.md`]);
    expect(a2?.metadata).toMatchObject({ commit: c2 });
  });

  it('fetches a named host at the address it checked (git is pinned to it)', async () => {
    const url = repo.url.replace('127.0.0.1', 'docs.invalid');
    const source = await s.sources.create({ name: 'pinned', kind: 'GIT', url, include: ['docs/**'] });
    expect((await s.sources.sync(source.id, { async: false })).status).toBe('SUCCEEDED');
    const after = await s.sources.byIdOrNameOrFail(source.id);
    expect(after.lastError).toBeNull();
    expect(Object.keys(await ownedDocuments(s, source.id))).toEqual([
      `git:docs.invalid:${new URL(repo.url).port}/runbooks/docs/a.md`,
      `git:docs.invalid:${new URL(repo.url).port}/runbooks/docs/c.md`,
      `git:docs.invalid:${new URL(repo.url).port}/runbooks/docs/skip.md`,
    ]);
  });

  it('refuses a repository on a blocked address', async () => {
    const err = await failureOf(
      s.sources.create({ name: 'metadata', kind: 'GIT', url: 'http://169.254.169.254/repo.git' }),
    );
    expect(err).toMatchObject({ code: 'IMPORT_FETCH_BLOCKED' });
    const err2 = await failureOf(s.sources.create({ name: 'private', kind: 'GIT', url: 'https://10.1.2.3/repo.git' }));
    expect(err2).toMatchObject({ code: 'IMPORT_FETCH_BLOCKED' });
    // A name that resolves to a blocked address is refused as its address would be.
    const err3 = await failureOf(
      s.sources.create({ name: 'named', kind: 'GIT', url: 'https://metadata.invalid/repo.git' }),
    );
    expect(err3).toMatchObject({ code: 'IMPORT_FETCH_BLOCKED' });
    expect(err3.message).toMatch(/cloud metadata|169\.254\.169\.254/);
  });

  it('records a failed fetch (no such branch) and changes nothing', async () => {
    const source = await s.sources.create({ name: 'nobranch', kind: 'GIT', url: repo.url, branch: 'release' });
    const job = await s.sources.sync(source.id, { async: false });
    expect(job.status).toBe('FAILED');
    const after = await s.sources.byIdOrNameOrFail(source.id);
    expect(after.status).toBe('FAILED');
    expect(after.lastErrorCode).toBe('NOT_FOUND');
    expect(after.lastError).toMatch(/no branch "release"/);
  });

  it('counts the files of its globs no importer reads and names them in the sync job warnings', async () => {
    repo.commit({
      'assets/guide.md': '# Guide\n\nassets',
      'assets/logo.png': 'png',
      'assets/.keep': '',
      'elsewhere/photo.png': 'png',
    });
    const source = await s.sources.create({ name: 'assets', kind: 'GIT', url: repo.url, include: ['assets/**'] });
    const job = await s.sources.sync(source.id, { async: false });
    expect(job.status).toBe('SUCCEEDED');
    expect((await s.sources.byIdOrNameOrFail(source.id)).counts).toMatchObject({ added: 1, skipped: 1 });
    expect(job.warnings).toEqual(['skipped 1 file: assets/logo.png (Cairn imports text, not images)']);
  });
});
