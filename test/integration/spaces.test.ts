import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { codeOf, gqlAs, type GqlHttpResponse } from '../helpers/auth.js';
import { projectShare } from '../helpers/projects.js';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import type { TestServer } from '../helpers/testServer.js';

// Two spaces, a key bound to each and an admin key bound to every space: each key sees its own space only, and an id
// of the other space answers exactly as a missing one; on both databases and both graph stores.

const DOCUMENT = (id: string) => `{ document(id: "${id}") { id title content } }`;
const ENTITY = (id: string) => `{ entity(id: "${id}") { id name documents { id } } }`;

/** The answer with `id` replaced, so that answers about two ids can be compared. */
const withoutId = (res: GqlHttpResponse, id: string) => ({
  status: res.status,
  body: JSON.parse(JSON.stringify(res.body).split(id).join('<id>')) as unknown,
});

const everyDatabaseRuns = projectShare(serverRuns({ everyDatabase: true }));

describe.each(everyDatabaseRuns)('spaces ($name)', (run) => {
  let t: TestServer;
  const keys = { admin: '', ledger: '', vault: '' };
  const as = (key: string, query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) =>
    gqlAs<Record<string, never>>(t.server.url, key, query, variables, headers);

  beforeAll(async () => {
    t = await startRunServer(run);
    keys.admin = (await t.services.apiKeys.create('ops', 'admin')).key;
    const created = await as(
      keys.admin,
      'mutation { createSpace(input: { id: "payments", name: "Payments" }) { id } }',
    );
    expect(created.body.errors).toBeUndefined();
    const bind = async (name: string, spaces: string[]) => {
      const res = await as(
        keys.admin,
        'mutation($n: String!, $s: [ID!]) { createApiKey(input: { name: $n, role: EDITOR, spaces: $s }) { key apiKey { spaces } } }',
        { n: name, s: spaces },
      );
      const made = (res.body.data as unknown as { createApiKey: { key: string; apiKey: { spaces: string[] } } })
        .createApiKey;
      expect(made.apiKey.spaces).toEqual(spaces);
      return made.key;
    };
    keys.ledger = await bind('ledger-team', ['default']);
    keys.vault = await bind('vault-team', ['payments']);
    const write = async (key: string, doc: string, entities: string, relationship: string) => {
      const docRes = await as(key, `mutation { createDocument(input: ${doc}) { document { id } } }`);
      expect(docRes.body.errors).toBeUndefined();
      const graph = await as(
        key,
        `mutation { upsertGraph(input: { entities: ${entities}, relationships: [${relationship}] }) { entities { id } } }`,
      );
      expect(graph.body.errors).toBeUndefined();
    };
    await write(
      keys.ledger,
      '{ id: "doc:ledger", title: "Ledger retries", content: "The Ledger Service retries failed postings after a minute." }',
      '[{ id: "svc:ledger", type: "Service", name: "Ledger Service" }, { id: "svc:queue", type: "Service", name: "Posting Queue" }]',
      '{ fromId: "svc:ledger", toId: "svc:queue", type: "READS_FROM" }',
    );
    await write(
      keys.vault,
      '{ id: "doc:vault", title: "Vault rotation", content: "The Vault Broker rotates the confidential signing secrets nightly." }',
      '[{ id: "svc:vault", type: "Service", name: "Vault Broker" }, { id: "svc:hsm", type: "Service", name: "Signing HSM" }]',
      '{ fromId: "svc:vault", toId: "svc:hsm", type: "DEPENDS_ON" }',
    );
  });
  afterAll(() => t?.close());

  it('lists, counts and reads documents of the key’s space only', async () => {
    const list = '{ documents { totalCount nodes { id } } knowledgeStats { documentCount chunkCount } }';
    expect((await as(keys.ledger, list)).body.data).toEqual({
      documents: { totalCount: 1, nodes: [{ id: 'doc:ledger' }] },
      knowledgeStats: { documentCount: 1, chunkCount: 1 },
    });
    expect((await as(keys.vault, list)).body.data).toEqual({
      documents: { totalCount: 1, nodes: [{ id: 'doc:vault' }] },
      knowledgeStats: { documentCount: 1, chunkCount: 1 },
    });
    const own = await as(keys.vault, DOCUMENT('doc:vault'));
    expect(own.body.data).toEqual({ document: expect.objectContaining({ id: 'doc:vault' }) });
  });

  it('answers an id of another space exactly as a missing one', async () => {
    for (const [query, other, missing] of [
      [DOCUMENT, 'doc:vault', 'doc:nothing'],
      [ENTITY, 'svc:vault', 'svc:nothing'],
    ] as const) {
      const elsewhere = withoutId(await as(keys.ledger, query(other)), other);
      expect(elsewhere).toEqual(withoutId(await as(keys.ledger, query(missing)), missing));
      expect(elsewhere.body).toEqual({ data: { [query === DOCUMENT ? 'document' : 'entity']: null } });
    }
    const update = (id: string) =>
      `mutation { updateDocument(id: "${id}", input: { title: "mine" }) { document { id } } }`;
    const otherUpdate = withoutId(await as(keys.ledger, update('doc:vault')), 'doc:vault');
    expect(otherUpdate).toEqual(withoutId(await as(keys.ledger, update('doc:nothing')), 'doc:nothing'));
    expect(codeOf(otherUpdate.body as GqlHttpResponse['body'])).toBe('NOT_FOUND');
    const link = (to: string) =>
      `mutation { createRelationship(input: { fromId: "svc:ledger", toId: "${to}", type: "CALLS" }) { id } }`;
    const otherLink = withoutId(await as(keys.ledger, link('svc:vault')), 'svc:vault');
    expect(otherLink).toEqual(withoutId(await as(keys.ledger, link('svc:nothing')), 'svc:nothing'));
    expect((await as(keys.vault, DOCUMENT('doc:vault'))).body.data).toEqual({
      document: expect.objectContaining({ title: 'Vault rotation' }),
    });
  });

  it('searches and enriches within the key’s space, in both lanes', async () => {
    const search = '{ search(input: { query: "Vault Broker rotates signing secrets", topK: 10 }) { document { id } } }';
    const ledgerHits = (await as(keys.ledger, search)).body.data as unknown as {
      search: { document: { id: string } }[];
    };
    expect(ledgerHits.search.map((h) => h.document.id)).not.toContain('doc:vault');
    const vaultHits = (await as(keys.vault, search)).body.data as unknown as { search: { document: { id: string } }[] };
    expect(vaultHits.search.map((h) => h.document.id)).toContain('doc:vault');

    const enrich =
      '{ enrichContext(input: { query: "How does the Vault Broker rotate secrets?" }) { context entities { entity { id } } documents { id } } }';
    type Enriched = {
      enrichContext: { context: string; entities: { entity: { id: string } }[]; documents: { id: string }[] };
    };
    const ledger = (await as(keys.ledger, enrich)).body.data as unknown as Enriched;
    expect(ledger.enrichContext.context).not.toMatch(/Vault|HSM|signing/i);
    expect(ledger.enrichContext.entities.map((e) => e.entity.id)).toEqual(
      expect.not.arrayContaining(['svc:vault', 'svc:hsm']),
    );
    expect(ledger.enrichContext.documents.map((d) => d.id)).not.toContain('doc:vault');
    const vault = (await as(keys.vault, enrich)).body.data as unknown as Enriched;
    expect(vault.enrichContext.entities.map((e) => e.entity.id)).toContain('svc:vault');
    expect(vault.enrichContext.context).toContain('Vault Broker');
  });

  it('keeps the graph apart: entities, mentions, stats and traversal', async () => {
    const graph =
      '{ entities { totalCount nodes { id } } graphStats { entityCount relationshipCount } subgraph(input: { entityIds: ["svc:vault", "svc:ledger"] }) { entities { id } } }';
    const ledger = (await as(keys.ledger, graph)).body.data as unknown as Record<string, unknown>;
    expect(ledger).toEqual({
      entities: { totalCount: 2, nodes: [{ id: 'svc:ledger' }, { id: 'svc:queue' }] },
      graphStats: { entityCount: 2, relationshipCount: 1 },
      subgraph: { entities: expect.arrayContaining([{ id: 'svc:ledger' }, { id: 'svc:queue' }]) },
    });
    expect(JSON.stringify(ledger)).not.toContain('vault');
    // The document of the vault space names Vault Broker: it is linked there, and the name never links across spaces.
    const vaultEntity = await as(keys.vault, ENTITY('svc:vault'));
    expect(vaultEntity.body.data).toEqual({
      entity: { id: 'svc:vault', name: 'Vault Broker', documents: [{ id: 'doc:vault' }] },
    });
    const cross = await as(
      keys.ledger,
      'mutation { createDocument(input: { id: "doc:ledger2", title: "Notes", content: "Nobody here uses the Vault Broker." }) { document { id } } }',
    );
    expect(cross.body.errors).toBeUndefined();
    expect((await as(keys.vault, ENTITY('svc:vault'))).body.data).toEqual(vaultEntity.body.data);
  });

  it('refuses writes to ids another space holds, leaving them untouched', async () => {
    const taken = await as(
      keys.ledger,
      'mutation { createDocument(input: { id: "doc:vault", title: "Overwritten", content: "mine now" }) { document { id } } }',
    );
    expect(codeOf(taken)).toBe('CONFLICT');
    const entity = await as(
      keys.ledger,
      'mutation { createEntity(input: { id: "svc:vault", type: "Service", name: "Mine" }) { id } }',
    );
    expect(codeOf(entity)).toBe('CONFLICT');
    expect(
      (await as(keys.vault, '{ document(id: "doc:vault") { title } entity(id: "svc:vault") { name } }')).body.data,
    ).toEqual({ document: { title: 'Vault rotation' }, entity: { name: 'Vault Broker' } });
  });

  it('takes the space from the Cairn-Space header, within the key’s spaces only', async () => {
    const ids = '{ documents { nodes { id } } }';
    const forbidden = await as(keys.ledger, ids, undefined, { 'cairn-space': 'payments' });
    expect({ status: forbidden.status, code: codeOf(forbidden) }).toEqual({ status: 403, code: 'FORBIDDEN' });
    const unknown = await as(keys.ledger, ids, undefined, { 'cairn-space': 'no-such-space' });
    expect({ status: unknown.status, body: unknown.body }).toEqual({
      status: forbidden.status,
      body: expect.anything(),
    });
    expect(codeOf(unknown)).toBe('FORBIDDEN');
    const admin = await as(keys.admin, ids, undefined, { 'cairn-space': 'payments' });
    expect(admin.body.data).toEqual({ documents: { nodes: [{ id: 'doc:vault' }] } });
    const adminDefault = (await as(keys.admin, ids)).body.data as unknown as { documents: { nodes: { id: string }[] } };
    expect(adminDefault.documents.nodes.map((n) => n.id).sort()).toEqual(['doc:ledger', 'doc:ledger2']);
    const missing = await as(keys.admin, ids, undefined, { 'cairn-space': 'no-such-space' });
    expect({ status: missing.status, code: codeOf(missing) }).toEqual({ status: 404, code: 'NOT_FOUND' });
  });

  it('keeps knowledge gaps in the space that recorded them', async () => {
    const record = (key: string, query: string) =>
      as(key, 'mutation($q: String!) { recordKnowledgeGap(query: $q, bestScore: 0.1) }', { q: query });
    expect((await record(keys.vault, 'How is the HSM quorum reached?')).body.errors).toBeUndefined();
    expect((await record(keys.ledger, 'Where do postings go?')).body.errors).toBeUndefined();
    const gaps = '{ knowledgeGaps { totalCount edges { cursor node { query count } } } }';
    type Gaps = { knowledgeGaps: { totalCount: number; edges: { cursor: string; node: { query: string } }[] } };
    const vault = (await as(keys.vault, gaps)).body.data as unknown as Gaps;
    const ledger = (await as(keys.ledger, gaps)).body.data as unknown as Gaps;
    expect(vault.knowledgeGaps.edges.map((e) => e.node.query)).toEqual(['How is the HSM quorum reached?']);
    expect(ledger.knowledgeGaps.edges.map((e) => e.node.query)).not.toContain('How is the HSM quorum reached?');
    expect(JSON.stringify(ledger)).not.toContain('HSM');
    // A cursor of one space pages the other space's own gaps only.
    const after = vault.knowledgeGaps.edges[0]?.cursor as string;
    const paged = await as(keys.ledger, 'query($a: String) { knowledgeGaps(after: $a) { edges { node { query } } } }', {
      a: after,
    });
    expect(JSON.stringify(paged.body)).not.toContain('HSM');
  });

  it('answers another space’s audit entries as missing ones, and refuses widening a key', async () => {
    const { rows } = await t.services.db.query<{ id: string }>(
      "SELECT min(id)::text AS id FROM audit_log WHERE space_id = 'default'",
    );
    const ledgerEntry = rows[0]?.id as string;
    const undoOther = await as(keys.vault, `mutation { undo(auditId: "${ledgerEntry}") { id } }`);
    const undoMissing = await as(keys.vault, 'mutation { undo(auditId: "999999999") { id } }');
    // Quoted, so that the masks spare the error's line and column.
    const quoted = (res: GqlHttpResponse, id: string) =>
      JSON.stringify(res.body).split(`\\"${id}\\"`).join('<id>').split(`"${id}"`).join('<id>');
    expect(quoted(undoOther, ledgerEntry)).toEqual(quoted(undoMissing, '999999999'));
    expect(codeOf(undoOther)).toBe('NOT_FOUND');
    expect((await as(keys.vault, '{ importJobs { totalCount } }')).body).toEqual({
      data: { importJobs: { totalCount: 0 } },
    });
    const mcp = (key: string) =>
      fetch(`${t.server.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${key}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    expect((await mcp(keys.vault)).status).toBe(200);
    expect((await mcp(keys.admin)).status).toBe(200);
    const form = new FormData();
    form.append('file', new Blob(['# Note'], { type: 'text/markdown' }), 'note.md');
    const upload = await fetch(`${t.server.url}/v1/uploads`, {
      method: 'POST',
      body: form,
      headers: { 'apollo-require-preflight': 'true', authorization: `Bearer ${keys.vault}` },
    });
    expect(upload.status).toBe(201);
    expect((await as(keys.admin, '{ knowledgeGaps { totalCount } }')).body.errors).toBeUndefined();
    const spaces = (await as(keys.admin, '{ spaces { id name } }')).body.data;
    expect(spaces).toEqual({
      spaces: [
        { id: 'default', name: 'Default' },
        { id: 'payments', name: 'Payments' },
      ],
    });
    const unknownSpace = await as(
      keys.admin,
      'mutation { createApiKey(input: { name: "x", role: READER, spaces: ["nowhere"] }) { key } }',
    );
    expect(codeOf(unknownSpace)).toBe('BAD_USER_INPUT');
    const boundAdmin = (await t.services.apiKeys.create('payments-admin', 'admin', { spaces: ['payments'] })).key;
    const widen = (input: string) => as(boundAdmin, `mutation { createApiKey(input: ${input}) { key } }`);
    expect(codeOf(await widen('{ name: "w1", role: READER }'))).toBe('FORBIDDEN');
    expect(codeOf(await widen('{ name: "w2", role: READER, spaces: ["default"] }'))).toBe('FORBIDDEN');
    expect(codeOf(await widen('{ name: "w3", role: READER, spaces: ["payments"] }'))).toBeUndefined();
    expect(codeOf(await as(boundAdmin, 'mutation { createSpace(input: { id: "more" }) { id } }'))).toBe('FORBIDDEN');
    expect(codeOf(await as(boundAdmin, 'mutation { renameSpace(id: "payments", name: "x") { id } }'))).toBe(
      'FORBIDDEN',
    );
  });

  it('renames a space, keeping its id, keys and contents', async () => {
    const rename = (id: string, name: string) =>
      as(keys.admin, 'mutation($id: ID!, $n: String!) { renameSpace(id: $id, name: $n) { id name } }', { id, n: name });
    expect((await rename('payments', '  Payments and billing ')).body.data).toEqual({
      renameSpace: { id: 'payments', name: 'Payments and billing' },
    });
    expect(codeOf(await rename('nowhere', 'x'))).toBe('NOT_FOUND');
    expect(codeOf(await rename('payments', ' '))).toBe('BAD_USER_INPUT');
    expect(codeOf(await as(keys.vault, 'mutation { renameSpace(id: "payments", name: "x") { id } }'))).toBe(
      'FORBIDDEN',
    );
    const spaces = await as(keys.admin, '{ spaces { id name } }');
    expect(spaces.body.data).toEqual({
      spaces: [
        { id: 'default', name: 'Default' },
        { id: 'payments', name: 'Payments and billing' },
      ],
    });
    expect((await as(keys.vault, '{ documents { totalCount } }')).body.errors).toBeUndefined();
  });
});
