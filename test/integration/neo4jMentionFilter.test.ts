// The Neo4j store reads "mentioned" from Postgres as a list of ids: beyond MAX_MENTIONED_IDS the hasDocuments filter
// refuses (QUERY_TOO_COMPLEX) while graphStats stays exact, counting the ids against the graph in chunks.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Db } from '../../src/db/Db.js';
import { MAX_MENTIONED_IDS, type Neo4jGraphStore } from '../../src/graph/neo4j/Neo4jGraphStore.js';
import { graphStoreTargets, type CreatedGraphStore } from '../helpers/graphStores.js';

const neo4jTarget = graphStoreTargets().find((t) => t.name.startsWith('neo4j'));

(neo4jTarget ? describe : describe.skip)('Neo4j store: mentions from Postgres beyond the id cap', () => {
  let created: CreatedGraphStore;
  let db: Db;
  beforeAll(async () => {
    created = await neo4jTarget!.create();
    db = await created.mentionsDb();
    await created.store.init();
    // MAX_MENTIONED_IDS + 1 entities that one live document mentions (the entities need not exist in Neo4j).
    await db.query(
      `INSERT INTO documents (id, title, content, content_hash) VALUES ('doc:big', 'Big', 'text', 'hash')`,
    );
    await db.query(
      `INSERT INTO entity_names (entity_id, name) SELECT 'm:' || i, 'm' || i FROM generate_series(1, $1::int) AS i`,
      [MAX_MENTIONED_IDS + 1],
    );
    await db.query(
      `INSERT INTO mentions (entity_id, document_id, source) SELECT entity_id, 'doc:big', 'explicit' FROM entity_names`,
    );
    const entity = (id: string) => ({ id, type: 'Thing', name: id, aliases: [], description: null, properties: {} });
    await created.store.upsertEntities([
      entity('m:1'),
      entity('m:60000'),
      entity(`m:${MAX_MENTIONED_IDS + 1}`),
      entity('quiet:1'),
      entity('quiet:2'),
    ]);
  }, 120_000);
  afterAll(async () => {
    await created?.dispose();
  });

  it('refuses hasDocuments with more mentioned entities than the cap, and still filters by relationships', async () => {
    const store = created.store as Neo4jGraphStore;
    await expect(store.findEntities({ hasDocuments: false }, 10)).rejects.toMatchObject({ code: 'QUERY_TOO_COMPLEX' });
    await expect(store.findEntities({ hasDocuments: true }, 10)).rejects.toMatchObject({ code: 'QUERY_TOO_COMPLEX' });
    expect((await store.findEntities({ hasRelationships: false }, 10)).totalCount).toBe(5);
  });

  it('counts unmentioned entities exactly whatever the number of mentioned ids', async () => {
    const c = await created.store.counts(0);
    expect(c.entityCount).toBe(5);
    expect(c.unmentionedCount).toBe(2); // quiet:1, quiet:2: three chunks of ids, each counted against the graph
  });
});
