import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { codeOf, gqlAs } from '../helpers/auth.js';
import { projectShare } from '../helpers/projects.js';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import type { TestServer } from '../helpers/testServer.js';

interface Entry {
  id: string;
  operation: string;
  targetIds: string[];
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  undoes: string | null;
  undoneBy: string | null;
  jobId: string | null;
}

const ENTRY = 'id operation targetIds before after undoes undoneBy jobId';

/** A small spec: an overview and one operation document, and Api/Operation entities. */
function spec(version: string, summary: string): string {
  return [
    'openapi: 3.0.0',
    `info: { title: Ledger API, version: "${version}" }`,
    'paths:',
    '  /entries:',
    '    get:',
    '      operationId: listEntries',
    `      summary: ${summary}`,
    '      responses: { "200": { description: the entries } }',
    '',
  ].join('\n');
}

const everyDatabaseRuns = projectShare(serverRuns({ everyDatabase: true }));

describe.each(everyDatabaseRuns)('undo of jobs, accept and audited merges ($name)', (run) => {
  let t: TestServer;
  let admin: string;
  let editor: string;

  const as = async <T>(key: string, query: string, variables?: Record<string, unknown>): Promise<T> => {
    const r = await gqlAs<T>(t.server.url, key, query, variables);
    if (r.body.errors) throw new Error(JSON.stringify(r.body.errors));
    return r.body.data as T;
  };
  const entries = async (filter: string): Promise<Entry[]> =>
    (
      await as<{ auditLog: { nodes: Entry[] } }>(
        admin,
        `{ auditLog(filter: ${filter}, first: 100) { nodes { ${ENTRY} } } }`,
      )
    ).auditLog.nodes;
  const importSpec = async (content: string) =>
    (
      await as<{ importOpenApi: { job: { id: string; status: string }; documents: { id: string }[] } }>(
        editor,
        'mutation($c: String!) { importOpenApi(input: { content: $c, specId: "ledger" }) { job { id status } documents { id } } }',
        { c: content },
      )
    ).importOpenApi;
  const undoJob = (id: string) =>
    gqlAs<{ undoImportJob: { jobId: string; undone: number; undos: Entry[] } }>(
      t.server.url,
      editor,
      `mutation($id: ID!) { undoImportJob(id: $id) { jobId undone undos { ${ENTRY} } } }`,
      { id },
    );
  const graphIds = async () =>
    (
      await as<{ entities: { nodes: { id: string }[] } }>(admin, '{ entities(first: 100) { nodes { id } } }')
    ).entities.nodes
      .map((n) => n.id)
      .sort();
  const documentIds = async () =>
    (
      await as<{ documents: { nodes: { id: string }[] } }>(admin, '{ documents(first: 100) { nodes { id } } }')
    ).documents.nodes
      .map((n) => n.id)
      .sort();

  beforeAll(async () => {
    t = await startRunServer(run);
    admin = (await t.services.apiKeys.create('admin-key', 'admin')).key;
    editor = (await t.services.apiKeys.create('editor-key', 'editor')).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('reverts everything an import job wrote, newest job first, and refuses after a later change', async () => {
    const docsBefore = await documentIds();
    const graphBefore = await graphIds();
    const first = await importSpec(spec('1', 'Lists ledger entries.'));
    expect(first.job.status).toBe('SUCCEEDED');
    const written = await entries(`{ jobId: "${first.job.id}" }`);
    expect(written.map((e) => e.operation)).toEqual(expect.arrayContaining(['createDocument', 'upsertGraph']));
    expect(written.every((e) => e.jobId === first.job.id)).toBe(true);
    const afterFirst = { docs: await documentIds(), graph: await graphIds() };
    expect(afterFirst.docs.length).toBeGreaterThan(docsBefore.length);
    expect(afterFirst.graph.length).toBeGreaterThan(graphBefore.length);

    // A second import changes what the first wrote: undoing it restores the first import's state.
    const second = await importSpec(spec('2', 'Lists every ledger entry, newest first.'));
    const changed = await as<{ documents: { nodes: { id: string }[] } }>(
      admin,
      '{ documents(filter: { text: "newest first" }, first: 5) { nodes { id } } }',
    );
    const operationDoc = changed.documents.nodes[0]?.id ?? '';
    expect(second.documents.map((d) => d.id)).toContain(operationDoc);
    const contentOf = async () =>
      (await as<{ document: { content: string } }>(admin, `{ document(id: "${operationDoc}") { content } }`)).document
        .content;
    expect(await contentOf()).toContain('newest first');

    // A person edits a document the second job wrote: the job cannot be undone until that edit is.
    await as(
      editor,
      `mutation { updateDocument(id: "${operationDoc}", input: { tags: ["hand-edited"] }) { document { id } } }`,
    );
    const refused = await undoJob(second.job.id);
    expect(codeOf(refused)).toBe('CONFLICT');
    expect(await contentOf()).toContain('newest first'); // nothing was reverted
    const [edit] = await entries(`{ targetId: "${operationDoc}", operation: "updateDocument" }`);
    expect(edit?.jobId).toBeNull();
    expect(
      codeOf(await gqlAs(t.server.url, editor, `mutation { undo(auditId: "${edit?.id}") { id } }`)),
    ).toBeUndefined();

    const undone = await undoJob(second.job.id);
    expect(codeOf(undone)).toBeUndefined();
    expect(undone.body.data?.undoImportJob.undone).toBeGreaterThan(0);
    expect(await contentOf()).not.toContain('newest first');
    expect(await contentOf()).toContain('Lists ledger entries.');
    expect({ docs: await documentIds(), graph: await graphIds() }).toEqual(afterFirst);
    expect(codeOf(await undoJob(second.job.id))).toBe('NOT_FOUND'); // nothing left to undo

    const undoneFirst = await undoJob(first.job.id);
    expect(codeOf(undoneFirst)).toBeUndefined();
    expect(await documentIds()).toEqual(docsBefore);
    expect(await graphIds()).toEqual(graphBefore);
    expect(codeOf(await gqlAs(t.server.url, editor, 'mutation { undoImportJob(id: "no-such-job") { undone } }'))).toBe(
      'NOT_FOUND',
    );
    const reader = (await t.services.apiKeys.create('reader-key', 'reader')).key;
    expect(
      codeOf(await gqlAs(t.server.url, reader, `mutation { undoImportJob(id: "${first.job.id}") { undone } }`)),
    ).toBe('FORBIDDEN');
  });

  it('undoes a bulk graph write: what it created goes, what it changed comes back', async () => {
    await as(
      editor,
      'mutation { createEntity(input: { id: "svc:kept", type: "Service", name: "Kept", description: "as it was" }) { id } }',
    );
    await as(
      editor,
      `mutation { upsertGraph(input: {
        entities: [{ id: "svc:kept", type: "Service", name: "Kept", description: "overwritten" }, { id: "svc:new", type: "Service", name: "New" }],
        relationships: [{ fromId: "svc:new", type: "CALLS", toId: "svc:kept" }] }) { entities { id } } }`,
    );
    const [bulk] = await entries('{ targetId: "svc:new" }');
    expect(bulk?.operation).toBe('upsertGraph');
    expect(
      codeOf(await gqlAs(t.server.url, editor, `mutation { undo(auditId: "${bulk?.id}") { id } }`)),
    ).toBeUndefined();
    const kept = await as<{ entity: { description: string; relationships: unknown[] } }>(
      admin,
      '{ entity(id: "svc:kept") { description relationships { id } } }',
    );
    expect(kept.entity).toEqual({ description: 'as it was', relationships: [] });
    expect((await as<{ entity: null }>(admin, '{ entity(id: "svc:new") { id } }')).entity).toBeNull();
  });

  it('accepts an extracted entity and relationship, and undo makes them extracted again', async () => {
    await t.services.graph.upsertGraph(
      [
        { id: 'x:ledger', type: 'Service', name: 'Ledger service' },
        { id: 'x:queue', type: 'Service', name: 'Ledger queue' },
      ],
      [{ fromId: 'x:ledger', type: 'READS', toId: 'x:queue' }],
      { origin: 'EXTRACTED' },
    );
    const accepted = await as<{ acceptEntity: { id: string; origin: string } }>(
      editor,
      'mutation { acceptEntity(id: "x:ledger") { id origin } }',
    );
    expect(accepted.acceptEntity.origin).toBe('MANUAL');
    const relId = (await t.services.graph.relationshipsOf('x:ledger', 'OUT'))[0]?.id ?? '';
    const rel = await as<{ acceptRelationship: { origin: string } }>(
      editor,
      `mutation { acceptRelationship(id: "${relId}") { origin } }`,
    );
    expect(rel.acceptRelationship.origin).toBe('MANUAL');
    // Accepting a curated fact changes nothing and records nothing.
    const count = (await entries('{ targetId: "x:ledger" }')).length;
    await as(editor, 'mutation { acceptEntity(id: "x:ledger") { id } }');
    expect((await entries('{ targetId: "x:ledger" }')).length).toBe(count);

    const [relEntry, entityEntry] = await entries('{ targetId: "x:ledger" }');
    expect(relEntry).toMatchObject({ operation: 'updateRelationship', before: { origin: 'EXTRACTED' } });
    expect(entityEntry).toMatchObject({
      operation: 'updateEntity',
      before: { origin: 'EXTRACTED' },
      after: { origin: 'MANUAL' },
    });
    expect(
      codeOf(await gqlAs(t.server.url, editor, `mutation { undo(auditId: "${relEntry?.id}") { id } }`)),
    ).toBeUndefined();
    expect(
      codeOf(await gqlAs(t.server.url, editor, `mutation { undo(auditId: "${entityEntry?.id}") { id } }`)),
    ).toBeUndefined();
    const back = await as<{ entity: { origin: string; relationships: { origin: string }[] } }>(
      admin,
      '{ entity(id: "x:ledger") { origin relationships(direction: OUT) { origin } } }',
    );
    expect(back.entity).toEqual({ origin: 'EXTRACTED', relationships: [{ origin: 'EXTRACTED' }] });
    expect(codeOf(await gqlAs(t.server.url, editor, 'mutation { acceptEntity(id: "x:missing") { id } }'))).toBe(
      'NOT_FOUND',
    );
  });

  it('rejects an extracted relationship (admins), audited, and undo writes it back', async () => {
    await t.services.graph.upsertGraph(
      [
        { id: 'x:broker', type: 'Service', name: 'Broker' },
        { id: 'x:sink', type: 'Service', name: 'Sink' },
      ],
      [{ fromId: 'x:broker', type: 'FEEDS', toId: 'x:sink', properties: { weight: 2 } }],
      { origin: 'EXTRACTED' },
    );
    await as(
      editor,
      'mutation { createRelationship(input: { fromId: "x:sink", type: "OWNS", toId: "x:broker" }) { id } }',
    );
    const rels = await t.services.graph.relationshipsOf('x:broker', 'BOTH');
    const feeds = rels.find((r) => r.type === 'FEEDS')?.id ?? '';
    const owns = rels.find((r) => r.type === 'OWNS')?.id ?? '';
    const reject = (key: string, id: string) =>
      gqlAs<{ rejectRelationship: { id: string; type: string } }>(
        t.server.url,
        key,
        'mutation($id: ID!) { rejectRelationship(id: $id) { id type } }',
        { id },
      );
    expect(codeOf(await reject(editor, feeds))).toBe('FORBIDDEN');
    const manual = await reject(admin, owns);
    expect(codeOf(manual)).toBe('BAD_USER_INPUT');
    expect(manual.body.errors?.[0]?.message).toContain('deleteRelationship');
    expect(codeOf(await reject(admin, 'rel:missing'))).toBe('NOT_FOUND');
    expect((await reject(admin, feeds)).body.data?.rejectRelationship).toEqual({ id: feeds, type: 'FEEDS' });

    const types = async () =>
      (
        await as<{ entity: { relationships: { type: string; origin: string }[] } }>(
          admin,
          '{ entity(id: "x:broker") { relationships { type origin } } }',
        )
      ).entity.relationships;
    expect(await types()).toEqual([{ type: 'OWNS', origin: 'MANUAL' }]);
    const [entry] = await entries(`{ targetId: "${feeds}" }`);
    expect(entry).toMatchObject({
      operation: 'rejectRelationship',
      targetIds: [feeds, 'x:broker', 'x:sink'],
      before: { type: 'FEEDS', origin: 'EXTRACTED', properties: { weight: 2 } },
      after: { rejected: { fromId: 'x:broker', type: 'FEEDS', toId: 'x:sink' } },
    });
    expect(
      codeOf(await gqlAs(t.server.url, editor, `mutation { undo(auditId: "${entry?.id}") { id } }`)),
    ).toBeUndefined();
    expect(await types()).toEqual(
      expect.arrayContaining([
        { type: 'OWNS', origin: 'MANUAL' },
        { type: 'FEEDS', origin: 'EXTRACTED' },
      ]),
    );
    const { rows } = await t.services.db.query('SELECT 1 FROM extraction_relationship_rejections');
    expect(rows).toEqual([]);
  });

  it('records a merge, and undo of that entry undoes the merge', async () => {
    await as(editor, 'mutation { createEntity(input: { id: "m:pay", type: "Service", name: "Payments" }) { id } }');
    await as(
      editor,
      'mutation { createEntity(input: { id: "m:pay2", type: "Service", name: "Payment service" }) { id } }',
    );
    await as(admin, 'mutation { mergeEntities(keepId: "m:pay", mergeId: "m:pay2") { id } }');
    const [merge, deleted] = await entries('{ targetId: "m:pay2" }');
    expect(merge).toMatchObject({ operation: 'mergeEntities', targetIds: ['m:pay', 'm:pay2'] });
    expect(deleted?.operation).toBe('deleteEntity');
    // The merge's own delete cannot be undone past the merge.
    expect(codeOf(await gqlAs(t.server.url, admin, `mutation { undo(auditId: "${deleted?.id}") { id } }`))).toBe(
      'CONFLICT',
    );
    expect(
      codeOf(await gqlAs(t.server.url, admin, `mutation { undo(auditId: "${merge?.id}") { id } }`)),
    ).toBeUndefined();
    const both = await as<{ a: { aliases: string[] }; b: { name: string } | null }>(
      admin,
      '{ a: entity(id: "m:pay") { aliases } b: entity(id: "m:pay2") { name } }',
    );
    expect(both).toEqual({ a: { aliases: [] }, b: { name: 'Payment service' } });
  });
});
