import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import { openDb } from '../../src/db/openDb.js';
import { openPgliteDb } from '../../src/db/pgliteDb.js';
import { AppError, ErrorCode } from '../../src/errors.js';
import { runCli, startCliServer } from '../helpers/cli.js';
import { gqlAt, stopChild } from '../helpers/remoteServer.js';

// One process per PGlite folder: a second open (in this process or another, e.g. the CLI beside `cairn serve`) is
// refused before it can touch the files, because two PGlite instances on one folder lose acknowledged writes.

const STACK_LINE = /^\s+at /m;

describe('PGlite data folder lock (in process)', () => {
  let root: string;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-pglock-'));
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('refuses a second open while the first is open, and reopens after close, again and again', async () => {
    const dir = path.join(root, 'pglite');
    const first = await openPgliteDb(dir);
    await first.exec('CREATE TABLE notes (id int PRIMARY KEY)');
    await first.query('INSERT INTO notes VALUES (1)');

    const refused = await openPgliteDb(dir).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe(ErrorCode.DATABASE_UNAVAILABLE);
    expect((refused as AppError).message).toContain(dir);
    expect((refused as AppError).message).toContain(`pid ${process.pid}`);
    // The holder is untouched by the refusal.
    expect((await first.query<{ n: number }>('SELECT count(*)::int AS n FROM notes')).rows[0]?.n).toBe(1);
    await first.close();
    expect(fs.existsSync(`${dir}.lock`)).toBe(false);

    for (let i = 2; i <= 4; i++) {
      const db = await openPgliteDb(dir);
      await db.query('INSERT INTO notes VALUES ($1)', [i]);
      await db.close();
      await db.close(); // a second close is harmless
    }
    const last = await openPgliteDb(dir);
    expect((await last.query<{ n: number }>('SELECT count(*)::int AS n FROM notes')).rows[0]?.n).toBe(4);
    await last.close();
    expect(fs.readdirSync(root)).toEqual(['pglite']);
  });

  it('takes no lock in memory: many in-memory databases open side by side', async () => {
    const dbs = await Promise.all([openPgliteDb(undefined), openDb(loadConfig({ CAIRN_DATA_DIR: 'memory://' })), openDb(loadConfig({ CAIRN_DATA_DIR: 'memory://' }))]);
    for (const db of dbs) expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    await Promise.all(dbs.map((db) => db.close()));
  });
});

describe('cairn CLI beside a running `cairn serve` on the same data folder', () => {
  let dataDir: string;
  let folder: string;
  const env = () => ({ CAIRN_DATA_DIR: dataDir, CAIRN_EMBEDDING_PROVIDER: 'hashing', CAIRN_RATE_LIMIT_PER_SECOND: '0' });
  const create = (url: string, id: string) =>
    gqlAt(url, `mutation($input: CreateDocumentInput!) { createDocument(input: $input) { document { id } } }`, { input: { id, title: id, content: `The ${id} note.` } });
  const state = async (url: string) => {
    const res = await gqlAt<{ documents: { nodes: { id: string }[] }; apiKeys: { id: string }[] }>(url, '{ documents(first: 50) { nodes { id } } apiKeys { id } }');
    expect(res.errors).toBeUndefined();
    return { docs: res.data!.documents.nodes.map((d) => d.id).sort(), keys: res.data!.apiKeys.length };
  };

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-pglock-cli-'));
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-pglock-docs-'));
    fs.writeFileSync(path.join(folder, 'guide.md'), '# Guide\n\nImported while the server ran: must not happen.');
  });
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('refuses with a clear message and writes nothing; every acknowledged write survives a restart', async () => {
    const server = await startCliServer(env());
    try {
      expect((await create(server.url, 'before')).errors).toBeUndefined();
      const pglite = path.join(dataDir, 'pglite');
      for (const args of [
        ['keys', 'create', '--role', 'admin', '--name', 'x'],
        ['import', 'dir', folder],
        ['stats'],
        ['migrate'],
      ]) {
        const res = await runCli(args, env());
        expect({ args, code: res.code }).toEqual({ args, code: 1 });
        expect(res.stdout).toBe('');
        expect(res.stderr).toContain('DATABASE_UNAVAILABLE');
        expect(res.stderr).toContain(pglite);
        expect(res.stderr).toContain(`pid ${server.child.pid}`);
        expect(res.stderr).toContain('createApiKey');
        expect(res.stderr).toMatch(/stop that process first/i);
        expect(res.stderr).not.toMatch(STACK_LINE);
      }
      // The server was not disturbed: it still writes, and the CLI left no key (auth is still off) and no document.
      expect((await create(server.url, 'after')).errors).toBeUndefined();
      expect(await state(server.url)).toEqual({ docs: ['after', 'before'], keys: 0 });
    } finally {
      await stopChild(server.child, 'SIGTERM');
    }
    expect(server.child.exitCode).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'pglite.lock'))).toBe(false);

    const again = await startCliServer(env());
    try {
      expect(await state(again.url)).toEqual({ docs: ['after', 'before'], keys: 0 });
    } finally {
      // Killed: its lock stays behind, owned by a dead pid.
      await stopChild(again.child, 'SIGKILL');
    }
    expect(fs.existsSync(path.join(dataDir, 'pglite.lock'))).toBe(true);

    // With no server running the CLI works at once, the dead server's lock notwithstanding.
    const keys = await runCli(['keys', 'list', '--json'], env());
    expect(keys.stderr).toBe('');
    expect(keys.code).toBe(0);
    expect(JSON.parse(keys.stdout)).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, 'pglite.lock'))).toBe(false);
  }, 180_000);
});
