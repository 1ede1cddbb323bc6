import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AppError } from '../../src/errors.js';
import type { GraphStore } from '../../src/graph/GraphStore.js';
import { neighbors, shortestPath, subgraph } from '../../src/graph/traversal.js';
import type { EntityWrite } from '../../src/graph/types.js';
import { relationshipId, validateRelationshipInput } from '../../src/graph/validateGraphInput.js';
import { graphStoreTargets } from '../helpers/graphStores.js';

const entity = (id: string, name: string, type = 'Service', aliases: string[] = []): EntityWrite => ({
  id, type, name, aliases, description: `${name} description`, properties: { tier: 1, tags: ['a'] },
});
const rel = (fromId: string, type: string, toId: string, properties = {}) => validateRelationshipInput({ fromId, toId, type, properties });

// One suite, identical expectations for every store.
describe.each(graphStoreTargets())('GraphStore contract ($name)', (target) => {
  let store: GraphStore;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ store, dispose } = await target.create());
    await store.init();
    await store.init(); // idempotent
    // a → b → c → d, a → e (RUNS_ON), f ← a (IN for f), plus unicode names and a supernode.
    await store.upsertEntities([
      entity('a', 'Alpha'), entity('b', 'Bravo'), entity('c', 'Charlie'), entity('d', 'Delta'),
      entity('e', 'Echo', 'Host'), entity('f', 'Foxtrot'), entity('u', 'Zürich Straße 東京 🚀', 'Place', ['ZRH']),
      entity('hub', 'Hub'), ...Array.from({ length: 30 }, (_, i) => entity(`leaf${String(i).padStart(2, '0')}`, `Leaf ${String(i).padStart(2, '0')}`)),
    ]);
    await store.upsertRelationships([
      rel('a', 'DEPENDS_ON', 'b'), rel('b', 'DEPENDS_ON', 'c'), rel('c', 'DEPENDS_ON', 'd'),
      rel('a', 'RUNS_ON', 'e'), rel('a', 'DEPENDS_ON', 'f'), rel('u', 'LOCATED_NEAR', 'a'),
      ...Array.from({ length: 30 }, (_, i) => rel('hub', 'FEEDS', `leaf${String(i).padStart(2, '0')}`)),
    ]);
  });
  afterAll(async () => {
    await dispose?.();
  });

  it('stores and reads entities, keeping unicode intact', async () => {
    const [u] = await store.getEntities(['u']);
    expect(u).toEqual(expect.objectContaining({ id: 'u', type: 'Place', name: 'Zürich Straße 東京 🚀', aliases: ['ZRH'], description: 'Zürich Straße 東京 🚀 description', properties: { tier: 1, tags: ['a'] } }));
    expect(u!.createdAt).toBeInstanceOf(Date);
    expect(await store.getEntities(['nope'])).toEqual([]);
  });

  it('upserting an entity again replaces fields but keeps createdAt', async () => {
    const [before] = await store.getEntities(['f']);
    await new Promise((r) => setTimeout(r, 5));
    const [after] = await store.upsertEntities([{ ...entity('f', 'Foxtrot'), description: 'changed', aliases: ['fox'] }]);
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
    expect([...p1.entities, ...p2.entities].map((e) => e.id)).toEqual(Array.from({ length: 30 }, (_, i) => `leaf${String(i).padStart(2, '0')}`));
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
    expect(ids(await store.relationshipsOf(['a'], 'OUT'))).toEqual([relationshipId('a', 'DEPENDS_ON', 'b'), relationshipId('a', 'DEPENDS_ON', 'f'), relationshipId('a', 'RUNS_ON', 'e')].sort());
    expect(ids(await store.relationshipsOf(['a'], 'IN'))).toEqual([relationshipId('u', 'LOCATED_NEAR', 'a')]);
    expect(await store.relationshipsOf(['a'], 'BOTH', ['RUNS_ON'])).toEqual([expect.objectContaining({ fromId: 'a', toId: 'e', type: 'RUNS_ON' })]);
    expect(await store.getRelationships([relationshipId('a', 'RUNS_ON', 'e')])).toEqual([expect.objectContaining({ type: 'RUNS_ON' })]);
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
    expect(out2.map((n) => [n.entity.id, n.depth])).toEqual([['b', 1], ['e', 1], ['f', 1], ['c', 2]]);
    expect(out2.find((n) => n.entity.id === 'c')!.relationship.id).toBe(relationshipId('b', 'DEPENDS_ON', 'c'));
    const out3 = (await neighbors(store, ['a'], { depth: 3, direction: 'OUT', limit: 50, types: ['DEPENDS_ON'] })).get('a')!;
    expect(out3.map((n) => n.entity.id)).toEqual(['b', 'f', 'c', 'd']);
    const inbound = (await neighbors(store, ['a'], { depth: 1, direction: 'IN', limit: 50 })).get('a')!;
    expect(inbound.map((n) => n.entity.id)).toEqual(['u']);
    const both = (await neighbors(store, ['c'], { depth: 1, direction: 'BOTH', limit: 50 })).get('c')!;
    expect(both.map((n) => n.entity.id)).toEqual(['b', 'd']);
    const limited = (await neighbors(store, ['hub'], { depth: 1, direction: 'OUT', limit: 3 })).get('hub')!;
    expect(limited.map((n) => n.entity.id)).toEqual(['leaf00', 'leaf01', 'leaf02']);
  });

  it('returns a bounded subgraph and shortest paths', async () => {
    const sg = await subgraph(store, ['b'], 1, 10);
    expect(sg.entities.map((e) => e.id)).toEqual(['b', 'a', 'c']);
    expect(sg.relationships.map((r) => `${r.fromId}-${r.type}-${r.toId}`).sort()).toEqual(['a-DEPENDS_ON-b', 'b-DEPENDS_ON-c']);
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

  it('counts entities, relationships, types, orphans and degree', async () => {
    const c = await store.counts(3);
    expect(c.entityCount).toBe(38);
    expect(c.relationshipCount).toBe(36);
    expect(c.byType).toEqual(expect.arrayContaining([{ key: 'Service', count: 36 }, { key: 'Host', count: 1 }, { key: 'Place', count: 1 }]));
    expect(c.orphanCount).toBe(0);
    expect(c.topDegree[0]).toEqual({ entity: expect.objectContaining({ id: 'hub' }), degree: 30 });
  });

  it('deletes relationships, and entities with their relationships', async () => {
    expect(await store.deleteRelationship(relationshipId('a', 'RUNS_ON', 'e'))).toBe(true);
    expect(await store.deleteRelationship(relationshipId('a', 'RUNS_ON', 'e'))).toBe(false);
    expect(await store.deleteEntity('b')).toBe(true);
    expect(await store.deleteEntity('b')).toBe(false);
    expect(await store.getEntities(['b'])).toEqual([]);
    const left = (await store.relationshipsOf(['a', 'c'], 'BOTH', ['DEPENDS_ON'])).map((r) => `${r.fromId}-${r.toId}`).sort();
    expect(left).toEqual(['a-f', 'c-d']);
    const c = await store.counts(1);
    expect(c.entityCount).toBe(37);
    expect(c.orphanCount).toBe(1); // e lost its only relationship
  });
});
