import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../../../src/config.js';
import type { Db } from '../../../../src/db/Db.js';
import { migrate } from '../../../../src/db/migrate.js';
import { openDb } from '../../../../src/db/openDb.js';
import type { AppError } from '../../../../src/errors.js';
import { PostgresGraphStore } from '../../../../src/graph/postgres/PostgresGraphStore.js';
import type { EntityWrite } from '../../../../src/graph/types.js';
import { validateRelationshipInput } from '../../../../src/graph/validateGraphInput.js';
import { dbTargets } from '../../../helpers/databases.js';
import { countStatement, countStatements } from '../../../helpers/statementCounter.js';

// Postgres-specific edge cases beyond the shared contract suite (test/integration/graphStore.contract.test.ts).

const entity = (id: string, name: string, aliases: string[] = []): EntityWrite => ({
  id,
  type: 'Thing',
  name,
  aliases,
  description: null,
  properties: {},
});
const rel = (fromId: string, type: string, toId: string, properties = {}) =>
  validateRelationshipInput({ fromId, toId, type, properties });

it('reports GRAPH_UNAVAILABLE when the database does not answer', async () => {
  const broken = { query: () => Promise.reject(new Error('connection refused')) } as unknown as Db;
  await expect(new PostgresGraphStore(broken).ping()).rejects.toMatchObject({ code: 'GRAPH_UNAVAILABLE' });
});

describe.each(dbTargets())('PostgresGraphStore on $name', (target) => {
  let db: Db;
  let store: PostgresGraphStore;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const scratch = await target.createDatabase();
    drop = scratch.drop;
    db = await openDb(loadConfig(scratch.env), { onStatement: countStatement });
    await migrate(db);
    store = new PostgresGraphStore(db);
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it('lets the last duplicate win within one upsert and returns every input position', async () => {
    const out = await store.upsertEntities([entity('x', 'First'), entity('y', 'Why'), entity('x', 'Second')]);
    expect(out.map((e) => `${e.id}:${e.name}`)).toEqual(['x:Second', 'y:Why', 'x:Second']);
    expect(await store.upsertEntities([])).toEqual([]);
  });

  it('orders by code point and pages through equal names by id', async () => {
    await store.upsertEntities([
      entity('n2', 'same'),
      entity('n1', 'same'),
      entity('n3', 'Zebra'),
      entity('n4', 'édith'),
      entity('n5', 'apple'),
    ]);
    const all = await store.findEntities({ types: ['Thing'] }, 100);
    const names = all.entities.map((e) => e.name);
    expect(names).toEqual([...names].sort());
    const p1 = await store.findEntities({ nameContains: 'same' }, 1);
    expect(p1.entities.map((e) => e.id)).toEqual(['n1']);
    expect(p1).toEqual(expect.objectContaining({ hasNextPage: true, totalCount: 2 }));
    const p2 = await store.findEntities({ nameContains: 'same' }, 1, { name: 'same', id: 'n1' });
    expect(p2.entities.map((e) => e.id)).toEqual(['n2']);
    expect(p2.hasNextPage).toBe(false);
  });

  it('matches LIKE wildcards literally', async () => {
    await store.upsertEntities([entity('pct', '100% sure'), entity('under', 'snake_case', ['back\\slash'])]);
    expect((await store.findEntities({ nameContains: '%' }, 10)).entities.map((e) => e.id)).toEqual(['pct']);
    expect((await store.findEntities({ nameContains: '_' }, 10)).entities.map((e) => e.id)).toEqual(['under']);
    expect((await store.findEntities({ nameContains: '\\' }, 10)).entities.map((e) => e.id)).toEqual(['under']);
  });

  it('de-duplicates relationships within one call and names the first missing endpoint in input order', async () => {
    const out = await store.upsertRelationships([rel('x', 'LINKS', 'y', { v: 1 }), rel('x', 'LINKS', 'y', { v: 2 })]);
    expect(out.map((r) => r.properties)).toEqual([{ v: 2 }, { v: 2 }]);
    const err = (await store
      .upsertRelationships([rel('x', 'LINKS', 'n1'), rel('zz', 'LINKS', 'aa')])
      .catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe('NOT_FOUND');
    expect(err.details).toEqual({ kind: 'Entity', id: 'zz' });
    expect(await store.relationshipsOf(['x'], 'OUT', ['LINKS'])).toHaveLength(1);
  });

  it('expands in one statement, returning a self-loop once under BOTH', async () => {
    await store.upsertRelationships([rel('y', 'SELF', 'y'), rel('n1', 'LINKS', 'y')]);
    const { value: edges, statements } = await countStatements(() => store.expand(['y', 'x'], 'BOTH', undefined, 10));
    expect(statements).toBe(1);
    expect(edges.map((e) => `${e.fromId}>${e.relationship.type}>${e.neighborId}`)).toEqual([
      'x>LINKS>y',
      'y>LINKS>n1',
      'y>LINKS>x',
      'y>SELF>y',
    ]);
    expect((await store.expand(['y'], 'IN', ['SELF'], 10)).map((e) => e.neighborId)).toEqual(['y']);
    expect(await store.expand(['y'], 'BOTH', undefined, 0)).toEqual([]);
  });

  it('counts a self-loop twice in degree and includes unconnected entities in topDegree', async () => {
    const c = await store.counts(100);
    expect(c.topDegree[0]).toEqual({ entity: expect.objectContaining({ id: 'y' }), degree: 4 });
    expect(c.topDegree).toHaveLength(c.entityCount);
    expect(c.orphanCount).toBe(c.topDegree.filter((t) => t.degree === 0).length);
    await expect(store.ping()).resolves.toBeUndefined();
  });
});
