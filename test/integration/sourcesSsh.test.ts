// GIT sources over ssh against a real OpenSSH server on 127.0.0.1 (scripts/sshd-server.sh), with deploy keys sealed
// under CAIRN_SECRET_KEY: syncs, host keys, refused keys, rotation of the secret, and keys that never leak.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { edgeTarget, type ScratchDatabase } from '../helpers/databases.js';
import { failureOf } from '../helpers/failureOf.js';
import { createSshGitRepo, newKeyPair, sshdUnderTest, type SshGitRepo } from '../helpers/sshGitServer.js';
import { NO_BACKGROUND_EXTRACTION } from '../helpers/backgroundWork.js';

const sshd = sshdUnderTest();
const SECRET = 'first-secret-key-of-at-least-32-characters';
const NEXT_SECRET = 'second-secret-key-of-at-least-32-characters';
const KEY_BODY = (privateKey: string) => privateKey.split('\n')[1] as string;

(sshd ? describe.each([edgeTarget()]) : describe.skip.each([edgeTarget()]))(
  'GIT sources over ssh with deploy keys ($name)',
  (target) => {
    let root: string;
    let database: ScratchDatabase;
    let repo: SshGitRepo;
    let s: Services;
    const deploy = newKeyPair();
    const open = (env: Record<string, string>) => {
      const config = loadConfig({
        ...NO_BACKGROUND_EXTRACTION,
        NODE_ENV: 'test',
        ...database.env,
        CAIRN_EMBEDDING_PROVIDER: 'hashing',
        CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
        CAIRN_SOURCES_CACHE_DIR: path.join(root, 'cache'),
        CAIRN_SOURCES_TICK_MS: '0',
        // Only the sshd's own port: the loopback host's other ports stay blocked.
        CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: `127.0.0.1:${sshd!.port}`,
        ...env,
      });
      return createServices(config, silentLogger(), { embedder: new HashingEmbeddingProvider({ dimensions: 64 }) });
    };
    /** Syncs and expects the sync to fail; returns the source's recorded error. */
    const failedSync = async (id: string) => {
      expect((await s.sources.sync(id, { async: false })).status).toBe('FAILED');
      const source = await s.sources.byIdOrNameOrFail(id);
      expect(source.status).toBe('FAILED');
      return { code: source.lastErrorCode, message: source.lastError ?? '' };
    };
    const ids = async (sourceId: string) =>
      (
        await s.db.query<{ id: string }>('SELECT id FROM documents WHERE source_id = $1 ORDER BY id', [sourceId])
      ).rows.map((r) => r.id);

    beforeAll(async () => {
      root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-ssh-sources-'));
      database = await target.createDatabase();
      repo = createSshGitRepo(sshd!);
      repo.authorize(deploy.publicKey);
      s = await open({ CAIRN_SECRET_KEY: SECRET });
    });
    afterAll(async () => {
      await s?.close();
      repo?.close();
      await database?.drop();
      fs.rmSync(root, { recursive: true, force: true });
    });

    it('syncs a repository over ssh, records the host key it met, and follows changes', async () => {
      repo.commit({ 'docs/a.md': '# A\n\nalpha over ssh', 'docs/b.md': '# B\n\nbeta', 'src/x.ts': 'code' });
      const source = await s.sources.create({
        name: 'private-docs',
        kind: 'GIT',
        url: repo.url,
        include: ['docs/**'],
        deployKey: deploy.privateKey,
      });
      expect(source.deployKey?.publicKey).toBe(deploy.publicKey.trim());
      expect(source.sshKnownHosts).toBeNull();
      const job = await s.sources.sync(source.id, { async: false });
      expect(job.status).toBe('SUCCEEDED');
      const after = await s.sources.byIdOrNameOrFail(source.id);
      expect(after.counts).toMatchObject({ added: 2, updated: 0, removed: 0 });
      // Trusted on first contact, and from now on required.
      expect(after.sshKnownHosts).toBe(repo.knownHosts);
      const prefix = `git:127.0.0.1:${sshd!.port}${new URL(repo.url).pathname.replace(/\.git$/, '')}`;
      expect(await ids(source.id)).toEqual([`${prefix}/docs/a.md`, `${prefix}/docs/b.md`]);

      repo.commit({ 'docs/a.md': '# A\n\nalpha, changed', 'docs/b.md': null, 'docs/c.md': '# C\n\ngamma' });
      expect((await s.sources.sync(source.id, { async: false })).status).toBe('SUCCEEDED');
      expect((await s.sources.byIdOrNameOrFail(source.id)).counts).toMatchObject({
        added: 1,
        updated: 1,
        removed: 1,
        unchanged: 0,
      });
      expect(await ids(source.id)).toEqual([`${prefix}/docs/a.md`, `${prefix}/docs/c.md`]);
    });

    it('stores the deploy key sealed: not in the database in clear, not in GraphQL, not in errors', async () => {
      const source = await s.sources.byIdOrNameOrFail('private-docs');
      const { rows } = await s.db.query<{ row: string }>(
        'SELECT row_to_json(sources)::text AS row FROM sources WHERE id = $1',
        [source.id],
      );
      expect(rows[0]?.row).not.toContain(KEY_BODY(deploy.privateKey));
      expect(rows[0]?.row).toContain('"keyId"');
      expect(JSON.stringify(source.config)).not.toContain('PRIVATE');
      // A FOLDER source refuses a deploy key without repeating it.
      const err = await failureOf(
        s.sources.create({ name: 'folder', kind: 'FOLDER', path: 'x', deployKey: deploy.privateKey }),
      );
      expect(err.code).toBe('BAD_USER_INPUT');
      expect(JSON.stringify({ message: err.message, details: err.details })).not.toContain(KEY_BODY(deploy.privateKey));
      const bad = await failureOf(
        s.sources.create({
          name: 'bad-key',
          kind: 'GIT',
          url: repo.url,
          deployKey: '-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n-----END OPENSSH PRIVATE KEY-----',
        }),
      );
      expect(bad.code).toBe('BAD_USER_INPUT');
      expect(bad.message).toMatch(/^input\.deployKey: is not a private key ssh can read/);
      expect(bad.message).not.toContain('not a key');
      const missing = await failureOf(s.sources.create({ name: 'no-key', kind: 'GIT', url: repo.url }));
      expect(missing.message).toMatch(/^input\.deployKey: an ssh repository needs a deploy key/);
      expect((await s.sources.list()).map((x) => x.name)).toEqual(['private-docs']);
    });

    it('fails with a clear error when the host key changed or the host refuses the key, and writes nothing', async () => {
      const source = await s.sources.byIdOrNameOrFail('private-docs');
      const before = await ids(source.id);
      const stranger = newKeyPair().publicKey.split(/\s+/).slice(0, 2).join(' ');
      await s.sources.update(source.id, { sshKnownHosts: `[127.0.0.1]:${sshd!.port} ${stranger}` });
      repo.commit({ 'docs/d.md': '# D\n\ndelta' });
      const mismatch = await failedSync(source.id);
      expect(mismatch.message).toMatch(/ssh host key of \[127\.0\.0\.1\]:\d+ does not match the one recorded/);
      expect(await ids(source.id)).toEqual(before);

      // "" forgets the recorded key: the next sync trusts the host's key again.
      await s.sources.update(source.id, { sshKnownHosts: '' });
      const refusedKey = newKeyPair();
      const other = await s.sources.create({
        name: 'unauthorized',
        kind: 'GIT',
        url: repo.url,
        deployKey: refusedKey.privateKey,
        sshKnownHosts: repo.knownHosts,
      });
      const refused = await failedSync(other.id);
      expect(refused).toMatchObject({
        code: 'IMPORT_FETCH_FAILED',
        message: expect.stringMatching(/refused the source's deploy key/),
      });
      expect(refused.message).not.toContain(KEY_BODY(refusedKey.privateKey));
      await s.sources.delete(other.id, false);
      expect((await s.sources.sync(source.id, { async: false })).status).toBe('SUCCEEDED');
      expect((await s.sources.byIdOrNameOrFail(source.id)).sshKnownHosts).toBe(repo.knownHosts);
    });

    it('refuses a blocked ssh host and port like any fetch', async () => {
      const elsewhere = repo.url.replace(`:${sshd!.port}/`, ':1/');
      const err = await failureOf(
        s.sources.create({ name: 'blocked', kind: 'GIT', url: elsewhere, deployKey: deploy.privateKey }),
      );
      expect(err.code).toBe('IMPORT_FETCH_BLOCKED');
      const option = await failureOf(
        s.sources.create({
          name: 'option',
          kind: 'GIT',
          url: 'ssh://-oProxyCommand=touch/x/repo.git',
          deployKey: deploy.privateKey,
        }),
      );
      expect(option.code).toBe('BAD_USER_INPUT');
    });

    it('keeps working across a rotation of CAIRN_SECRET_KEY and says what to do when the key is gone', async () => {
      const source = await s.sources.byIdOrNameOrFail('private-docs');
      const sealedBy = async () => (await s.sources.byIdOrNameOrFail(source.id)).deployKey?.sealed.keyId;
      const oldKeyId = await sealedBy();
      await s.close();

      // Without the secret: nothing can be added, and the sync says which setting is missing.
      s = await open({});
      const noSecret = await failureOf(
        s.sources.create({ name: 'later', kind: 'GIT', url: repo.url, deployKey: deploy.privateKey }),
      );
      expect(noSecret.code).toBe('CONFIG_INVALID');
      expect(noSecret.message).toMatch(/CAIRN_SECRET_KEY, which is not set/);
      expect(await failedSync(source.id)).toMatchObject({
        code: 'CONFIG_INVALID',
        message: expect.stringMatching(/CAIRN_SECRET_KEY/),
      });
      await s.close();

      // A new key with the old one kept as previous: the sync works and seals the key again under the new one.
      s = await open({ CAIRN_SECRET_KEY: NEXT_SECRET, CAIRN_SECRET_KEY_PREVIOUS: SECRET });
      repo.commit({ 'docs/e.md': '# E\n\nepsilon' });
      expect((await s.sources.sync(source.id, { async: false })).status).toBe('SUCCEEDED');
      const newKeyId = await sealedBy();
      expect(newKeyId).not.toBe(oldKeyId);
      await s.close();

      // The old key can now go.
      s = await open({ CAIRN_SECRET_KEY: NEXT_SECRET });
      expect((await s.sources.sync(source.id, { async: false })).status).toBe('SUCCEEDED');
      await s.close();

      // A key that never sealed it: the error names the key id and the way out.
      s = await open({ CAIRN_SECRET_KEY: 'an-unrelated-secret-key-of-32-characters-or-more' });
      expect((await failedSync(source.id)).message).toMatch(
        new RegExp(`key id ${newKeyId}.*CAIRN_SECRET_KEY_PREVIOUS`),
      );
    });
  },
);
