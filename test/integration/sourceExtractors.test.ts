import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { edgeTarget } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';
import { WordExtractor } from '../helpers/wordExtractor.js';

// A source's own extractors: stored with its settings, returned by the API, and given to the extraction of the
// documents its syncs write; a source's last sync and its jobs report extraction.

const FIELDS = `id extractors extraction { pending done entities } jobs(first: 1) { extraction { pending } }`;

interface SourceView {
  id: string;
  extractors: string[] | null;
  extraction: { pending: number; done: number; entities: number } | null;
  jobs: { extraction: { pending: number } | null }[];
}

// Settings and reports do not depend on the store: one database (edgeTarget); extraction.test.ts runs both.
describe.each([edgeTarget()])('source extractors ($name)', (target) => {
  let t: TestServer;
  let root: string;
  let extractor: WordExtractor | undefined;
  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-source-extractors-'));
    fs.mkdirSync(path.join(root, 'notes'));
    fs.writeFileSync(path.join(root, 'notes', 'a.md'), '# Alpha\n\nAlice met Bob.');
    fs.writeFileSync(path.join(root, 'notes', 'b.md'), '# Beta\n\nCarol met Dan.');
    t = await startTestServer(
      target,
      {
        CAIRN_SOURCES_FOLDER_ROOT: root,
        CAIRN_SOURCES_CACHE_DIR: path.join(root, '.cache'),
        CAIRN_SOURCES_TICK_MS: '0',
      },
      undefined,
      undefined,
      undefined,
      { documentExtractor: ({ documents }) => (extractor = new WordExtractor(documents)) },
    );
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const update = (id: string, input: Record<string, unknown>) =>
    t.gql<{ updateSource: SourceView }>(
      `mutation($id: ID!, $input: UpdateSourceInput!) { updateSource(id: $id, input: $input) { ${FIELDS} } }`,
      { id, input },
    );
  const sync = async (id: string) => {
    const res = await t.gql('mutation($id: ID!) { syncSource(id: $id, async: false) { status } }', { id });
    expect(res.errors).toBeUndefined();
  };

  it('stores, returns and applies a source’s extractors', async () => {
    const created = await t.gql<{ createSource: SourceView }>(
      `mutation($input: CreateSourceInput!) { createSource(input: $input) { ${FIELDS} } }`,
      { input: { name: 'notes', kind: 'FOLDER', path: 'notes', extractors: ['OFFLINE', 'STRUCTURAL', 'OFFLINE'] } },
    );
    expect(created.errors).toBeUndefined();
    const id = created.data!.createSource.id;
    expect(created.data!.createSource).toMatchObject({ extractors: ['STRUCTURAL', 'OFFLINE'], extraction: null });

    await sync(id);
    // Queued batch by batch, each document once, with the source's extractors.
    expect(extractor!.enqueued.map((e) => e.extractors)).toEqual(
      extractor!.enqueued.map(() => ['structural', 'offline']),
    );
    expect(extractor!.enqueued.flatMap((e) => e.ids).sort()).toEqual(['file:notes/a.md', 'file:notes/b.md']);
    const read = await t.gql<{ source: SourceView }>(`query($id: ID!) { source(id: $id) { ${FIELDS} } }`, { id });
    expect(read.data!.source).toMatchObject({
      extractors: ['STRUCTURAL', 'OFFLINE'],
      extraction: { pending: 2, done: 0 },
      jobs: [{ extraction: { pending: 2 } }],
    });

    const refused = await update(id, { extractors: ['LLM'] });
    expect(refused.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(refused.errors?.[0]?.message).toMatch(/input\.extractors: .*CAIRN_EXTRACTION_LLM_MODEL/);

    const calls = extractor!.enqueued.length;
    const cleared = await update(id, { extractors: null });
    expect(cleared.errors).toBeUndefined();
    expect(cleared.data!.updateSource.extractors).toBeNull();
    // Back to the configured extractors: the document write queues it, the sync adds nothing.
    fs.writeFileSync(path.join(root, 'notes', 'a.md'), '# Alpha\n\nAlice met Erin.');
    await sync(id);
    expect(extractor!.enqueued).toHaveLength(calls);
    const kept = await update(id, { name: 'notes-2' });
    expect(kept.data!.updateSource.extractors).toBeNull();
  });
});
