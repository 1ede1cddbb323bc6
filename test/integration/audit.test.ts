import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { codeOf, gqlAs } from '../helpers/auth.js';
import { connectHttp } from '../helpers/mcp.js';
import { projectShare } from '../helpers/projects.js';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import type { TestServer } from '../helpers/testServer.js';

interface Entry {
  id: string;
  operation: string;
  targetIds: string[];
  actor: { keyId: string | null; name: string };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  undoes: string | null;
  undoneBy: string | null;
}

const ENTRY = 'id operation targetIds actor { keyId name } before after undoes undoneBy';

const everyDatabaseRuns = projectShare(serverRuns({ everyDatabase: true }));

describe.each(everyDatabaseRuns)('audit log and undo ($name)', (run) => {
  let t: TestServer;
  let admin: string;
  let editor: string;
  let editorId: string;

  const as = async <T>(key: string, query: string, variables?: Record<string, unknown>): Promise<T> => {
    const r = await gqlAs<T>(t.server.url, key, query, variables);
    if (r.body.errors) throw new Error(JSON.stringify(r.body.errors));
    return r.body.data as T;
  };
  const entriesFor = async (targetId: string): Promise<Entry[]> =>
    (
      await as<{ auditLog: { nodes: Entry[] } }>(
        admin,
        `query($t: ID!) { auditLog(filter: { targetId: $t }, first: 50) { nodes { ${ENTRY} } } }`,
        { t: targetId },
      )
    ).auditLog.nodes;
  const undo = (key: string, auditId: string) =>
    gqlAs<{ undo: Entry }>(t.server.url, key, `mutation($a: ID!) { undo(auditId: $a) { ${ENTRY} } }`, { a: auditId });

  beforeAll(async () => {
    t = await startRunServer(run);
    admin = (await t.services.apiKeys.create('admin-key', 'admin')).key;
    const created = await t.services.apiKeys.create('editor-key', 'editor');
    editor = created.key;
    editorId = created.apiKey.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('records who changed a document and what, and undoes an update and a delete', async () => {
    await as(
      editor,
      `mutation { createDocument(input: { id: "doc:runbook", title: "Runbook", content: "Restart the payments worker with cairnctl restart.", documentType: MANUAL, tags: ["ops"] }) { document { id } } }`,
    );
    await as(
      editor,
      `mutation { updateDocument(id: "doc:runbook", input: { title: "Payments runbook", content: "Drain the queue, then restart the payments worker." }) { document { id } } }`,
    );
    const [update, create] = await entriesFor('doc:runbook');
    expect(create).toMatchObject({ operation: 'createDocument', actor: { keyId: editorId, name: 'editor-key' } });
    expect(create?.before).toBeNull();
    expect(update).toMatchObject({
      operation: 'updateDocument',
      before: { title: 'Runbook', content: 'Restart the payments worker with cairnctl restart.' },
      after: { title: 'Payments runbook' },
    });
    // Unchanged fields stay out of the entry, and the new content is a summary, not the text.
    expect(Object.keys(update?.before ?? {}).sort()).toEqual(['content', 'title']);
    expect(update?.after).not.toHaveProperty('content');

    const undone = await undo(editor, update?.id ?? '');
    expect(codeOf(undone)).toBeUndefined();
    expect(undone.body.data?.undo).toMatchObject({ operation: 'undo', undoes: update?.id });
    const doc = (await t.services.documents.withChunks('doc:runbook'))?.document;
    expect(doc).toMatchObject({ title: 'Runbook', content: 'Restart the payments worker with cairnctl restart.' });
    expect(codeOf(await undo(editor, update?.id ?? ''))).toBe('CONFLICT'); // once only

    await as(admin, 'mutation { deleteDocument(id: "doc:runbook") { deleted } }');
    const [deleted] = await entriesFor('doc:runbook');
    expect(deleted).toMatchObject({ operation: 'deleteDocument', after: null, actor: { name: 'admin-key' } });
    expect(codeOf(await undo(admin, deleted?.id ?? ''))).toBeUndefined();
    // The document is back with its chunks: search finds it.
    const hits = await t.services.search.hits({ query: 'cairnctl restart', topK: 1, filter: {}, mode: 'HYBRID' });
    expect(hits[0]?.document.id).toBe('doc:runbook');
    expect((await t.services.documents.withChunks('doc:runbook'))?.document?.tags).toEqual(['ops']);
  });

  it('refuses an undo that a later change would lose, and one of an undo', async () => {
    await as(editor, 'mutation { createEntity(input: { id: "svc:ledger", type: "Service", name: "Ledger" }) { id } }');
    await as(
      editor,
      'mutation { updateEntity(id: "svc:ledger", input: { description: "Books every payment." }) { id } }',
    );
    await as(editor, 'mutation { updateEntity(id: "svc:ledger", input: { aliases: ["GL"] }) { id } }');
    const [second, first] = await entriesFor('svc:ledger');
    const refused = await undo(editor, first?.id ?? '');
    expect(codeOf(refused)).toBe('CONFLICT');
    expect(refused.body.errors?.[0]?.message).toContain(`entry ${second?.id}`);
    expect(codeOf(await undo(editor, second?.id ?? ''))).toBeUndefined();
    expect((await t.services.graph.entitiesByIds(['svc:ledger']))[0]?.aliases).toEqual([]);

    await as(
      editor,
      'mutation { upsertGraph(input: { entities: [{ id: "svc:bulk", type: "Service", name: "Bulk" }] }) { entities { id } } }',
    );
    const [bulk] = await entriesFor('svc:bulk');
    expect(bulk?.operation).toBe('upsertGraph');
    const undoneBulk = await undo(editor, bulk?.id ?? '');
    expect(codeOf(undoneBulk)).toBeUndefined();
    expect(await t.services.graph.entitiesByIds(['svc:bulk'])).toEqual([]);
    expect(codeOf(await undo(editor, undoneBulk.body.data?.undo.id ?? ''))).toBe('BAD_USER_INPUT');
    expect(codeOf(await undo(editor, '123456789'))).toBe('NOT_FOUND');
  });

  it('brings a deleted entity back with its relationships', async () => {
    await as(
      editor,
      'mutation { createEntity(input: { id: "svc:api", type: "Service", name: "Payments API" }) { id } }',
    );
    await as(editor, 'mutation { createEntity(input: { id: "svc:db", type: "Service", name: "Payments DB" }) { id } }');
    await as(
      editor,
      'mutation { createRelationship(input: { fromId: "svc:api", type: "DEPENDS_ON", toId: "svc:db" }) { id } }',
    );
    await as(admin, 'mutation { deleteEntity(id: "svc:db") { deleted } }');
    const [deleted] = await entriesFor('svc:db');
    expect(deleted?.operation).toBe('deleteEntity');
    expect(codeOf(await undo(admin, deleted?.id ?? ''))).toBeUndefined();
    const out = await as<{ entity: { relationships: { type: string; to: { id: string } }[] } }>(
      admin,
      '{ entity(id: "svc:api") { relationships(direction: OUT) { type to { id } } } }',
    );
    expect(out.entity.relationships).toEqual([{ type: 'DEPENDS_ON', to: { id: 'svc:db' } }]);
    const [undoEntry] = await entriesFor('svc:db');
    expect(undoEntry).toMatchObject({ operation: 'undo', undoes: deleted?.id });
  });

  it('records an MCP tool call against its key, and work without a request as local', async () => {
    const client = await connectHttp(t.server.url, editor);
    try {
      const result = await client.callTool({
        name: 'create_document',
        arguments: { id: 'doc:mcp-note', title: 'MCP note', content: 'Written by an agent through MCP.' },
      });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const [entry] = await entriesFor('doc:mcp-note');
    expect(entry).toMatchObject({ operation: 'createDocument', actor: { keyId: editorId, name: 'editor-key' } });
    await t.services.documents.delete('doc:mcp-note'); // as the CLI would: no request, no key
    const [deleted] = await entriesFor('doc:mcp-note');
    expect(deleted).toMatchObject({ operation: 'deleteDocument', actor: { keyId: null, name: 'local' } });
  });

  it('is for admins to read, pages newest first and filters by actor', async () => {
    expect(codeOf(await gqlAs(t.server.url, editor, '{ auditLog { totalCount } }'))).toBe('FORBIDDEN');
    const all = await as<{ auditLog: { totalCount: number } }>(admin, '{ auditLog { totalCount } }');
    const page = await as<{ auditLog: { nodes: Entry[]; pageInfo: { endCursor: string; hasNextPage: boolean } } }>(
      admin,
      `{ auditLog(first: 2, filter: { actor: "${editorId}" }) { nodes { ${ENTRY} } pageInfo { endCursor hasNextPage } } }`,
    );
    expect(page.auditLog.nodes).toHaveLength(2);
    expect(page.auditLog.nodes.every((n) => n.actor.keyId === editorId)).toBe(true);
    expect(Number(page.auditLog.nodes[0]?.id)).toBeGreaterThan(Number(page.auditLog.nodes[1]?.id));
    const next = await as<{ auditLog: { nodes: Entry[] } }>(
      admin,
      `query($a: String) { auditLog(first: 2, after: $a, filter: { actor: "${editorId}" }) { nodes { id } } }`,
      { a: page.auditLog.pageInfo.endCursor },
    );
    expect(Number(next.auditLog.nodes[0]?.id)).toBeLessThan(Number(page.auditLog.nodes[1]?.id));
    expect(all.auditLog.totalCount).toBeGreaterThan(5);
    expect(codeOf(await gqlAs(t.server.url, admin, '{ auditLog(after: "nonsense") { totalCount } }'))).toBe(
      'BAD_USER_INPUT',
    );
  });

  it('keeps entries for the retention only', async () => {
    const kept = await t.services.audit.sweep(new Date());
    expect(kept).toBe(0);
    const later = new Date(Date.now() + 91 * 86_400_000); // the default retention is 90 days
    expect(await t.services.audit.sweep(later)).toBeGreaterThan(0);
    const left = await as<{ auditLog: { totalCount: number } }>(admin, '{ auditLog { totalCount } }');
    expect(left.auditLog.totalCount).toBe(0);
  });
});
