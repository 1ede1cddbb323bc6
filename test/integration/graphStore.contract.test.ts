import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Db } from '../../src/db/Db.js';
import type { AppError } from '../../src/errors.js';
import { EntityNameRepository } from '../../src/graph/mentions/EntityNameRepository.js';
import { MentionRepository } from '../../src/graph/mentions/MentionRepository.js';
import type { GraphStore } from '../../src/graph/GraphStore.js';
import { nearestNeighbors, neighbors, shortestPath, subgraph } from '../../src/graph/traversal.js';
import type { EntityWrite } from '../../src/graph/types.js';
import { relationshipId, validateRelationshipInput } from '../../src/graph/validateGraphInput.js';
import { graphStoreTargets } from '../helpers/graphStores.js';
import { projectShare } from '../helpers/projects.js';
import { eventually } from '../helpers/eventually.js';
import { runInSpace } from '../../src/db/spaceScope.js';

const entity = (id: string, name: string, type = 'Service', aliases: string[] = []): EntityWrite => ({
  id,
  type,
  name,
  aliases,
  description: `${name} description`,
  properties: { tier: 1, tags: ['a'] },
});
const rel = (fromId: string, type: string, toId: string, properties = {}) =>
  validateRelationshipInput({ fromId, toId, type, properties });

/** Writes documents (expiring `expiresInMs` from now, when given) and their explicit mentions into the mentions database. */
async function mention(db: Db, documents: { id: string; entityIds: string[]; expiresInMs?: number }[]): Promise<void> {
  const names = new EntityNameRepository(db);
  const mentions = new MentionRepository(db);
  for (const d of documents) {
    const expiresAt = d.expiresInMs === undefined ? null : new Date(Date.now() + d.expiresInMs);
    await db.query(
      `INSERT INTO documents (id, title, content, content_hash, expires_at) VALUES ($1, $1, 'text', 'hash', $2)`,
      [d.id, expiresAt],
    );
    await names.upsertNames(
      db,
      d.entityIds.map((entityId) => ({ entityId, name: entityId, aliases: [] })),
    );
    await mentions.insert(
      db,
      d.entityIds.map((entityId) => ({ entityId, documentId: d.id, chunkId: null })),
      'explicit',
    );
  }
}

// One suite, identical expectations for every store.
describe.each(projectShare(graphStoreTargets()))('GraphStore contract ($name)', (target) => {
  let store: GraphStore;
  let mentionsDb: () => Promise<Db>;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ store, mentionsDb, dispose } = await target.create());
    await mentionsDb(); // counts() reads mentions from the start
    await store.init();
    await store.init(); // idempotent
    // a → b → c → d, a → e (RUNS_ON), f ← a (IN for f), plus unicode names and a supernode.
    await store.upsertEntities([
      entity('a', 'Alpha'),
      entity('b', 'Bravo'),
      entity('c', 'Charlie'),
      entity('d', 'Delta'),
      entity('e', 'Echo', 'Host'),
      entity('f', 'Foxtrot'),
      entity('u', 'Zürich Straße 東京 🚀', 'Place', ['ZRH']),
      entity('hub', 'Hub'),
      ...Array.from({ length: 30 }, (_, i) =>
        entity(`leaf${String(i).padStart(2, '0')}`, `Leaf ${String(i).padStart(2, '0')}`),
      ),
    ]);
    await store.upsertRelationships([
      rel('a', 'DEPENDS_ON', 'b'),
      rel('b', 'DEPENDS_ON', 'c'),
      rel('c', 'DEPENDS_ON', 'd'),
      rel('a', 'RUNS_ON', 'e'),
      rel('a', 'DEPENDS_ON', 'f'),
      rel('u', 'LOCATED_NEAR', 'a'),
      ...Array.from({ length: 30 }, (_, i) => rel('hub', 'FEEDS', `leaf${String(i).padStart(2, '0')}`)),
    ]);
  });
  afterAll(async () => {
    await dispose?.();
  });

  it('stores and reads entities, keeping unicode intact', async () => {
    const [u] = await store.getEntities(['u']);
    expect(u).toEqual(
      expect.objectContaining({
        id: 'u',
        type: 'Place',
        name: 'Zürich Straße 東京 🚀',
        aliases: ['ZRH'],
        description: 'Zürich Straße 東京 🚀 description',
        properties: { tier: 1, tags: ['a'] },
        origin: 'MANUAL',
      }),
    );
    expect(u!.createdAt).toBeInstanceOf(Date);
    expect(await store.getEntities(['nope'])).toEqual([]);
  });

  it('upserting an entity again replaces fields but keeps createdAt', async () => {
    const [before] = await store.getEntities(['f']);
    // Dates come back in milliseconds: once the clock has passed createdAt's, a rewritten createdAt would show.
    await eventually(() => Date.now() > before!.createdAt.getTime(), { every: 1, what: 'the next millisecond' });
    const [after] = await store.upsertEntities([
      { ...entity('f', 'Foxtrot'), description: 'changed', aliases: ['fox'] },
    ]);
    expect(after!.description).toBe('changed');
    expect(after!.aliases).toEqual(['fox']);
    expect(after!.createdAt.getTime()).toBe(before!.createdAt.getTime());
    expect(after!.updatedAt.getTime()).toBeGreaterThanOrEqual(before!.updatedAt.getTime());
  });

  it('finds entities by type and name (case-insensitive, aliases too), paged by (name, id)', async () => {
    const hosts = await store.findEntities({ types: ['Host'] }, 10);
    expect(hosts.entities.map((e) => e.id)).toEqual(['e']);
    expect((await store.findEntities({ nameContains: 'straße' }, 10)).entities.map((e) => e.id)).toEqual(['u']);
    expect((await store.findEntities({ nameContains: 'zrh' }, 10)).entities.map((e) => e.id)).toEqual(['u']);
    const p1 = await store.findEntities({ nameContains: 'leaf' }, 20);
    expect(p1.totalCount).toBe(30);
    expect(p1.hasNextPage).toBe(true);
    const last = p1.entities.at(-1)!;
    const p2 = await store.findEntities({ nameContains: 'leaf' }, 20, { name: last.name, id: last.id });
    expect(p2.hasNextPage).toBe(false);
    expect([...p1.entities, ...p2.entities].map((e) => e.id)).toEqual(
      Array.from({ length: 30 }, (_, i) => `leaf${String(i).padStart(2, '0')}`),
    );
  });

  it('keeps (from, type, to) unique and updates properties on repeat', async () => {
    const [r1] = await store.upsertRelationships([rel('a', 'DEPENDS_ON', 'b', { weight: 2 })]);
    expect(r1!.id).toBe(relationshipId('a', 'DEPENDS_ON', 'b'));
    expect(r1!.properties).toEqual({ weight: 2 });
    const out = await store.relationshipsOf(['a'], 'OUT', ['DEPENDS_ON']);
    expect(out.filter((r) => r.toId === 'b')).toHaveLength(1);
  });

  it('fails with NOT_FOUND naming a missing endpoint and writes nothing', async () => {
    const err = await store.upsertRelationships([rel('a', 'CALLS', 'c'), rel('a', 'CALLS', 'ghost')]).then(
      () => undefined,
      (e: unknown) => e as AppError,
    );
    expect(err?.code).toBe('NOT_FOUND');
    expect(err?.message).toContain('ghost');
    expect(await store.relationshipsOf(['a'], 'OUT', ['CALLS'])).toEqual([]);
  });

  it('lists relationships by direction and type', async () => {
    const ids = (rs: { id: string }[]) => rs.map((r) => r.id).sort();
    expect(ids(await store.relationshipsOf(['a'], 'OUT'))).toEqual(
      [
        relationshipId('a', 'DEPENDS_ON', 'b'),
        relationshipId('a', 'DEPENDS_ON', 'f'),
        relationshipId('a', 'RUNS_ON', 'e'),
      ].sort(),
    );
    expect(ids(await store.relationshipsOf(['a'], 'IN'))).toEqual([relationshipId('u', 'LOCATED_NEAR', 'a')]);
    expect(await store.relationshipsOf(['a'], 'BOTH', ['RUNS_ON'])).toEqual([
      expect.objectContaining({ fromId: 'a', toId: 'e', type: 'RUNS_ON' }),
    ]);
    expect(await store.getRelationships([relationshipId('a', 'RUNS_ON', 'e')])).toEqual([
      expect.objectContaining({ type: 'RUNS_ON' }),
    ]);
  });

  it('expands with a cap per node, ordered by (type, neighbour, relationship id)', async () => {
    const edges = await store.expand(['hub', 'a'], 'OUT', undefined, 5);
    const fromHub = edges.filter((e) => e.fromId === 'hub').map((e) => e.neighborId);
    expect(fromHub).toEqual(['leaf00', 'leaf01', 'leaf02', 'leaf03', 'leaf04']);
    const fromA = edges.filter((e) => e.fromId === 'a').map((e) => `${e.relationship.type}:${e.neighborId}`);
    expect(fromA).toEqual(['DEPENDS_ON:b', 'DEPENDS_ON:f', 'RUNS_ON:e']);
    const inbound = await store.expand(['a'], 'IN', undefined, 10);
    expect(inbound.map((e) => e.neighborId)).toEqual(['u']);
  });

  it('finds neighbours by depth, direction and type, each at its smallest depth', async () => {
    const out2 = (await neighbors(store, ['a'], { depth: 2, direction: 'OUT', limit: 50 })).get('a')!;
    expect(out2.map((n) => [n.entity.id, n.depth])).toEqual([
      ['b', 1],
      ['e', 1],
      ['f', 1],
      ['c', 2],
    ]);
    expect(out2.find((n) => n.entity.id === 'c')!.relationship.id).toBe(relationshipId('b', 'DEPENDS_ON', 'c'));
    const out3 = (await neighbors(store, ['a'], { depth: 3, direction: 'OUT', limit: 50, types: ['DEPENDS_ON'] })).get(
      'a',
    )!;
    expect(out3.map((n) => n.entity.id)).toEqual(['b', 'f', 'c', 'd']);
    const inbound = (await neighbors(store, ['a'], { depth: 1, direction: 'IN', limit: 50 })).get('a')!;
    expect(inbound.map((n) => n.entity.id)).toEqual(['u']);
    const both = (await neighbors(store, ['c'], { depth: 1, direction: 'BOTH', limit: 50 })).get('c')!;
    expect(both.map((n) => n.entity.id)).toEqual(['b', 'd']);
    const limited = (await neighbors(store, ['hub'], { depth: 1, direction: 'OUT', limit: 3 })).get('hub')!;
    expect(limited.map((n) => n.entity.id)).toEqual(['leaf00', 'leaf01', 'leaf02']);
    // The same traversals without reading records: the same neighbours in the same order, from the edges' names.
    for (const [seeds, options] of [
      [['c', 'a', 'nope'], { depth: 1, direction: 'BOTH', limit: 50 }],
      [['u'], { depth: 3, direction: 'OUT', limit: 50 }],
      [['a'], { depth: 2, direction: 'BOTH', limit: 3 }],
      [['hub'], { depth: 1, direction: 'OUT', limit: 3 }],
    ] as const) {
      const refs = await nearestNeighbors(store, seeds, options);
      const full = await neighbors(store, seeds, options);
      expect([...refs.keys()]).toEqual([...full.keys()]);
      for (const [seed, list] of full) {
        expect(refs.get(seed)).toEqual(
          list.map((n) => ({ id: n.entity.id, name: n.entity.name, depth: n.depth, relationship: n.relationship })),
        );
      }
    }
  });

  it('returns a bounded subgraph and shortest paths', async () => {
    const sg = await subgraph(store, ['b'], 1, 10);
    expect(sg.entities.map((e) => e.id)).toEqual(['b', 'a', 'c']);
    expect(sg.relationships.map((r) => `${r.fromId}-${r.type}-${r.toId}`).sort()).toEqual([
      'a-DEPENDS_ON-b',
      'b-DEPENDS_ON-c',
    ]);
    expect(sg.truncated).toBe(false);
    const cut = await subgraph(store, ['hub'], 1, 5);
    expect(cut.entities).toHaveLength(5);
    expect(cut.truncated).toBe(true);

    const path = await shortestPath(store, 'u', 'd', 6);
    expect(path!.entities.map((e) => e.id)).toEqual(['u', 'a', 'b', 'c', 'd']);
    expect(path!.relationships.map((r) => r.type)).toEqual(['LOCATED_NEAR', 'DEPENDS_ON', 'DEPENDS_ON', 'DEPENDS_ON']);
    expect(await shortestPath(store, 'u', 'd', 3)).toBeNull();
    expect(await shortestPath(store, 'a', 'hub', 6)).toBeNull();
  });

  it('reads entities and the relationships among them in one call, as the two reads would', async () => {
    const ids = ['a', 'b', 'c', 'u', 'nope'];
    const both = await store.entitiesAndRelationshipsAmong(ids);
    expect(both.entities.map((e) => e.id).sort()).toEqual(['a', 'b', 'c', 'u']);
    expect(both.entities.find((e) => e.id === 'u')).toEqual((await store.getEntities(['u']))[0]);
    expect(both.relationships).toEqual(await store.relationshipsAmong(ids));
    expect(both.relationships.map((r) => `${r.fromId}-${r.type}-${r.toId}`).sort()).toEqual([
      'a-DEPENDS_ON-b',
      'b-DEPENDS_ON-c',
      'u-LOCATED_NEAR-a',
    ]);
    expect(await store.entitiesAndRelationshipsAmong([])).toEqual({ entities: [], relationships: [] });
    expect(await store.entitiesAndRelationshipsAmong(['e'])).toEqual({
      entities: await store.getEntities(['e']),
      relationships: [],
    });
  });

  it('counts entities, relationships, types, orphans and degree', async () => {
    const c = await store.counts(3);
    expect(c.entityCount).toBe(38);
    expect(c.relationshipCount).toBe(36);
    expect(c.byType).toEqual(
      expect.arrayContaining([
        { key: 'Service', count: 36 },
        { key: 'Host', count: 1 },
        { key: 'Place', count: 1 },
      ]),
    );
    expect(c.orphanCount).toBe(0);
    expect(c.topDegree[0]).toEqual({ entity: expect.objectContaining({ id: 'hub' }), degree: 30 });
  });

  it('deletes relationships, and entities with their relationships', async () => {
    expect(await store.deleteRelationship(relationshipId('a', 'RUNS_ON', 'e'))).toBe(true);
    expect(await store.deleteRelationship(relationshipId('a', 'RUNS_ON', 'e'))).toBe(false);
    expect(await store.deleteEntity('b')).toBe(true);
    expect(await store.deleteEntity('b')).toBe(false);
    expect(await store.getEntities(['b'])).toEqual([]);
    const left = (await store.relationshipsOf(['a', 'c'], 'BOTH', ['DEPENDS_ON']))
      .map((r) => `${r.fromId}-${r.toId}`)
      .sort();
    expect(left).toEqual(['a-f', 'c-d']);
    const c = await store.counts(1);
    expect(c.entityCount).toBe(37);
    expect(c.orphanCount).toBe(1); // e lost its only relationship
  });

  // From here on: e, o1, o2 and o3 have no relationship; loop only a self-loop. Live documents mention a, leaf05 and
  // o1 (and the unknown entity ghost); d is mentioned by an expired document only.
  it('filters entities by relationships and by mentioning documents, with totals and keyset pages', async () => {
    await store.upsertEntities([
      entity('o1', 'Orphan 1'),
      entity('o2', 'Orphan 2'),
      entity('o3', 'Orphan 3'),
      entity('loop', 'Loop'),
    ]);
    await store.upsertRelationships([rel('loop', 'LOOPS', 'loop')]);
    await mention(await mentionsDb(), [
      { id: 'doc:live', entityIds: ['a', 'o1', 'ghost'] },
      { id: 'doc:later', entityIds: ['leaf05'], expiresInMs: 86_400_000 },
      { id: 'doc:expired', entityIds: ['d'], expiresInMs: -60_000 },
    ]);
    // A mirrored mention edge with no mention row (Neo4j only): neither a relationship nor a mention.
    await store.applyMentionOps?.([{ op: 'link', entityId: 'o2', documentId: 'doc:stale', documentTitle: 'Stale' }]);
    const ids = (p: { entities: { id: string }[] }) => p.entities.map((e) => e.id);

    const lone1 = await store.findEntities({ hasRelationships: false }, 2);
    expect([ids(lone1), lone1.totalCount, lone1.hasNextPage]).toEqual([['e', 'o1'], 4, true]);
    const lone2 = await store.findEntities({ hasRelationships: false }, 2, { name: 'Orphan 1', id: 'o1' });
    expect([ids(lone2), lone2.totalCount, lone2.hasNextPage]).toEqual([['o2', 'o3'], 4, false]);
    const linked = await store.findEntities({ hasRelationships: true }, 100);
    expect(linked.totalCount).toBe(37);
    expect(ids(linked)).toEqual(expect.arrayContaining(['a', 'f', 'u', 'd', 'loop', 'leaf29'])); // out, in, self-loop
    expect(ids(await store.findEntities({ hasRelationships: false, types: ['Host'] }, 10))).toEqual(['e']);

    const said1 = await store.findEntities({ hasDocuments: true }, 2);
    expect([ids(said1), said1.totalCount, said1.hasNextPage]).toEqual([['a', 'leaf05'], 3, true]);
    const said2 = await store.findEntities({ hasDocuments: true }, 2, { name: 'Leaf 05', id: 'leaf05' });
    expect([ids(said2), said2.totalCount, said2.hasNextPage]).toEqual([['o1'], 3, false]);
    const unsaid = await store.findEntities({ hasDocuments: false }, 100);
    expect(unsaid.totalCount).toBe(38);
    expect(ids(unsaid)).toEqual(expect.arrayContaining(['d', 'o2']));
    expect(ids(unsaid)).not.toContain('a');
    expect(ids(await store.findEntities({ hasDocuments: false, hasRelationships: false }, 10))).toEqual([
      'e',
      'o2',
      'o3',
    ]);
    expect(ids(await store.findEntities({ hasDocuments: true, hasRelationships: false }, 10))).toEqual(['o1']);
    expect(ids(await store.findEntities({ hasDocuments: true, nameContains: 'leaf' }, 10))).toEqual(['leaf05']);
  });

  it('counts unmentioned entities and relationships by type (most common first, ties by type)', async () => {
    const c = await store.counts(1);
    expect(c.entityCount).toBe(41);
    expect(c.relationshipCount).toBe(34);
    expect(c.orphanCount).toBe(4);
    expect(c.unmentionedCount).toBe(38);
    expect(c.relationshipsByType).toEqual([
      { key: 'FEEDS', count: 30 },
      { key: 'DEPENDS_ON', count: 2 },
      { key: 'LOCATED_NEAR', count: 1 },
      { key: 'LOOPS', count: 1 },
    ]);
  });

  it('records origin: as given, MANUAL when absent, and an EXTRACTED fact a person rewrites becomes MANUAL', async () => {
    const written = await store.upsertEntities([
      { ...entity('oe', 'Origin Extracted'), origin: 'EXTRACTED' },
      { ...entity('oi', 'Origin Imported'), origin: 'IMPORTED' },
      entity('om', 'Origin Manual'),
    ]);
    expect(written.map((e) => [e.id, e.origin])).toEqual([
      ['oe', 'EXTRACTED'],
      ['oi', 'IMPORTED'],
      ['om', 'MANUAL'],
    ]);
    const rels = await store.upsertRelationships([
      { ...rel('oe', 'CITES', 'oi'), origin: 'EXTRACTED' },
      { ...rel('oi', 'CITES', 'om'), origin: 'IMPORTED' },
      rel('om', 'CITES', 'oe'),
    ]);
    expect(rels.map((r) => r.origin)).toEqual(['EXTRACTED', 'IMPORTED', 'MANUAL']);
    const byOrigin = async (origin: ('MANUAL' | 'IMPORTED' | 'EXTRACTED')[]) =>
      (await store.findEntities({ origin, nameContains: 'origin' }, 10)).entities.map((e) => e.id);
    expect(await byOrigin(['EXTRACTED'])).toEqual(['oe']);
    expect(await byOrigin(['EXTRACTED', 'IMPORTED'])).toEqual(['oe', 'oi']);
    expect((await store.findEntities({ origin: ['IMPORTED'] }, 10)).totalCount).toBe(1);
    expect(await byOrigin([])).toEqual(['oe', 'oi', 'om']);
    // Every read path carries it.
    expect((await store.getEntities(['oe']))[0]?.origin).toBe('EXTRACTED');
    expect((await store.relationshipsOf(['oe'], 'OUT'))[0]?.origin).toBe('EXTRACTED');
    expect((await store.getRelationships([relationshipId('oi', 'CITES', 'om')]))[0]?.origin).toBe('IMPORTED');
    expect((await store.expand(['oe'], 'OUT', undefined, 5))[0]?.relationship.origin).toBe('EXTRACTED');
    const among = await store.entitiesAndRelationshipsAmong(['oe', 'oi', 'om']);
    expect(among.entities.find((e) => e.id === 'oi')?.origin).toBe('IMPORTED');
    expect(among.relationships.map((r) => r.origin).sort()).toEqual(['EXTRACTED', 'IMPORTED', 'MANUAL']);

    // A write without origin curates an extracted fact and leaves an imported one as it was.
    const [curated, imported] = await store.upsertEntities([
      entity('oe', 'Origin Extracted'),
      entity('oi', 'Origin Imported'),
    ]);
    expect([curated?.origin, imported?.origin]).toEqual(['MANUAL', 'IMPORTED']);
    const [curatedRel] = await store.upsertRelationships([rel('oe', 'CITES', 'oi')]);
    expect(curatedRel?.origin).toBe('MANUAL');
    expect((await store.relationshipsOf(['oi'], 'OUT'))[0]?.origin).toBe('IMPORTED');
    // A given origin is stored as given.
    const [again] = await store.upsertEntities([{ ...entity('om', 'Origin Manual'), origin: 'EXTRACTED' }]);
    expect(again?.origin).toBe('EXTRACTED');
    expect(await byOrigin(['EXTRACTED'])).toEqual(['om']);
  });
});

// Spaces: the same reads in two spaces of one store, and outside any request (every space), on every store.
describe.each(projectShare(graphStoreTargets()))('GraphStore contract: spaces ($name)', (target) => {
  let store: GraphStore;
  let dispose: () => Promise<void>;
  const inA = <T>(fn: () => Promise<T>) => runInSpace('sa', fn);
  const inB = <T>(fn: () => Promise<T>) => runInSpace('sb', fn);
  const all = ['sa1', 'sa2', 'sa3', 'sb1', 'sb2', 'ghost'];
  const relIds = [relationshipId('sa1', 'USES', 'sa2'), relationshipId('sb1', 'USES', 'sb2')];
  const errorOf = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e as AppError,
    );
  const sortedIds = (rows: { id: string }[]) => rows.map((r) => r.id).sort();

  beforeAll(async () => {
    let mentionsDb: () => Promise<Db>;
    ({ store, mentionsDb, dispose } = await target.create());
    const db = await mentionsDb();
    await store.init();
    await db.query(`INSERT INTO spaces (id, name) VALUES ('sa', 'A'), ('sb', 'B')`);
    await inA(async () => {
      await store.upsertEntities([
        entity('sa1', 'Shared Name'),
        entity('sa2', 'Alpha Two'),
        entity('sa3', 'Alpha Lone'),
      ]);
      await store.upsertRelationships([rel('sa1', 'USES', 'sa2')]);
      // sa1 is mentioned by a document of space sa.
      await db.query(
        `INSERT INTO documents (id, title, content, content_hash, space_id) VALUES ('doc:a', 'A', 't', 'h', 'sa')`,
      );
      await new EntityNameRepository(db).upsertNames(db, [{ entityId: 'sa1', name: 'Shared Name', aliases: [] }]);
      await new MentionRepository(db).insert(db, [{ entityId: 'sa1', documentId: 'doc:a', chunkId: null }], 'explicit');
    });
    await inB(async () => {
      await store.upsertEntities([entity('sb1', 'Shared Name', 'Host'), entity('sb2', 'Bravo Two')]);
      await store.upsertRelationships([rel('sb1', 'USES', 'sb2')]);
    });
  });
  afterAll(async () => {
    await dispose?.();
  });

  it('reads entities and relationships of the request’s space only', async () => {
    expect(sortedIds(await inA(() => store.getEntities(all)))).toEqual(['sa1', 'sa2', 'sa3']);
    expect(sortedIds(await inB(() => store.getEntities(all)))).toEqual(['sb1', 'sb2']);
    expect(sortedIds(await store.getEntities(all))).toEqual(['sa1', 'sa2', 'sa3', 'sb1', 'sb2']);
    expect(sortedIds(await inA(() => store.getRelationships(relIds)))).toEqual([relIds[0]]);
    expect(sortedIds(await inB(() => store.getRelationships(relIds)))).toEqual([relIds[1]]);
    expect(await inA(() => store.relationshipsOf(['sb1', 'sb2'], 'BOTH'))).toEqual([]);
    expect(await inA(() => store.expand(['sb1', 'sb2'], 'BOTH', undefined, 10))).toEqual([]);
    expect(sortedIds(await inA(() => store.relationshipsAmong(all)))).toEqual([relIds[0]]);
    const among = await inB(() => store.entitiesAndRelationshipsAmong(all));
    expect([sortedIds(among.entities), sortedIds(among.relationships)]).toEqual([['sb1', 'sb2'], [relIds[1]]]);
  });

  it('lists, filters and pages entities of the space, with its totals', async () => {
    const page = await inA(() => store.findEntities({ nameContains: 'name' }, 10));
    expect([page.entities.map((e) => e.id), page.totalCount]).toEqual([['sa1'], 1]);
    const b = await inB(() => store.findEntities({}, 1));
    expect([b.entities.map((e) => e.id), b.totalCount, b.hasNextPage]).toEqual([['sb2'], 2, true]);
    const next = await inB(() => store.findEntities({}, 5, { name: 'Bravo Two', id: 'sb2' }));
    expect(next.entities.map((e) => e.id)).toEqual(['sb1']);
    expect((await inA(() => store.findEntities({ types: ['Host'] }, 10))).totalCount).toBe(0);
    expect((await inA(() => store.findEntities({ hasRelationships: false }, 10))).entities.map((e) => e.id)).toEqual([
      'sa3',
    ]);
    const mentioned = await inA(() => store.findEntities({ hasDocuments: true }, 10));
    expect(mentioned.entities.map((e) => e.id)).toEqual(['sa1']);
    expect((await inB(() => store.findEntities({ hasDocuments: true }, 10))).totalCount).toBe(0);
  });

  it('counts the space only', async () => {
    const a = await inA(() => store.counts(5));
    expect(a).toEqual(
      expect.objectContaining({
        entityCount: 3,
        relationshipCount: 1,
        orphanCount: 1,
        unmentionedCount: 2,
        byType: [{ key: 'Service', count: 3 }],
        relationshipsByType: [{ key: 'USES', count: 1 }],
      }),
    );
    expect(a.topDegree.map((t) => t.entity.id)).toEqual(['sa1', 'sa2', 'sa3']);
    const b = await inB(() => store.counts(5));
    expect([b.entityCount, b.relationshipCount, b.unmentionedCount]).toEqual([2, 1, 2]);
    expect((await store.counts(0)).entityCount).toBe(5);
  });

  it('never traverses into another space', async () => {
    const around = await inA(() => neighbors(store, ['sb1'], { depth: 2, direction: 'BOTH', limit: 10 }));
    expect([...around.values()].flat()).toEqual([]);
    expect(await inA(() => shortestPath(store, 'sb1', 'sb2', 4))).toBeNull();
    expect((await inA(() => subgraph(store, ['sb1'], 2, 10))).entities).toEqual([]);
    expect((await inB(() => shortestPath(store, 'sb1', 'sb2', 4)))?.entities.map((e) => e.id)).toEqual(['sb1', 'sb2']);
  });

  it('answers another space’s ids exactly as missing ones, and changes nothing there', async () => {
    const other = await errorOf(inA(() => store.upsertRelationships([rel('sa1', 'USES', 'sb1')])));
    const missing = await errorOf(inA(() => store.upsertRelationships([rel('sa1', 'USES', 'ghost')])));
    expect([other?.code, other?.message.replace('sb1', 'ghost')]).toEqual([missing?.code, missing?.message]);
    expect(await inA(() => store.deleteEntity('sb1'))).toBe(false);
    expect(await inA(() => store.deleteRelationship(relIds[1] as string))).toBe(false);
    const taken = await errorOf(inA(() => store.upsertEntities([entity('sa9', 'New'), entity('sb1', 'Hijack')])));
    expect(taken?.code).toBe('CONFLICT');
    expect(await inA(() => store.getEntities(['sa9']))).toEqual([]); // nothing of the batch was written
    const [sb1] = await inB(() => store.getEntities(['sb1']));
    expect([sb1?.name, sb1?.type]).toEqual(['Shared Name', 'Host']);
    expect(sortedIds(await inB(() => store.getRelationships(relIds)))).toEqual([relIds[1]]);
  });
});
