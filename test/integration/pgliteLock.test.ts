import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import { openDb } from '../../src/db/openDb.js';
import { openPgliteDb } from '../../src/db/pgliteDb.js';
import { AppError, ErrorCode } from '../../src/errors.js';
import { projectPath } from '../../src/paths.js';
import { runCliInProcess, startCliServer } from '../helpers/cli.js';
import { gqlAs } from '../helpers/auth.js';
import { scratchPglite, type ScratchDatabase } from '../helpers/databases.js';
import { stopChild } from '../helpers/remoteServer.js';
import { ensurePgliteTemplate } from '../helpers/templates.js';

// One process per PGlite folder: a second open (in this process or another, e.g. the CLI beside `cairn serve`) is
// refused before it can touch the files, because two PGlite instances on one folder lose acknowledged writes. The
// server runs as a child process; the CLI's commands run in this one (runCliInProcess), which is just as much another
// process to the server.

const STACK_LINE = /^\s+at /m;

describe('PGlite data folder lock (in process)', () => {
  let root: string;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-pglock-'));
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('refuses a second open while the first is open, and reopens after close, again and again', async () => {
    const dir = path.join(root, 'pglite');
    // A copy of the migrated template: initdb is not under test, and costs PGlite seconds of CPU.
    fs.cpSync(path.join(await ensurePgliteTemplate(), 'pglite'), dir, { recursive: true });
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

    for (let i = 2; i <= 3; i++) {
      const db = await openPgliteDb(dir);
      await db.query('INSERT INTO notes VALUES ($1)', [i]);
      await db.close();
      await db.close(); // a second close is harmless
    }
    const last = await openPgliteDb(dir);
    expect((await last.query<{ n: number }>('SELECT count(*)::int AS n FROM notes')).rows[0]?.n).toBe(3);
    await last.close();
    expect(fs.readdirSync(root)).toEqual(['pglite']);
    // Four PGlite start-ups are CPU-bound: a bound on a hang, not a measure of speed.
  }, 180_000);

  it('takes no lock in memory: many in-memory databases open side by side', async () => {
    const dbs = await Promise.all([
      openPgliteDb(undefined),
      openDb(loadConfig({ CAIRN_DATA_DIR: 'memory://' })),
      openDb(loadConfig({ CAIRN_DATA_DIR: 'memory://' })),
    ]);
    for (const db of dbs) expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    await Promise.all(dbs.map((db) => db.close()));
  });
});

describe('cairn CLI beside a running `cairn serve` on the same data folder', () => {
  let data: ScratchDatabase;
  let dataDir: string;
  let folder: string;
  const env = () => ({
    CAIRN_DATA_DIR: dataDir,
    CAIRN_EMBEDDING_PROVIDER: 'hashing',
    CAIRN_RATE_LIMIT_PER_SECOND: '0',
  });
  const create = (url: string, id: string, key?: string) =>
    gqlAs(url, key, `mutation($input: CreateDocumentInput!) { createDocument(input: $input) { document { id } } }`, {
      input: { id, title: id, content: `The ${id} note.` },
    });
  const state = async (url: string, key: string) => {
    const res = await gqlAs<{ documents: { nodes: { id: string }[] }; apiKeys: { role: string }[] }>(
      url,
      key,
      '{ documents(first: 100) { nodes { id } } apiKeys { role } }',
    );
    expect(res.body.errors).toBeUndefined();
    return {
      docs: res.body.data!.documents.nodes.map((d) => d.id).sort(),
      keys: res.body.data!.apiKeys.map((k) => k.role.toLowerCase()),
    };
  };

  beforeAll(async () => {
    data = await scratchPglite(); // a copy of the migrated template
    dataDir = data.env.CAIRN_DATA_DIR!;
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-pglock-docs-'));
    fs.writeFileSync(path.join(folder, 'guide.md'), '# Guide\n\nImported through the running server.');
    fs.mkdirSync(path.join(folder, 'faq'));
    fs.writeFileSync(path.join(folder, 'faq', 'refunds.txt'), 'Refunds take five days.');
  });
  afterAll(async () => {
    await data?.drop();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('imports, counts and manages keys through the server, says how to run reindex and migrate, and every write survives a restart', async () => {
    const server = await startCliServer(env());
    const base = path.basename(folder);
    let admin!: string;
    let final!: { docs: string[]; keys: string[] };
    try {
      expect((await create(server.url, 'before')).body.errors).toBeUndefined();
      // The server recorded where it listens in the folder's lock: that is how the CLI finds it.
      expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'pglite.lock'), 'utf8'))).toEqual(
        expect.objectContaining({ pid: server.child.pid, url: server.url }),
      );

      const imported = await runCliInProcess(['import', 'dir', folder, '--tag', 'handbook', '--json'], env());
      expect(imported.stderr).toContain(`the server at ${server.url}`);
      expect(imported.code).toBe(0);
      const events = imported.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { event: string; status: string; documentIds?: string[] });
      expect(events.map((e) => [e.event, e.status, e.documentIds])).toEqual([
        ['item', 'SUCCEEDED', [`file:${base}/faq/refunds.txt`]],
        ['item', 'SUCCEEDED', [`file:${base}/guide.md`]],
        ['summary', 'SUCCEEDED', undefined],
      ]);
      const stats = await runCliInProcess(['stats', '--json'], env());
      expect(stats.code).toBe(0);
      expect(JSON.parse(stats.stdout)).toEqual(
        expect.objectContaining({
          documentCount: 3,
          chunkCount: 3,
          database: 'pglite',
          topTags: [{ key: 'handbook', count: 2 }],
        }),
      );
      expect((await runCliInProcess(['stats'], env())).stdout).toMatch(/^Documents: 3\nChunks: +3\n/);

      // A spec file goes up inline; a URL the server may not fetch fails as an item, saying how to allow it.
      const spec = await runCliInProcess(
        ['import', 'openapi', projectPath('test/fixtures/openapi/oai/v3.0/petstore.yaml'), '--spec-id', 'pets'],
        env(),
      );
      expect(spec.code).toBe(0);
      expect(spec.stderr).toMatch(/SUCCEEDED: 1\/1 items imported, [1-9]\d* documents/);
      const blocked = await runCliInProcess(['import', 'url', `${server.url}/healthz`], env());
      expect(blocked.code).toBe(1);
      expect(blocked.stderr).toContain('[IMPORT_FETCH_BLOCKED]');
      expect(blocked.stderr).toContain('add 127.0.0.1 to CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS');
      expect(blocked.stderr).toContain('FAILED: 0/1 items imported');

      // The server refuses a first key that is not an admin key, as the CLI on its own does.
      const agentFirst = await runCliInProcess(['keys', 'create', '--role', 'agent', '--name', 'bot'], env());
      expect(agentFirst.code).toBe(1);
      expect(agentFirst.stderr).toContain('ADMIN');
      const created = await runCliInProcess(['keys', 'create', '--role', 'admin', '--name', 'ops'], env());
      expect(created.code).toBe(0);
      admin = created.stdout.trim();
      expect(admin).toMatch(/^cairn_/);

      // Authentication is on now: the CLI needs a key, and says where to give it.
      const keyless = await runCliInProcess(['stats'], env());
      expect(keyless.code).toBe(1);
      expect(keyless.stderr).toContain('requires an API key: pass --api-key <key> or set CAIRN_API_KEY');
      expect(keyless.stderr).not.toMatch(STACK_LINE);
      const wrong = await runCliInProcess(
        ['stats', '--api-key', 'cairn_0000000000000000_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
        env(),
      );
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain('does not accept the API key given');
      const listed = await runCliInProcess(['keys', 'list', '--json', '--api-key', admin], env());
      expect(listed.code).toBe(0);
      expect((JSON.parse(listed.stdout) as { role: string }[]).map((k) => k.role)).toEqual(['admin']);
      const editor = await runCliInProcess(['keys', 'create', '--role', 'editor', '--name', 'writer'], {
        ...env(),
        CAIRN_API_KEY: admin,
      });
      expect(editor.code).toBe(0);

      for (const command of ['reindex', 'migrate']) {
        const res = await runCliInProcess([command], env());
        expect({ command, code: res.code, stdout: res.stdout }).toEqual({ command, code: 1, stdout: '' });
        expect(res.stderr).toContain(`pid ${server.child.pid}`);
        expect(res.stderr).toContain(
          `Stop the server (Ctrl-C in its terminal, or kill ${server.child.pid}), run \`npm run cairn -- ${command}\``,
        );
      }
      expect((await create(server.url, 'after', admin)).body.errors).toBeUndefined();
      final = await state(server.url, admin);
      expect(final.docs).toEqual(
        expect.arrayContaining(['after', 'before', `file:${base}/faq/refunds.txt`, `file:${base}/guide.md`]),
      );
      expect(final.docs.filter((d) => d.startsWith('openapi:pets:')).length).toBeGreaterThan(1);
      expect(final.keys).toEqual(['admin', 'editor']);
    } finally {
      await stopChild(server.child, 'SIGTERM');
    }
    expect(server.child.exitCode).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'pglite.lock'))).toBe(false);

    const again = await startCliServer(env());
    try {
      expect(await state(again.url, admin)).toEqual(final);
    } finally {
      // Killed: its lock stays behind, owned by a dead pid.
      await stopChild(again.child, 'SIGKILL');
    }
    expect(fs.existsSync(path.join(dataDir, 'pglite.lock'))).toBe(true);

    // With no server running the CLI opens the folder itself, the dead server's lock (and its URL) notwithstanding.
    const keys = await runCliInProcess(['keys', 'list', '--json'], env());
    expect(keys.stderr).toBe('');
    expect(keys.code).toBe(0);
    expect((JSON.parse(keys.stdout) as { role: string }[]).map((k) => k.role)).toEqual(['admin', 'editor']);
    expect(fs.existsSync(path.join(dataDir, 'pglite.lock'))).toBe(false);
  }, 240_000);
});
