import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { silentLogger } from '../../src/logger.js';
import { createServices } from '../../src/services.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { codeOf, gqlAs } from '../helpers/auth.js';
import { projectShare } from '../helpers/projects.js';
import { serverRuns, startRunServer, type ServerRun } from '../helpers/serverRuns.js';
import type { TestServer } from '../helpers/testServer.js';

// deleteSpace removes everything a space holds, on both databases and both graph stores, as a job with progress that
// a restarted process resumes; other spaces lose nothing, and the space's keys lose it at once.

const runs = projectShare(serverRuns({ everyDatabase: true }));
const KEEP =
  '{ documents { totalCount } entities { totalCount } graphStats { relationshipCount } importJobs { totalCount } knowledgeGaps { totalCount } }';

/** Rows of `space` left in any table with a space_id column. */
async function leftIn(t: TestServer, space: string): Promise<Record<string, number>> {
  const { rows } = await t.services.db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.columns
      WHERE column_name = 'space_id' AND table_schema = current_schema() AND table_name <> 'space_deletions'
      ORDER BY 1`,
  );
  const left: Record<string, number> = {};
  for (const { table_name: table } of rows) {
    const res = await t.services.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} WHERE space_id = $1`,
      [space],
    );
    if ((res.rows[0]?.n ?? 0) > 0) left[table] = res.rows[0]?.n ?? 0;
  }
  return left;
}

/** Writes documents, a graph, a gap and an upload's import in the space `key` works in. */
async function fill(t: TestServer, key: string, prefix: string, header: Record<string, string> = {}): Promise<void> {
  const as = (query: string) => gqlAs<Record<string, never>>(t.server.url, key, query, undefined, header);
  const ok = async (query: string) => expect((await as(query)).body.errors).toBeUndefined();
  await ok(
    `mutation { upsertDocuments(input: [{ id: "${prefix}:1", title: "Runbook one", content: "The ${prefix} gateway retries." }, { id: "${prefix}:2", title: "Runbook two", content: "The ${prefix} store keeps three replicas." }]) { document { id } } }`,
  );
  await ok(
    `mutation { upsertGraph(input: { entities: [{ id: "ent:${prefix}-a", type: "Service", name: "${prefix} gateway" }, { id: "ent:${prefix}-b", type: "Service", name: "${prefix} store" }], relationships: [{ fromId: "ent:${prefix}-a", toId: "ent:${prefix}-b", type: "DEPENDS_ON" }] }) { entities { id } } }`,
  );
  await ok(`mutation { recordKnowledgeGap(query: "How does ${prefix} fail over?") }`);
  const form = new FormData();
  form.append(
    'file',
    new Blob([`# ${prefix} upload\n\nUploaded notes.`], { type: 'text/markdown' }),
    `${prefix}-notes.md`,
  );
  const res = await fetch(`${t.server.url}/v1/uploads`, {
    method: 'POST',
    body: form,
    headers: { 'apollo-require-preflight': 'true', authorization: `Bearer ${key}`, ...header },
  });
  const uploadId = ((await res.json()) as { id: string }).id;
  await ok(`mutation { importUpload(input: { uploadId: "${uploadId}" }) { job { status } } }`);
}

describe.each(runs)('deleteSpace ($name)', (run: ServerRun) => {
  let t: TestServer;
  const keys = { admin: '', doomed: '', both: '', keep: '' };
  const as = (key: string, query: string, header: Record<string, string> = {}) =>
    gqlAs<Record<string, never>>(t.server.url, key, query, undefined, header);

  beforeAll(async () => {
    t = await startRunServer(run);
    keys.admin = (await t.services.apiKeys.create('ops', 'admin')).key;
    for (const id of ['doomed', 'keep']) await t.services.spaces.create({ id });
    keys.doomed = (await t.services.apiKeys.create('doomed-team', 'editor', { spaces: ['doomed'] })).key;
    keys.both = (await t.services.apiKeys.create('both', 'editor', { spaces: ['doomed', 'keep'] })).key;
    keys.keep = (await t.services.apiKeys.create('keep-team', 'editor', { spaces: ['keep'] })).key;
    await fill(t, keys.doomed, 'doomed');
    await fill(t, keys.keep, 'keep');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('removes everything in the space, and nothing elsewhere', async () => {
    const keepBefore = await as(keys.keep, KEEP);
    expect(keepBefore.body.data).toMatchObject({ documents: { totalCount: 3 }, knowledgeGaps: { totalCount: 1 } });
    expect(Object.keys(await leftIn(t, 'doomed')).length).toBeGreaterThan(5);
    expect(codeOf(await as(keys.doomed, 'mutation { deleteSpace(id: "doomed") { status } }'))).toBe('FORBIDDEN');
    expect(codeOf(await as(keys.admin, 'mutation { deleteSpace(id: "default") { status } }'))).toBe('BAD_USER_INPUT');
    expect(codeOf(await as(keys.admin, 'mutation { deleteSpace(id: "nowhere") { status } }'))).toBe('NOT_FOUND');

    const started = await as(keys.admin, 'mutation { deleteSpace(id: "doomed") { spaceId status } }');
    expect(started.body.data).toMatchObject({ deleteSpace: { spaceId: 'doomed' } });
    // The space's keys lose it at once: the key bound to it alone is revoked, the other keeps its other space.
    expect((await as(keys.doomed, '{ documents { totalCount } }')).status).toBe(401);
    expect(codeOf(await as(keys.both, '{ documents { totalCount } }', { 'cairn-space': 'doomed' }))).toBe('FORBIDDEN');
    expect(codeOf(await as(keys.admin, '{ documents { totalCount } }', { 'cairn-space': 'doomed' }))).toBe('NOT_FOUND');

    const done = await t.services.spaceDeletions.waitFor('doomed');
    expect(done?.status).toBe('SUCCEEDED');
    const shown = await as(
      keys.admin,
      '{ spaceDeletion(id: "doomed") { status progress { done total } error finishedAt } spaces { id } }',
    );
    const body = shown.body.data as unknown as {
      spaceDeletion: { status: string; progress: { done: number; total: number }; error: null };
      spaces: { id: string }[];
    };
    expect(body.spaceDeletion.status).toBe('SUCCEEDED');
    expect(body.spaceDeletion.progress.done).toBeGreaterThanOrEqual(7); // 3 documents, 2 entities, and more
    expect(body.spaceDeletion.progress.total).toBeGreaterThanOrEqual(5);
    expect(body.spaces.map((s) => s.id)).toEqual(['default', 'keep']);
    expect(await leftIn(t, 'doomed')).toEqual({});

    // The other space is as it was, and the both-spaces key works there.
    expect((await as(keys.keep, KEEP)).body).toEqual(keepBefore.body);
    expect((await as(keys.both, '{ documents { totalCount } }')).body.data).toEqual({ documents: { totalCount: 3 } });
  });

  it('frees the ids and the graph of a deleted space on either store', async () => {
    await t.services.outbox?.drain(); // the Neo4j mirror of the deleted documents
    // A space made anew under the id starts empty, and its ids are free to use again.
    expect(
      (await as(keys.admin, 'mutation { createSpace(input: { id: "doomed" }) { id } }')).body.errors,
    ).toBeUndefined();
    const fresh = await as(
      keys.admin,
      '{ documents { totalCount } entities { totalCount } graphStats { entityCount relationshipCount } auditLog { totalCount } importJobs { totalCount } knowledgeGaps { totalCount } }',
      { 'cairn-space': 'doomed' },
    );
    expect(fresh.body.data).toEqual({
      documents: { totalCount: 0 },
      entities: { totalCount: 0 },
      graphStats: { entityCount: 0, relationshipCount: 0 },
      auditLog: { totalCount: 0 },
      importJobs: { totalCount: 0 },
      knowledgeGaps: { totalCount: 0 },
    });
    const reused = await as(
      keys.keep,
      'mutation { upsertGraph(input: { entities: [{ id: "ent:doomed-a", type: "Service", name: "Reused" }] }) { entities { id } } createDocument(input: { id: "doomed:1", title: "Reused", content: "Reused id." }) { document { id } } }',
    );
    expect(reused.body.errors).toBeUndefined();
  });
});

// A second process opens the same database beside the first: the Postgres server, with the Postgres graph store.
const restartRuns = runs.filter((r) => r.db.name === 'postgres' && !r.graph);

// The `neo4j` project's share of this suite is the Neo4j run of the describe above: it declares no restart run (a skip
// would report a test that never runs), the `parallel` project does.
for (const run of restartRuns)
  describe(`deleteSpace after a restart (${run.name})`, () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startRunServer(run);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('resumes a deletion a stopped process left, when another process starts', async () => {
      await t.services.spaces.create({ id: 'halted' });
      const key = (await t.services.apiKeys.create('halted-team', 'editor', { spaces: ['halted'] })).key;
      await fill(t, key, 'halted');
      // This process stops deleting (as a shutdown would) before it runs the deletion it was asked for.
      await t.services.spaceDeletions.stop();
      const pending = await t.services.spaceDeletions.request('halted');
      expect(pending.status).toBe('RUNNING');
      expect(Object.keys(await leftIn(t, 'halted')).length).toBeGreaterThan(5);

      // Another process on the same database (and graph store) takes it over when it starts.
      const other = await createServices(t.config, silentLogger(), {
        embedder: new HashingEmbeddingProvider({ dimensions: 256 }),
      });
      try {
        expect((await other.spaceDeletions.waitFor('halted'))?.status).toBe('SUCCEEDED');
      } finally {
        await other.close();
      }
      expect(await leftIn(t, 'halted')).toEqual({});
    });
  });
