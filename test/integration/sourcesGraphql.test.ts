import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { edgeTarget } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

const SOURCE_FIELDS =
  'id name kind status schedule nextRunAt lastRunAt lastError lastErrorCode documentCount counts { added updated removed unchanged skipped } jobs { id kind status documents { id } }';

// The API's shape does not depend on the store: one database (edgeTarget); sources.test.ts runs both.
describe.each([edgeTarget()])('sources over GraphQL ($name)', (target) => {
  let t: TestServer;
  let root: string;
  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-sources-gql-'));
    fs.mkdirSync(path.join(root, 'guides'));
    fs.writeFileSync(path.join(root, 'guides', 'start.md'), '# Start\n\nHow to begin.');
    fs.writeFileSync(path.join(root, 'guides', 'deploy.md'), '# Deploy\n\nHow to ship.');
    t = await startTestServer(target, {
      CAIRN_SOURCES_FOLDER_ROOT: root,
      CAIRN_SOURCES_CACHE_DIR: path.join(root, '.cache'),
      CAIRN_SOURCES_TICK_MS: '0',
    });
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('creates, syncs, lists, updates and deletes a source', async () => {
    const created = await t.gql<{ createSource: { id: string; status: string; nextRunAt: string | null } }>(
      `mutation($input: CreateSourceInput!) { createSource(input: $input) { ${SOURCE_FIELDS} } }`,
      {
        input: {
          name: 'guides',
          kind: 'FOLDER',
          path: 'guides',
          tags: ['guide'],
          documentType: 'TUTORIAL',
          schedule: '@daily',
        },
      },
    );
    expect(created.errors).toBeUndefined();
    const id = created.data!.createSource.id;
    expect(created.data!.createSource.status).toBe('NEVER_SYNCED');
    expect(created.data!.createSource.nextRunAt).toMatch(/T00:00:00/);

    const synced = await t.gql<{ syncSource: { id: string; kind: string; status: string } }>(
      'mutation($id: ID!) { syncSource(id: $id, async: false) { id kind status } }',
      { id },
    );
    expect(synced.errors).toBeUndefined();
    expect(synced.data!.syncSource).toMatchObject({ kind: 'SOURCE', status: 'SUCCEEDED' });

    const read = await t.gql<{
      source: Record<string, unknown> & { jobs: { documents: { id: string }[] }[] };
      sources: { name: string }[];
    }>(`query($id: ID!) { source(id: $id) { ${SOURCE_FIELDS} } sources { name } }`, { id: 'guides' });
    expect(read.errors).toBeUndefined();
    expect(read.data!.sources.map((s) => s.name)).toEqual(['guides']);
    expect(read.data!.source).toMatchObject({
      status: 'SUCCEEDED',
      documentCount: 2,
      counts: { added: 2, updated: 0, removed: 0, unchanged: 0, skipped: 0 },
      lastError: null,
    });
    expect(read.data!.source.jobs[0]!.documents.map((d) => d.id).sort()).toEqual([
      'file:guides/deploy.md',
      'file:guides/start.md',
    ]);
    await t.gql(
      'mutation { createDocument(input: { id: "doc:by-hand", title: "By hand", content: "typed" }) { chunkCount } }',
    );
    const listed = await t.gql<{ mine: { totalCount: number; nodes: { id: string }[] }; all: { totalCount: number } }>(
      '{ mine: documents(sourceId: "guides") { totalCount nodes { id } } all: documents { totalCount } }',
    );
    expect(listed.data!.mine.totalCount).toBe(2);
    expect(listed.data!.all.totalCount).toBe(3);
    const unknown = await t.gql('{ documents(sourceId: "nope") { totalCount } }');
    expect(unknown.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const doc = await t.gql<{ document: { documentType: string; tags: string[] } }>(
      '{ document(id: "file:guides/start.md") { documentType tags } }',
    );
    expect(doc.data!.document).toEqual({ documentType: 'TUTORIAL', tags: ['guide'] });

    const updated = await t.gql<{ updateSource: { schedule: string | null; nextRunAt: string | null } }>(
      'mutation($id: ID!) { updateSource(id: $id, input: { schedule: null }) { schedule nextRunAt } }',
      { id },
    );
    expect(updated.data!.updateSource).toEqual({ schedule: null, nextRunAt: null });

    const bad = await t.gql(
      'mutation { createSource(input: { name: "x", kind: GIT, url: "ftp://example.com/r.git" }) { id } }',
    );
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(bad.errors?.[0]?.message).toMatch(/input\.url/);
    const taken = await t.gql(
      'mutation { createSource(input: { name: "guides", kind: FOLDER, path: "guides" }) { id } }',
    );
    expect(taken.errors?.[0]?.extensions?.code).toBe('CONFLICT');

    const deleted = await t.gql<{ deleteSource: { deleted: boolean; documentsRemoved: number } }>(
      'mutation($id: ID!) { deleteSource(id: $id) { deleted documentsRemoved } }',
      { id },
    );
    expect(deleted.data!.deleteSource).toEqual({ deleted: true, documentsRemoved: 2 });
    const gone = await t.gql<{ source: unknown; documents: { totalCount: number } }>(
      'query($id: ID!) { source(id: $id) { id } documents { totalCount } }',
      { id },
    );
    expect(gone.data).toEqual({ source: null, documents: { totalCount: 1 } });
  });

  it('imports again at the next sync what undoing a sync job reverted', async () => {
    fs.mkdirSync(path.join(root, 'notes'));
    const file = path.join(root, 'notes', 'a.md');
    fs.writeFileSync(file, '# A\n\nThe first version.');
    const ok = async <T>(query: string, variables?: Record<string, unknown>): Promise<T> => {
      const res = await t.gql<T>(query, variables);
      expect(res.errors).toBeUndefined();
      return res.data!;
    };
    const { createSource } = await ok<{ createSource: { id: string } }>(
      'mutation { createSource(input: { name: "notes", kind: FOLDER, path: "notes" }) { id } }',
    );
    const sync = async () =>
      (
        await ok<{ syncSource: { id: string; status: string } }>(
          'mutation($id: ID!) { syncSource(id: $id, async: false) { id status } }',
          { id: createSource.id },
        )
      ).syncSource;
    const content = async () =>
      (await ok<{ document: { content: string } }>('{ document(id: "file:notes/a.md") { content } }')).document.content;
    expect((await sync()).status).toBe('SUCCEEDED');
    fs.writeFileSync(file, '# A\n\nThe second version.');
    const second = await sync();
    expect(await content()).toContain('second version');

    const undone = await ok<{ undoImportJob: { undone: number } }>(
      'mutation($id: ID!) { undoImportJob(id: $id) { undone } }',
      { id: second.id },
    );
    expect(undone.undoImportJob.undone).toBeGreaterThan(0);
    expect(await content()).toContain('first version');
    // The file did not change since, yet the next sync writes what it says again: the undo reset its fingerprint.
    await sync();
    expect(await content()).toContain('second version');
    const counts = await ok<{ source: { counts: { updated: number } } }>(
      '{ source(id: "notes") { counts { updated } } }',
    );
    expect(counts.source.counts.updated).toBe(1);
  });

  it('never answers with a deploy key, even one sent in an input GraphQL refuses', async () => {
    const key =
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQsecretbody\n-----END OPENSSH PRIVATE KEY-----';
    const refused = await t.gql('mutation($input: CreateSourceInput!) { createSource(input: $input) { id } }', {
      input: { name: 'leaky', kind: 'GIT', url: 'git@github.com:acme/private.git', deployKey: key, notAField: 1 },
    });
    expect(refused.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(refused)).not.toContain('secretbody');
    const badKey = await t.gql('mutation($input: CreateSourceInput!) { createSource(input: $input) { id } }', {
      input: { name: 'leaky', kind: 'FOLDER', path: 'guides', deployKey: key },
    });
    expect(badKey.errors?.[0]?.message).toMatch(/^input\.deployKey: only GIT sources over ssh take one/);
    expect(JSON.stringify(badKey)).not.toContain('secretbody');
    const fields = await t.gql<{ __type: { fields: { name: string }[] } }>(
      '{ __type(name: "Source") { fields { name } } }',
    );
    expect(fields.data!.__type.fields.map((f) => f.name).filter((n) => /key|secret/i.test(n))).toEqual([
      'deployKeyPublicKey',
      'deployKeyFingerprint',
    ]);
  });
});
