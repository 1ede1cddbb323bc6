import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projectShare } from '../helpers/projects.js';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import type { TestServer } from '../helpers/testServer.js';

interface EvidencePage {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  nodes: { quote: string; extractor: string; chunk: { id: string } | null; document: { id: string; title: string } }[];
}

const EVIDENCE = `totalCount pageInfo { hasNextPage endCursor }
  nodes { quote extractor confidence chunk { id content } document { id title } }`;

describe.each(projectShare(serverRuns()))('graph provenance and curation over GraphQL ($name)', (run) => {
  let t: TestServer;
  let chunkIds: string[];
  beforeAll(async () => {
    t = await startRunServer(run);
    const doc = await t.gql<{ createDocument: { document: { chunks: { id: string }[] } } }>(
      `mutation { createDocument(input: { id: "guide:hmr", title: "HMR guide", content: "Hot Module Replacement swaps modules.\\n\\nVite serves modules over native ESM." }) { document { chunks { id } } } }`,
    );
    chunkIds = doc.data!.createDocument.document.chunks.map((c) => c.id);
    // What the extraction pipeline writes: EXTRACTED facts and the rows that support them.
    await t.services.graph.upsertGraph(
      [
        { id: 'x:hmr', type: 'Concept', name: 'Hot Module Replacement' },
        { id: 'x:vite', type: 'Tool', name: 'Vite' },
        { id: 'x:esm', type: 'Concept', name: 'native ESM' },
      ],
      [{ fromId: 'x:vite', type: 'RELATED_TO', toId: 'x:esm' }],
      { origin: 'EXTRACTED' },
    );
    await t.services.graph.upsertGraph([{ id: 'i:api', type: 'Api', name: 'Vite API' }], [], { origin: 'IMPORTED' });
    const relId = (await t.services.graph.relationshipsOf('x:vite', 'OUT'))[0]!.id;
    const rows: [string, string | null, string, number][] = [
      ['e:x:vite', chunkIds[0] ?? null, 'Vite serves modules', 0.9],
      ['e:x:vite', null, 'HMR guide', 0.5],
      ['e:x:vite', chunkIds[0] ?? null, 'Vite', 0.7],
      ['e:x:esm', chunkIds[0] ?? null, 'over native ESM', 0.8],
      [`r:${relId}`, chunkIds[0] ?? null, 'Vite serves modules over native ESM', 0.6],
    ];
    for (const [i, [factKey, chunkId, quote, confidence]] of rows.entries()) {
      await t.services.db.query(
        `INSERT INTO extraction_evidence (fact_key, fact, document_id, chunk_id, extractor, quote, confidence)
         VALUES ($1, '{}'::jsonb, 'guide:hmr', $2, $3, $4, $5)`,
        [factKey, chunkId, i === 2 ? 'llm:stub:v1' : 'offline', quote, confidence],
      );
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const entityIds = async (filter: string) =>
    (
      await t.gql<{ entities: { nodes: { id: string }[] } }>(`{ entities(filter: ${filter}) { nodes { id } } }`)
    ).data!.entities.nodes.map((n) => n.id);

  it('shows origin on entities and relationships and filters entities and subgraphs by it', async () => {
    await t.gql(`mutation { createEntity(input: { id: "m:team", type: "Team", name: "Core Team" }) { id } }`);
    const res = await t.gql<{ entity: { origin: string; relationships: { origin: string }[] } }>(
      `{ entity(id: "x:vite") { origin relationships { origin } } }`,
    );
    expect(res.data!.entity).toEqual({ origin: 'EXTRACTED', relationships: [{ origin: 'EXTRACTED' }] });
    expect(await entityIds('{ origin: [EXTRACTED] }')).toEqual(['x:hmr', 'x:vite', 'x:esm']);
    expect(await entityIds('{ origin: [MANUAL, IMPORTED] }')).toEqual(['m:team', 'i:api']);
    expect(await entityIds('{ origin: [IMPORTED], nameContains: "vite" }')).toEqual(['i:api']);
    await t.gql(
      `mutation { createRelationship(input: { fromId: "x:vite", toId: "m:team", type: "OWNED_BY" }) { id } }`,
    );
    const sub = await t.gql<{ subgraph: { entities: { id: string }[]; relationships: { type: string }[] } }>(
      `{ subgraph(input: { entityIds: ["x:vite"], origin: [MANUAL] }) { entities { id } relationships { type } } }`,
    );
    expect(sub.data!.subgraph.entities.map((e) => e.id)).toEqual(['x:vite', 'm:team']);
    expect(sub.data!.subgraph.relationships.map((r) => r.type)).toEqual(['OWNED_BY']);
    const bad = await t.gql(`{ entities(filter: { origin: [GUESSED] }) { nodes { id } } }`);
    expect(bad.errors?.[0]?.message).toContain('GUESSED');
  });

  it('pages the evidence of entities and relationships, with chunks and documents', async () => {
    const first = await t.gql<{ entity: { evidence: EvidencePage } }>(
      `{ entity(id: "x:vite") { evidence(first: 2) { ${EVIDENCE} } } }`,
    );
    const page1 = first.data!.entity.evidence;
    expect(page1.totalCount).toBe(3);
    expect(page1.pageInfo.hasNextPage).toBe(true);
    expect(page1.nodes.map((n) => [n.quote, n.extractor, n.chunk?.id ?? null])).toEqual([
      ['Vite serves modules', 'offline', chunkIds[0]],
      ['Vite', 'llm:stub:v1', chunkIds[0]],
    ]);
    expect(page1.nodes[0]!.document).toEqual({ id: 'guide:hmr', title: 'HMR guide' });
    const second = await t.gql<{ entity: { evidence: EvidencePage } }>(
      `query($after: String) { entity(id: "x:vite") { evidence(first: 2, after: $after) { ${EVIDENCE} } } }`,
      { after: page1.pageInfo.endCursor },
    );
    const page2 = second.data!.entity.evidence;
    expect(page2.nodes.map((n) => [n.quote, n.chunk])).toEqual([['HMR guide', null]]);
    expect([page2.totalCount, page2.pageInfo.hasNextPage]).toEqual([3, false]);
    const rel = await t.gql<{ entity: { relationships: { evidence: EvidencePage }[] } }>(
      `{ entity(id: "x:esm") { relationships { evidence { ${EVIDENCE} } } } }`,
    );
    expect(rel.data!.entity.relationships[0]!.evidence.nodes.map((n) => n.quote)).toEqual([
      'Vite serves modules over native ESM',
    ]);
    const countOnly = await t.gql<{ entity: { evidence: { totalCount: number; nodes: unknown[] } } }>(
      `{ entity(id: "x:vite") { evidence(first: 0) { totalCount nodes { quote } } } }`,
    );
    expect(countOnly.data!.entity.evidence).toEqual({ totalCount: 3, nodes: [] });
    const manual = await t.gql<{ entity: { evidence: EvidencePage } }>(
      `{ entity(id: "m:team") { evidence { ${EVIDENCE} } } }`,
    );
    expect(manual.data!.entity.evidence.totalCount).toBe(0);
    const badCursor = await t.gql(`{ entity(id: "x:vite") { evidence(after: "nope") { totalCount } } }`);
    expect(badCursor.errors?.[0]?.extensions?.field).toBe('after');
  });

  it('makes an extracted entity MANUAL when a person updates it', async () => {
    const res = await t.gql<{ updateEntity: { origin: string } }>(
      `mutation { updateEntity(id: "x:hmr", input: { description: "curated" }) { origin } }`,
    );
    expect(res.data!.updateEntity.origin).toBe('MANUAL');
  });

  interface Snapshot {
    entity: {
      aliases: string[];
      relationships: { type: string; from: { id: string }; to: { id: string }; evidence: { totalCount: number } }[];
      documents: { id: string }[];
      evidence: { totalCount: number };
    } | null;
  }
  const SNAPSHOT = `aliases relationships { type from { id } to { id } evidence { totalCount } } documents { id }
    evidence { totalCount }`;
  const snapshot = async (id: string) =>
    (await t.gql<Snapshot>(`query($id: ID!) { entity(id: $id) { ${SNAPSHOT} } }`, { id })).data!.entity;

  it('merges an entity into another and undoes the merge', async () => {
    await t.gql(`mutation {
      k: createEntity(input: { id: "k:vite", type: "Tool", name: "Vite.js", aliases: ["vitejs"] }) { id }
      l: linkDocumentEntities(input: { documentId: "guide:hmr", entityIds: ["x:vite"] }) { id }
    }`);
    await t.services.outbox?.drain();
    const before = { keep: await snapshot('k:vite'), merged: await snapshot('x:vite') };
    expect(before.merged!.documents).toEqual([{ id: 'guide:hmr' }]);
    const merge = await t.gql<{
      mergeEntities: {
        id: string;
        keptId: string;
        mergedId: string;
        mergedName: string;
        kept: { aliases: string[] };
        undoneAt: null;
      };
    }>(
      `mutation { mergeEntities(keepId: "k:vite", mergeId: "x:vite") { id keptId mergedId mergedName kept { aliases } undoneAt } }`,
    );
    expect(merge.errors).toBeUndefined();
    const m = merge.data!.mergeEntities;
    expect(m).toEqual(
      expect.objectContaining({ keptId: 'k:vite', mergedId: 'x:vite', mergedName: 'Vite', undoneAt: null }),
    );
    expect(m.kept.aliases).toEqual(['vitejs', 'Vite']);
    expect(await snapshot('x:vite')).toBeNull();
    const kept = (await snapshot('k:vite'))!;
    expect(kept.evidence.totalCount).toBe(3);
    expect(kept.documents).toEqual([{ id: 'guide:hmr' }]);
    expect(kept.relationships.map((r) => [r.from.id, r.type, r.to.id, r.evidence.totalCount]).sort()).toEqual([
      ['k:vite', 'OWNED_BY', 'm:team', 0],
      ['k:vite', 'RELATED_TO', 'x:esm', 1],
    ]);

    const undo = await t.gql<{ undoMerge: { undoneAt: string | null } }>(
      `mutation($id: ID!) { undoMerge(mergeId: $id) { undoneAt } }`,
      { id: m.id },
    );
    expect(undo.errors).toBeUndefined();
    expect(undo.data!.undoMerge.undoneAt).not.toBeNull();
    await t.services.outbox?.drain();
    expect(await snapshot('x:vite')).toEqual(before.merged);
    expect(await snapshot('k:vite')).toEqual(before.keep);
    expect(
      (await t.gql<{ entity: { origin: string } }>(`{ entity(id: "x:vite") { origin } }`)).data!.entity.origin,
    ).toBe('EXTRACTED');
    const again = await t.gql(`mutation($id: ID!) { undoMerge(mergeId: $id) { id } }`, { id: m.id });
    expect(again.errors?.[0]?.extensions?.code).toBe('CONFLICT');
  });

  it('refuses to undo a merge once the kept entity changed, and checks its arguments', async () => {
    const merge = await t.gql<{ mergeEntities: { id: string } }>(
      `mutation { mergeEntities(keepId: "k:vite", mergeId: "x:vite") { id } }`,
    );
    await t.gql(`mutation { updateEntity(id: "k:vite", input: { description: "changed after the merge" }) { id } }`);
    const undo = await t.gql(`mutation($id: ID!) { undoMerge(mergeId: $id) { id } }`, {
      id: merge.data!.mergeEntities.id,
    });
    expect(undo.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    expect(undo.errors?.[0]?.message).toContain('k:vite');
    const self = await t.gql(`mutation { mergeEntities(keepId: "k:vite", mergeId: "k:vite") { id } }`);
    expect(self.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const missing = await t.gql(`mutation { mergeEntities(keepId: "k:vite", mergeId: "x:vite") { id } }`);
    expect(missing.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const unknown = await t.gql(`mutation { undoMerge(mergeId: "merge_nope") { id } }`);
    expect(unknown.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('rejects extracted entities only, remembering the normalised name', async () => {
    const manual = await t.gql(`mutation { rejectEntity(id: "m:team") { id } }`);
    expect(manual.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(manual.errors?.[0]?.message).toContain('deleteEntity');
    expect(await snapshot('m:team')).not.toBeNull();
    const res = await t.gql<{ rejectEntity: { id: string; deleted: boolean; rejectedName: string } }>(
      `mutation { rejectEntity(id: "x:esm") { id deleted rejectedName } }`,
    );
    expect(res.data!.rejectEntity).toEqual({ id: 'x:esm', deleted: true, rejectedName: 'native esm' });
    expect(await snapshot('x:esm')).toBeNull();
    const left = await t.services.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM extraction_evidence WHERE fact_key = 'e:x:esm' OR fact_key LIKE 'r:%'`,
    );
    expect(left.rows[0]!.n).toBe(0);
    const rejected = await t.services.db.query<{ name_key: string }>('SELECT name_key FROM extraction_rejections');
    expect(rejected.rows.map((r) => r.name_key)).toEqual(['native esm']);
  });
});
