import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCli, runCliInProcess, startCliServer } from '../helpers/cli.js';
import { scratchPglite, type ScratchDatabase } from '../helpers/databases.js';
import { createSshGitRepo, newKeyPair, sshdUnderTest } from '../helpers/sshGitServer.js';

const LOGO_SKIPPED = 'skipped 1 file: logo.png (Cairn imports text, not images)';
const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1) as string) as Record<string, unknown>;

// `cairn sources` on a data folder of its own (a copy of the migrated template): `add` as the program itself, the rest
// in this process (runCliInProcess), which is just as much another process to a server holding the folder.
describe('cairn sources', () => {
  let data: ScratchDatabase;
  let dataDir: string;
  let root: string;
  const env = () => ({ CAIRN_DATA_DIR: dataDir, CAIRN_EMBEDDING_PROVIDER: 'hashing', CAIRN_SOURCES_FOLDER_ROOT: root });

  beforeAll(async () => {
    data = await scratchPglite();
    dataDir = data.env.CAIRN_DATA_DIR!;
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-sources-root-'));
    fs.mkdirSync(path.join(root, 'handbook'));
    fs.writeFileSync(path.join(root, 'handbook', 'intro.md'), '# Intro\n\nWelcome.');
    fs.writeFileSync(path.join(root, 'handbook', 'leave.md'), '# Leave\n\nAsk your lead.');
    fs.writeFileSync(path.join(root, 'handbook', 'logo.png'), 'png');
  });
  afterAll(async () => {
    await data?.drop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('adds, lists, syncs and removes a folder source', async () => {
    const added = await runCli(
      ['sources', 'add', 'handbook', '--kind', 'folder', '--path', 'handbook', '--tag', 'hr', '--schedule', '@daily'],
      env(),
    );
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/Added FOLDER source "handbook".*next sync/);

    const synced = await runCliInProcess(['sources', 'sync', 'handbook', '--json'], env());
    expect(synced.code).toBe(0);
    const events = synced.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.filter((e) => e.event === 'progress').at(-1)).toEqual({
      event: 'progress',
      unit: 'items',
      done: 2,
      total: 2,
    });
    expect(lastJson(synced.stdout)).toMatchObject({
      event: 'summary',
      jobStatus: 'SUCCEEDED',
      status: 'SUCCEEDED',
      counts: { added: 2, updated: 0, removed: 0, unchanged: 0, skipped: 1 },
      warnings: [LOGO_SKIPPED],
    });

    fs.rmSync(path.join(root, 'handbook', 'leave.md'));
    const again = await runCliInProcess(['sources', 'sync', 'handbook'], env());
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/SUCCEEDED: added 0, updated 0, removed 1, unchanged 1, skipped 1/);
    expect(again.stderr).toContain(`warning: ${LOGO_SKIPPED}\n`);

    const listed = await runCliInProcess(['sources', 'list', '--json'], env());
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        name: 'handbook',
        kind: 'FOLDER',
        status: 'SUCCEEDED',
        schedule: '@daily',
        documentCount: 1,
        tags: ['hr'],
      }),
    ]);

    const removed = await runCliInProcess(['sources', 'remove', 'handbook', '--keep-documents'], env());
    expect(removed.code).toBe(0);
    expect(removed.stdout).toMatch(/0 document\(s\) removed, 1 kept/);
  }, 400_000); // six commands, each opening the embedded store

  it('works through the server that holds the data folder, following a sync over the subscription', async () => {
    const held = await scratchPglite();
    const heldEnv = { ...env(), ...held.env, CAIRN_SOURCES_TICK_MS: '0' };
    const server = await startCliServer(heldEnv);
    try {
      // In process: to the server, this Jest worker is just as much another process (the first test spawns one).
      const added = await runCliInProcess(
        ['sources', 'add', 'handbook', '--kind', 'folder', '--path', 'handbook', '--json'],
        heldEnv,
      );
      expect(added.stderr).toContain(`the server at ${server.url}`);
      expect(lastJson(added.stdout)).toMatchObject({ name: 'handbook', kind: 'FOLDER', status: 'NEVER_SYNCED' });
      const synced = await runCliInProcess(['sources', 'sync', 'handbook', '--json'], heldEnv);
      expect(synced.stderr).toContain(`the server at ${server.url}`);
      expect(synced.code).toBe(0);
      const events = synced.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(events.filter((e) => e.event === 'progress').at(-1)).toMatchObject({ unit: 'items', done: 1, total: 1 });
      expect(lastJson(synced.stdout)).toMatchObject({
        event: 'summary',
        jobStatus: 'SUCCEEDED',
        status: 'SUCCEEDED',
        counts: { added: 1, skipped: 1 },
        warnings: [LOGO_SKIPPED],
      });
      const listed = await runCliInProcess(['sources', 'list', '--json'], heldEnv);
      expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ name: 'handbook', documentCount: 1 })]);
      const removed = await runCliInProcess(['sources', 'remove', 'handbook'], heldEnv);
      expect(removed.stdout).toMatch(/1 document\(s\) removed, 0 kept/);
    } finally {
      server.child.kill('SIGTERM');
      await new Promise((resolve) => server.child.once('exit', resolve));
      await held.drop();
    }
  }, 400_000);

  const sshd = sshdUnderTest();
  (sshd ? it : it.skip)(
    'adds a git source over ssh with its deploy key read from a file, and syncs it',
    async () => {
      const repo = createSshGitRepo(sshd!);
      const key = newKeyPair();
      repo.authorize(key.publicKey);
      repo.commit({ 'docs/run.md': '# Runbook\n\nRestart the service.' });
      const keyFile = path.join(root, 'deploy_key');
      fs.writeFileSync(keyFile, key.privateKey, { mode: 0o600 });
      const sshEnv = {
        ...env(),
        CAIRN_SECRET_KEY: 'a-cli-test-secret-key-of-32-characters-or-more',
        CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: `127.0.0.1:${sshd!.port}`,
      };
      try {
        const added = await runCliInProcess(
          ['sources', 'add', 'private', '--kind', 'git', '--url', repo.url, '--deploy-key', keyFile, '--json'],
          sshEnv,
        );
        expect(added.code).toBe(0);
        expect(added.stdout).not.toContain('PRIVATE KEY');
        expect(lastJson(added.stdout)).toMatchObject({
          name: 'private',
          deployKeyPublicKey: key.publicKey.trim(),
          deployKeyFingerprint: expect.stringMatching(/^SHA256:/),
        });
        const synced = await runCliInProcess(['sources', 'sync', 'private', '--json'], sshEnv);
        expect(lastJson(synced.stdout)).toMatchObject({ event: 'summary', status: 'SUCCEEDED', counts: { added: 1 } });
      } finally {
        repo.close();
      }
    },
    400_000,
  );
});
