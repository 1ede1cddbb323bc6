import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCli, runCliInProcess, startCliServer } from '../helpers/cli.js';

// The README's quick-start flow, through the real `cairn` entry point on a data folder (commands that need no process or
// working folder of their own run in this process, with runCliInProcess).
describe('cairn command (embedded default)', () => {
  let dataDir: string;
  const env = () => ({
    CAIRN_DATA_DIR: dataDir,
    CAIRN_EMBEDDING_PROVIDER: 'auto',
    CAIRN_OFFLINE: '1',
    CAIRN_LOG_LEVEL: 'info',
  });
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-e2e-'));
  });
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the README examples, then drains and exits on SIGTERM', async () => {
    const { child, url, logs } = await startCliServer(env());
    const post = async (query: string) => {
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      return (await res.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
    };
    const created = await post(
      `mutation { createDocument(input: {id: "runbook:ach-failures", title: "ACH failures", content: "ACH payments fail when the receiving bank rejects the transfer. Verify the routing number, then retry.", documentType: MANUAL, tags: ["payments", "ach"]}) { chunkCount embeddedChunkCount document { id } } }`,
    );
    expect(created).toEqual({
      data: { createDocument: { chunkCount: 1, embeddedChunkCount: 1, document: { id: 'runbook:ach-failures' } } },
    });
    const found = await post(
      `{ search(input: {query: "why did the ACH payment fail?"}) { score document { id title } chunk { content } } }`,
    );
    expect((found.data?.search as { document: { id: string } }[])[0]?.document.id).toBe('runbook:ach-failures');
    // auto without a local model, offline: hashing, announced in one log line.
    expect(logs()).toMatch(/hashing/);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);

    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(logs()).toContain('shutting down');
  });

  it('in production mode, as the Docker image runs it: introspection answers and SIGTERM still closes the database', async () => {
    const { child, url, logs } = await startCliServer({ ...env(), NODE_ENV: 'production' });
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __schema { queryType { name } } }' }),
    });
    expect(await res.json()).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(logs()).toContain('shutting down');
    // Only a clean close releases the data folder's lock (a killed server leaves it, for the next start to take over).
    expect(fs.readdirSync(dataDir)).not.toContain('pglite.lock');
  });

  it('keeps what was acknowledged across restarts, and stats/reindex work on it', async () => {
    const stats = await runCliInProcess(['stats', '--json'], env());
    expect(stats.code).toBe(0);
    const parsed = JSON.parse(stats.stdout) as { documentCount: number; embedder: { provider: string } };
    expect(parsed.documentCount).toBe(1);
    expect(parsed.embedder.provider).toBe('hashing');
    // One space's counts with --space; a space that does not exist is NOT_FOUND.
    expect((await runCliInProcess(['spaces', 'create', 'other'], env())).code).toBe(0);
    const countsOf = async (space: string) => {
      const res = await runCliInProcess(['stats', '--json', '--space', space], env());
      return [
        res.code,
        res.code === 0 ? (JSON.parse(res.stdout) as { documentCount: number }).documentCount : res.stderr,
      ];
    };
    expect(await countsOf('default')).toEqual([0, 1]);
    expect(await countsOf('other')).toEqual([0, 0]);
    expect(await countsOf('nowhere')).toEqual([1, expect.stringContaining('NOT_FOUND')]);
    const renamed = await runCliInProcess(['spaces', 'rename', 'other', '--name', 'Other team', '--json'], env());
    expect(renamed.code).toBe(0);
    expect(renamed.stdout).toContain('[{"id":"other","name":"Other team"');
    expect((await runCliInProcess(['spaces', 'rename', 'other'], env())).code).not.toBe(0);
    // other reads default: listed with the space, counted with it, and revoked again.
    const allowed = await runCliInProcess(['spaces', 'allow-read', 'other', 'default', '--json'], env());
    expect([allowed.code, JSON.parse(allowed.stdout)]).toEqual([
      0,
      [expect.objectContaining({ id: 'other', reads: ['default'] })],
    ]);
    expect((await runCliInProcess(['spaces'], env())).stdout).toMatch(/^other +Other team +default$/m);
    expect(await countsOf('other')).toEqual([0, 1]);
    const revoked = await runCliInProcess(['spaces', 'revoke-read', 'other', 'default', '--json'], env());
    expect(JSON.parse(revoked.stdout)).toEqual([expect.objectContaining({ id: 'other', reads: [] })]);
    expect(await countsOf('other')).toEqual([0, 0]);
    const nowhere = await runCliInProcess(['spaces', 'allow-read', 'default', 'nowhere'], env());
    expect([nowhere.code, nowhere.stderr]).toEqual([1, expect.stringContaining('NOT_FOUND')]);
    const deleted = await runCliInProcess(['spaces', 'delete', 'other', '--json'], env());
    expect(deleted.code).toBe(0);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ spaceId: 'other', status: 'SUCCEEDED' });
    expect((await runCliInProcess(['spaces', '--json'], env())).stdout).not.toContain('"other"');
    expect(await countsOf('other')).toEqual([1, expect.stringContaining('NOT_FOUND')]);
    const keepDefault = await runCliInProcess(['spaces', 'delete', 'default'], env());
    expect([keepDefault.code, keepDefault.stderr]).toEqual([1, expect.stringContaining('cannot be deleted')]);

    const reindex = await runCliInProcess(['reindex', '--json', '--batch-size', '1'], {
      ...env(),
      CAIRN_EMBEDDING_PROVIDER: 'hashing',
      CAIRN_EMBEDDING_DIMENSIONS: '512',
    });
    expect(reindex.code).toBe(0);
    const events = reindex.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { done: number; total: number });
    expect(events.at(-1)).toEqual(expect.objectContaining({ done: 1, total: 1 }));

    const after = await runCliInProcess(['stats', '--json'], env());
    expect((JSON.parse(after.stdout) as { embedder: { dimensions: number } }).embedder.dimensions).toBe(512);

    const mismatch = await runCliInProcess(['stats'], {
      ...env(),
      CAIRN_EMBEDDING_PROVIDER: 'hashing',
      CAIRN_EMBEDDING_DIMENSIONS: '256',
    });
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toContain('EMBEDDER_MISMATCH');
    expect(mismatch.stderr).toContain('npm run cairn -- reindex');
  }, 180_000);

  it('reads .env in the working folder beneath the environment, and prints stats for people unless --json', async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-dotenv-cwd-'));
    try {
      fs.writeFileSync(
        path.join(cwd, '.env'),
        'CAIRN_DATA_DIR=./store\nCAIRN_EMBEDDING_PROVIDER=hashing\nCAIRN_EMBEDDING_DIMENSIONS=64\n',
      );
      const res = await runCli(['stats', '--json'], { CAIRN_EMBEDDING_DIMENSIONS: '32' }, cwd);
      expect(res.stderr).toBe('');
      expect(JSON.parse(res.stdout)).toEqual(
        expect.objectContaining({
          documentCount: 0,
          embedder: { provider: 'hashing', model: 'hashing-v1', dimensions: 32 },
        }),
      );
      expect(fs.existsSync(path.join(cwd, 'store', 'pglite'))).toBe(true);
      const human = await runCli(['stats'], { CAIRN_EMBEDDING_DIMENSIONS: '32' }, cwd);
      expect(human.stdout).toBe(
        'Documents: 0\nChunks:    0\nEmbedder:  hashing/hashing-v1 (32 dimensions)\nDatabase:  pglite\nExtracted: 0 documents (0 pending, 0 running, 0 failed)\nGraph:     0 entities, 0 relationships\n',
      );
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses bad configuration naming the variable', async () => {
    const res = await runCliInProcess(['stats'], { ...env(), CAIRN_CHUNK_SIZE: 'big' });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('CAIRN_CHUNK_SIZE');
  });
});
