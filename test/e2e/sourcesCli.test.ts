import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCli, runCliInProcess } from '../helpers/cli.js';

const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1) as string) as Record<string, unknown>;

// `cairn sources` on a data folder of its own: `add` as the program itself, the rest in this process (runCliInProcess).
describe('cairn sources', () => {
  let dataDir: string;
  let root: string;
  const env = () => ({ CAIRN_DATA_DIR: dataDir, CAIRN_EMBEDDING_PROVIDER: 'hashing', CAIRN_SOURCES_FOLDER_ROOT: root });

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-sources-cli-'));
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-sources-root-'));
    fs.mkdirSync(path.join(root, 'handbook'));
    fs.writeFileSync(path.join(root, 'handbook', 'intro.md'), '# Intro\n\nWelcome.');
    fs.writeFileSync(path.join(root, 'handbook', 'leave.md'), '# Leave\n\nAsk your lead.');
  });
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('adds, lists, syncs and removes a folder source', async () => {
    const added = await runCli(['sources', 'add', 'handbook', '--kind', 'folder', '--path', 'handbook', '--tag', 'hr', '--schedule', '@daily'], env());
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/Added FOLDER source "handbook".*next sync/);

    const synced = await runCliInProcess(['sources', 'sync', 'handbook', '--json'], env());
    expect(synced.code).toBe(0);
    const events = synced.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.filter((e) => e.event === 'progress').at(-1)).toEqual({ event: 'progress', unit: 'items', done: 2, total: 2 });
    expect(lastJson(synced.stdout)).toMatchObject({ event: 'summary', jobStatus: 'SUCCEEDED', status: 'SUCCEEDED', counts: { added: 2, updated: 0, removed: 0, unchanged: 0, skipped: 0 } });

    fs.rmSync(path.join(root, 'handbook', 'leave.md'));
    const again = await runCliInProcess(['sources', 'sync', 'handbook'], env());
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/SUCCEEDED: added 0, updated 0, removed 1, unchanged 1, skipped 0/);

    const listed = await runCliInProcess(['sources', 'list', '--json'], env());
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ name: 'handbook', kind: 'FOLDER', status: 'SUCCEEDED', schedule: '@daily', documentCount: 1, tags: ['hr'] })]);

    const removed = await runCliInProcess(['sources', 'remove', 'handbook', '--keep-documents'], env());
    expect(removed.code).toBe(0);
    expect(removed.stdout).toMatch(/0 document\(s\) removed, 1 kept/);
  }, 400_000); // six commands, each opening the embedded store
});
