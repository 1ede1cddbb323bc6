import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projectShare } from '../helpers/projects.js';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import { countStatements } from '../helpers/statementCounter.js';
import type { TestServer } from '../helpers/testServer.js';

const ENTITY_FIELDS = 'id type name aliases description properties';

describe.each(projectShare(serverRuns()))('knowledge graph over GraphQL ($name)', (run) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startRunServer(run);
  });
  afterAll(async () => {
    await t?.close();
  });

  const drainOutbox = async () => {
    await t.services.outbox?.drain();
  };

  it('creates entities and relationships, and validates types and endpoints', async () => {
    const res = await t.gql(`mutation {
      a: createEntity(input: { id: "svc:payments", type: "Service", name: "Payment Service", aliases: ["payments-api"], properties: { tier: 1 } }) { ${ENTITY_FIELDS} }
      b: createEntity(input: { id: "sys:ledger", type: "System", name: "Ledger" }) { id }
      c: createEntity(input: { id: "team:core", type: "Team", name: "Core Team" }) { id }
    }`);
    expect(res.errors).toBeUndefined();
    expect(res.data!.a).toEqual({
      id: 'svc:payments',
      type: 'Service',
      name: 'Payment Service',
      aliases: ['payments-api'],
      description: null,
      properties: { tier: 1 },
    });
    const rel = await t.gql<{ createRelationship: { type: string; from: { id: string }; to: { name: string } } }>(
      `mutation { createRelationship(input: { fromId: "svc:payments", toId: "sys:ledger", type: "DEPENDS_ON" }) { id type from { id } to { name } } }`,
    );
    expect(rel.data!.createRelationship).toEqual(
      expect.objectContaining({ type: 'DEPENDS_ON', from: { id: 'svc:payments' }, to: { name: 'Ledger' } }),
    );

    const missing = await t.gql(
      `mutation { createRelationship(input: { fromId: "svc:payments", toId: "ghost", type: "DEPENDS_ON" }) { id } }`,
    );
    expect(missing.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(missing.errors?.[0]?.message).toContain('ghost');
    const badType = await t.gql(`mutation { createEntity(input: { type: "service", name: "x" }) { id } }`);
    expect(badType.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const badRel = await t.gql(
      `mutation { createRelationship(input: { fromId: "svc:payments", toId: "sys:ledger", type: "depends-on" }) { id } }`,
    );
    expect(badRel.errors?.[0]?.message).toContain('UPPER_SNAKE');
    const dup = await t.gql(
      `mutation { createEntity(input: { id: "sys:ledger", type: "System", name: "Ledger" }) { id } }`,
    );
    expect(dup.errors?.[0]?.extensions?.code).toBe('CONFLICT');
  });

  it('upsertGraph is repeatable and writes nothing when an endpoint is missing', async () => {
    const input = {
      entities: [
        { id: 'svc:fraud', type: 'Service', name: 'Fraud Checker' },
        { id: 'proc:ach', type: 'Process', name: 'ACH Processing', aliases: ['ACH'] },
      ],
      relationships: [
        { fromId: 'proc:ach', toId: 'svc:payments', type: 'HANDLED_BY' },
        { fromId: 'svc:payments', toId: 'svc:fraud', type: 'CALLS' },
      ],
    };
    const q = `mutation($input: UpsertGraphInput!) { upsertGraph(input: $input) { entities { id } relationships { id type } } }`;
    const first = await t.gql<{ upsertGraph: { relationships: { id: string }[] } }>(q, { input });
    expect(first.errors).toBeUndefined();
    const second = await t.gql<{ upsertGraph: { relationships: { id: string }[] } }>(q, { input });
    expect(second.data!.upsertGraph.relationships).toEqual(first.data!.upsertGraph.relationships);
    const bad = await t.gql(q, {
      input: {
        entities: [{ id: 'svc:new', type: 'Service', name: 'New' }],
        relationships: [{ fromId: 'svc:new', toId: 'nowhere', type: 'CALLS' }],
      },
    });
    expect(bad.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect((await t.gql<{ entity: unknown }>(`{ entity(id: "svc:new") { id } }`)).data!.entity).toBeNull();
  });

  it('upsertGraph rejects repeated ids and text Postgres cannot store before writing anything', async () => {
    const q = `mutation($input: UpsertGraphInput!) { upsertGraph(input: $input) { entities { id } } }`;
    const twice = await t.gql(q, {
      input: {
        entities: [
          { id: 'dup:z', type: 'Thing', name: 'Zanzibar Gateway' },
          { id: 'dup:z', type: 'Thing', name: 'Zanzibar' },
        ],
        relationships: [],
      },
    });
    expect(twice.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(twice.errors?.[0]?.extensions?.field).toBe('input.entities[1]');
    expect(twice.errors?.[0]?.message).toContain('input.entities[0]');
    const sameEdge = { fromId: 'svc:payments', toId: 'sys:ledger', type: 'FEEDS' };
    const edgeTwice = await t.gql(q, {
      input: { entities: [{ id: 'dup:y', type: 'Thing', name: 'Y' }], relationships: [sameEdge, sameEdge] },
    });
    expect(edgeTwice.errors?.[0]?.extensions?.field).toBe('input.relationships[1]');
    expect(edgeTwice.errors?.[0]?.message).toContain('svc:payments -[FEEDS]-> sys:ledger');
    const nul = await t.gql(q, {
      input: {
        entities: [{ id: 'nul:a', type: 'Thing', name: 'Quux' }],
        relationships: [{ fromId: 'nul:a', toId: 'sys:ledger', type: 'R', properties: { a: 'x\u0000' } }],
      },
    });
    expect(nul.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(nul.errors?.[0]?.extensions?.field).toBe('input.relationships[0].properties.a');
    const surrogate = await t.gql(
      `mutation($name: String!) { createEntity(input: { type: "Thing", name: $name }) { id } }`,
      { name: 'bad \ud800 name' },
    );
    expect(surrogate.errors?.[0]?.extensions?.field).toBe('input.name');
    const found = await t.gql<{ a: unknown; b: unknown; c: unknown }>(
      `{ a: entity(id: "dup:z") { id } b: entity(id: "dup:y") { id } c: entity(id: "nul:a") { id } }`,
    );
    expect(found.data).toEqual({ a: null, b: null, c: null });
  });

  it('links documents that name an entity, backfills on create, and takes explicit links', async () => {
    const doc = await t.gql(
      `mutation { createDocument(input: { id: "rb:1", title: "Runbook", content: "When the payment service fails, check the ledger. The payments-api logs show ACH errors; achievements unrelated." }) { document { id entities { id } } } }`,
    );
    expect(doc.errors).toBeUndefined();
    await drainOutbox();
    const ids = (x: { id: string }[]) => x.map((e) => e.id).sort();
    const linked = await t.gql<{ document: { entities: { id: string }[] } }>(
      `{ document(id: "rb:1") { entities { id } } }`,
    );
    expect(ids(linked.data!.document.entities)).toEqual(['proc:ach', 'svc:payments', 'sys:ledger']);

    // A new entity is linked to chunks that already exist.
    await t.gql(`mutation { createEntity(input: { id: "con:logs", type: "Concept", name: "Logs" }) { id } }`);
    const back = await t.gql<{ entity: { documents: { id: string }[] } }>(
      `{ entity(id: "con:logs") { documents { id } } }`,
    );
    expect(back.data!.entity.documents.map((d) => d.id)).toEqual(['rb:1']);

    await t.gql(
      `mutation { createDocument(input: { id: "note:1", title: "Note", content: "unrelated words", entityIds: ["team:core"] }) { document { id } } }`,
    );
    await t.gql(`mutation { linkDocumentEntities(input: { documentId: "note:1", entityIds: ["sys:ledger"] }) { id } }`);
    const team = await t.gql<{ entity: { documents: { id: string }[] } }>(
      `{ entity(id: "team:core") { documents { id } } }`,
    );
    expect(team.data!.entity.documents.map((d) => d.id)).toEqual(['note:1']);
    const bad = await t.gql(
      `mutation { createDocument(input: { title: "x", content: "y", entityIds: ["nope"] }) { document { id } } }`,
    );
    expect(bad.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('traverses neighbours, subgraphs and shortest paths', async () => {
    const res = await t.gql<{
      entity: {
        neighbors: { depth: number; entity: { id: string }; relationship: { type: string } }[];
        relationships: { type: string }[];
      };
    }>(
      `{ entity(id: "proc:ach") { neighbors(depth: 2, direction: OUT) { depth entity { id } relationship { type } } relationships(direction: OUT) { type } } }`,
    );
    expect(res.data!.entity.neighbors.map((n) => [n.entity.id, n.depth, n.relationship.type])).toEqual([
      ['svc:payments', 1, 'HANDLED_BY'],
      ['svc:fraud', 2, 'CALLS'],
      ['sys:ledger', 2, 'DEPENDS_ON'],
    ]);
    expect(res.data!.entity.relationships.map((r) => r.type)).toEqual(['HANDLED_BY']);
    const sg = await t.gql<{ subgraph: { entities: { id: string }[]; relationships: unknown[]; truncated: boolean } }>(
      `{ subgraph(input: { entityIds: ["svc:payments"], depth: 1, limit: 3 }) { entities { id } relationships { id } truncated } }`,
    );
    expect(sg.data!.subgraph.entities[0]!.id).toBe('svc:payments');
    expect(sg.data!.subgraph.truncated).toBe(true);
    const path = await t.gql<{ shortestPath: { entities: { id: string }[] } | null }>(
      `{ shortestPath(fromId: "proc:ach", toId: "sys:ledger") { entities { id } relationships { type } } }`,
    );
    expect(path.data!.shortestPath!.entities.map((e) => e.id)).toEqual(['proc:ach', 'svc:payments', 'sys:ledger']);
    const none = await t.gql<{ shortestPath: unknown }>(
      `{ shortestPath(fromId: "proc:ach", toId: "team:core") { entities { id } } }`,
    );
    expect(none.data!.shortestPath).toBeNull();
    const tooDeep = await t.gql(`{ entity(id: "proc:ach") { neighbors(depth: 4) { depth } } }`);
    expect(tooDeep.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('applies the graph read limits in GraphService, with the same messages through GraphQL', async () => {
    const tooMany = Array.from({ length: 101 }, (_, i) => `e:${i}`);
    const cases: [string[], number | undefined, number | undefined, string][] = [
      [[], undefined, undefined, 'input.entityIds: give 1 to 100 ids'],
      [tooMany, undefined, undefined, 'input.entityIds: give 1 to 100 ids'],
      [['svc:payments'], 4, undefined, 'input.depth: must be an integer from 1 to 3'],
      [['svc:payments'], 0, undefined, 'input.depth: must be an integer from 1 to 3'],
      [['svc:payments'], 1, 2001, 'input.limit: must be an integer from 1 to 2000'],
    ];
    for (const [ids, depth, limit, message] of cases) {
      await expect(t.services.graph.subgraph(ids, depth, limit)).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        message,
      });
      const res = await t.gql(`query($input: SubgraphInput!) { subgraph(input: $input) { truncated } }`, {
        input: { entityIds: ids, depth, limit },
      });
      expect(res.errors?.[0]).toMatchObject({ message, extensions: { code: 'BAD_USER_INPUT' } });
    }
    await expect(t.services.graph.subgraph(tooMany.slice(0, 100), 3, 2000)).resolves.toHaveProperty('entities');
    await expect(t.services.graph.shortestPath('proc:ach', 'sys:ledger', 7)).rejects.toMatchObject({
      message: 'maxDepth: must be an integer from 1 to 6',
    });
    // Arguments are checked before existence: a bad depth on an unknown entity is the caller's input error.
    await expect(t.services.graph.neighbors('svc:nope', { depth: 4 }, { mustExist: true })).rejects.toMatchObject({
      message: 'depth: must be an integer from 1 to 3',
    });
    await expect(t.services.graph.neighbors('svc:nope', {}, { mustExist: true })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await t.services.graph.neighbors('svc:nope', {})).toEqual([]);
  });

  it('lists entities as a connection and reports graph stats', async () => {
    const page = await t.gql<{
      entities: { totalCount: number; nodes: { id: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string } };
    }>(
      `{ entities(filter: { types: ["Service"] }, first: 1) { totalCount nodes { id } pageInfo { hasNextPage endCursor } } }`,
    );
    expect(page.data!.entities.totalCount).toBe(2);
    const next = await t.gql<{ entities: { nodes: { id: string }[] } }>(
      `query($a: String) { entities(filter: { types: ["Service"] }, first: 5, after: $a) { nodes { id } } }`,
      { a: page.data!.entities.pageInfo.endCursor },
    );
    expect([...page.data!.entities.nodes, ...next.data!.entities.nodes].map((n) => n.id)).toEqual([
      'svc:fraud',
      'svc:payments',
    ]);
    const byName = await t.gql<{ entities: { nodes: { id: string }[] } }>(
      `{ entities(filter: { nameContains: "ach" }) { nodes { id } } }`,
    );
    expect(byName.data!.entities.nodes.map((n) => n.id)).toEqual(['proc:ach']);
    await drainOutbox();
    const stats = await t.gql<{
      graphStats: {
        entityCount: number;
        relationshipCount: number;
        orphanCount: number;
        outboxBacklog: number;
        topDegree: { entity: { id: string }; degree: number }[];
      };
    }>(
      `{ graphStats { entityCount relationshipCount orphanCount outboxBacklog byType { key count } topDegree { entity { id } degree } } }`,
    );
    expect(stats.data!.graphStats).toEqual(
      expect.objectContaining({ entityCount: 6, relationshipCount: 3, orphanCount: 2, outboxBacklog: 0 }),
    );
    expect(stats.data!.graphStats.topDegree[0]).toEqual({ entity: { id: 'svc:payments' }, degree: 3 });
  });

  it('filters entities by relationships and mentioning documents, and counts gaps in graphStats', async () => {
    type Page = {
      entities: { totalCount: number; nodes: { id: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string } };
    };
    const q = `query($f: EntityFilter, $first: Int, $after: String) { entities(filter: $f, first: $first, after: $after) { totalCount nodes { id } pageInfo { hasNextPage endCursor } } }`;
    const list = async (f: Record<string, unknown>, first = 10, after?: string) => {
      const res = await t.gql<Page>(q, { f, first, after });
      expect(res.errors).toBeUndefined();
      return res.data!.entities;
    };
    const stats = async () =>
      (
        await t.gql<{
          graphStats: { unmentionedCount: number; relationshipsByType: { key: string; count: number }[] };
        }>(`{ graphStats { unmentionedCount relationshipsByType { key count } } }`)
      ).data!.graphStats;

    // Orphans "Core Team" and "Logs", one per page.
    const lone1 = await list({ hasRelationships: false }, 1);
    expect([lone1.nodes.map((n) => n.id), lone1.totalCount, lone1.pageInfo.hasNextPage]).toEqual([
      ['team:core'],
      2,
      true,
    ]);
    const lone2 = await list({ hasRelationships: false }, 1, lone1.pageInfo.endCursor);
    expect([lone2.nodes.map((n) => n.id), lone2.totalCount, lone2.pageInfo.hasNextPage]).toEqual([
      ['con:logs'],
      2,
      false,
    ]);
    expect((await list({ hasRelationships: true })).totalCount).toBe(4);
    expect((await list({ hasRelationships: null, hasDocuments: null })).totalCount).toBe(6);

    // Only the fraud checker is named by no document; a mention by a document that then expires does not count.
    expect((await list({ hasDocuments: false })).nodes.map((n) => n.id)).toEqual(['svc:fraud']);
    expect((await list({ hasDocuments: true, types: ['Service'] })).nodes.map((n) => n.id)).toEqual(['svc:payments']);
    await t.gql(
      `mutation($at: DateTime) { createDocument(input: { id: "memo:1", title: "Memo", content: "The fraud checker flagged it.", expiresAt: $at }) { document { id } } }`,
      { at: new Date(Date.now() + 3_600_000).toISOString() },
    );
    await drainOutbox();
    expect((await list({ hasDocuments: false })).totalCount).toBe(0);
    expect((await stats()).unmentionedCount).toBe(0);
    await t.services.db.query(`UPDATE documents SET expires_at = now() - interval '1 second' WHERE id = 'memo:1'`);
    expect((await list({ hasDocuments: false })).nodes.map((n) => n.id)).toEqual(['svc:fraud']);
    expect(await stats()).toEqual({
      unmentionedCount: 1,
      relationshipsByType: [
        { key: 'CALLS', count: 1 },
        { key: 'DEPENDS_ON', count: 1 },
        { key: 'HANDLED_BY', count: 1 },
      ],
    });
  });

  it('loads 50 entities with their documents in a bounded number of round trips', async () => {
    const entities = Array.from({ length: 50 }, (_, i) => ({ id: `bulk:${i}`, type: 'Concept', name: `Bulkword${i}` }));
    await t.gql(`mutation($input: UpsertGraphInput!) { upsertGraph(input: $input) { entities { id } } }`, {
      input: { entities },
    });
    await t.gql(`mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { changed } }`, {
      input: Array.from({ length: 10 }, (_, i) => ({
        id: `bulkdoc:${i}`,
        title: `Doc ${i}`,
        content: entities
          .slice(i * 5, i * 5 + 5)
          .map((e) => e.name)
          .join(' and '),
      })),
    });
    const { value: res, statements } = await countStatements(() =>
      t.gql<{ entities: { nodes: { documents: { id: string }[] }[] } }>(
        `{ entities(filter: { nameContains: "bulkword" }, first: 50) { nodes { id documents { id title chunkCount } } } }`,
      ),
    );
    expect(res.data!.entities.nodes).toHaveLength(50);
    expect(res.data!.entities.nodes.every((n) => n.documents.length === 1)).toBe(true);
    // The page and its total (which the Neo4j store reads from Neo4j), then one batched read each: the entities'
    // documents, those documents' rows and their chunk counts. A statement per entity would add 50.
    expect(statements).toBeLessThanOrEqual(5);
  });

  it('deleting a document removes its mentions; deleting an entity detaches it', async () => {
    await t.gql(`mutation { deleteDocument(id: "rb:1") { deleted } }`);
    const logs = await t.gql<{ entity: { documents: unknown[] } }>(`{ entity(id: "con:logs") { documents { id } } }`);
    expect(logs.data!.entity.documents).toEqual([]);
    const del = await t.gql<{ deleteEntity: { deleted: boolean } }>(
      `mutation { deleteEntity(id: "svc:payments") { deleted } }`,
    );
    expect(del.data!.deleteEntity.deleted).toBe(true);
    const ach = await t.gql<{ entity: { relationships: unknown[] } }>(
      `{ entity(id: "proc:ach") { relationships { id } } }`,
    );
    expect(ach.data!.entity.relationships).toEqual([]);
    const { rows } = await t.services.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM mentions WHERE entity_id = 'svc:payments'`,
    );
    expect(rows[0]!.n).toBe(0);
  });
});

describe.each(projectShare(serverRuns()))('knowledge graph under concurrent writes ($name)', (run) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startRunServer(run, { CAIRN_RATE_LIMIT_PER_SECOND: '0' }); // bursts of writes are the point here, not the rate limit
  });
  afterAll(async () => {
    await t?.close();
  });

  it('concurrent upsertGraph calls over the same entities in different orders all succeed', async () => {
    const entities = Array.from({ length: 15 }, (_, i) => ({
      id: `race:e${i}`,
      type: 'Thing',
      name: `Race entity ${i}`,
    }));
    const relationships = entities.slice(1).map((e, i) => ({ fromId: entities[i]!.id, toId: e.id, type: 'NEXT' }));
    const q = `mutation($input: UpsertGraphInput!) { upsertGraph(input: $input) { entities { id } } }`;
    // Each call starts at a different place, and every other one runs backwards.
    const order = <T>(list: T[], k: number): T[] => {
      const rotated = [...list.slice(k), ...list.slice(0, k)];
      return k % 2 ? rotated.reverse() : rotated;
    };
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, k) =>
        t.gql(q, { input: { entities: order(entities, k), relationships: order(relationships, k) } }),
      ),
    );
    expect(results.map((r) => r.errors?.[0]?.extensions?.code ?? 'OK')).toEqual(Array(8).fill('OK'));
    const stats = await t.gql<{ entities: { totalCount: number } }>(
      `{ entities(filter: { nameContains: "Race entity" }, first: 50) { totalCount } }`,
    );
    expect(stats.data!.entities.totalCount).toBe(15);
  });

  it('of concurrent creates of one entity id exactly one succeeds', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t.gql<{ createEntity: { name: string } }>(
          `mutation { createEntity(input: { id: "race:one", type: "Thing", name: "Creator ${i}" }) { name } }`,
        ),
      ),
    );
    const winners = results.filter((r) => !r.errors);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.errors?.[0]?.extensions?.code === 'CONFLICT')).toHaveLength(11);
    const stored = await t.gql<{ entity: { name: string } }>(`{ entity(id: "race:one") { name } }`);
    expect(stored.data!.entity.name).toBe(winners[0]!.data!.createEntity.name);
  });

  it('an entity created while documents naming it are rewritten links them, without failing', async () => {
    const doc = `mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { changed } }`;
    for (let round = 0; round < 6; round++) {
      const name = `Quokka Gateway ${round}`;
      await t.gql(doc, {
        input: [
          { id: `race:doc${round}`, title: 'Gateway notes', content: `The ${name} forwards traffic. Version 0.` },
        ],
      });
      const [entity, ...rewrites] = await Promise.all([
        t.gql(
          `mutation($name: String!, $id: ID!) { createEntity(input: { id: $id, type: "Service", name: $name }) { id } }`,
          { name, id: `race:gw${round}` },
        ),
        ...Array.from({ length: 4 }, (_, v) =>
          t.gql(doc, {
            input: [
              {
                id: `race:doc${round}`,
                title: 'Gateway notes',
                content: `The ${name} forwards traffic. Version ${v + 1}.`,
              },
            ],
          }),
        ),
      ]);
      expect([entity, ...rewrites].map((r) => r!.errors?.[0]?.message ?? 'OK')).toEqual(Array(5).fill('OK'));
      const linked = await t.gql<{ entity: { documents: { id: string }[] } }>(
        `{ entity(id: "race:gw${round}") { documents(first: 5) { id } } }`,
      );
      expect(linked.data!.entity.documents.map((d) => d.id)).toEqual([`race:doc${round}`]);
    }
  });

  it('new documents written while an entity naming them is created are all linked', async () => {
    const doc = `mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { changed } }`;
    const missed: string[] = [];
    for (let round = 0; round < 10; round++) {
      const name = `Wombat Relay ${round}`;
      const ids = Array.from({ length: 6 }, (_, i) => `race:new${round}:${i}`);
      const results = await Promise.all([
        ...ids
          .slice(0, 3)
          .map((id) =>
            t.gql(doc, { input: [{ id, title: 'Relay notes', content: `The ${name} buffers events before ${id}.` }] }),
          ),
        t.gql(
          `mutation($name: String!, $id: ID!) { createEntity(input: { id: $id, type: "Service", name: $name }) { id } }`,
          { name, id: `race:relay${round}` },
        ),
        ...ids
          .slice(3)
          .map((id) =>
            t.gql(doc, { input: [{ id, title: 'Relay notes', content: `The ${name} buffers events before ${id}.` }] }),
          ),
      ]);
      expect(results.map((r) => r.errors?.[0]?.message ?? 'OK')).toEqual(Array(7).fill('OK'));
      const linked = await t.gql<{ entity: { documents: { id: string }[] } }>(
        `{ entity(id: "race:relay${round}") { documents(first: 10) { id } } }`,
      );
      const got = new Set(linked.data!.entity.documents.map((d) => d.id));
      missed.push(...ids.filter((id) => !got.has(id)));
    }
    expect(missed).toEqual([]);
  });
});
