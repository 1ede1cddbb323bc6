import neo4j from 'neo4j-driver';
import type { EntityFilterSpec, EntityPage, GraphCounts } from '../types.js';
import * as Q from './cypher.js';
import type { SpacedTransaction } from './Neo4jConnection.js';
import { chunks, toEntityRecord, type EntityMap } from './mapping.js';

// The Neo4j store's entity listing and counts. "Mentioned" comes from Postgres (`MentionIndex`) as a list of ids: the
// MENTIONED_IN mirror lags behind the outbox and knows nothing of expiry, so it would disagree with `Entity.documents`.

/** Ids per UNWIND when counting which mentioned ids are entities. */
const COUNT_CHUNK = 50_000;

const int = (n: number) => neo4j.int(Math.max(0, Math.floor(n)));

/**
 * One page of entities matching `filter`, ordered by (name, id) in code unit order, after the keyset position, with
 * the total. `mentioned` (ids of mentioned entities) is required when `filter.hasDocuments` is set.
 */
export async function findEntitiesTx(
  tx: SpacedTransaction,
  filter: EntityFilterSpec,
  first: number,
  after: { name: string; id: string } | undefined,
  mentioned: readonly string[] | undefined,
): Promise<EntityPage> {
  const types = filter.types?.length ? filter.types : undefined;
  const origins = filter.origin?.length ? filter.origin : undefined;
  const q = filter.nameContains ? filter.nameContains.toLowerCase() : undefined;
  const params = {
    types: types ?? null,
    origins: origins ?? null,
    q: q ?? null,
    mentioned: mentioned ?? null,
    afterName: after?.name ?? null,
    afterId: after?.id ?? null,
    limit: int(first + 1),
  };
  const opts = {
    types: !!types,
    origins: !!origins,
    q: q !== undefined,
    rels: filter.hasRelationships,
    mentioned: filter.hasDocuments,
  };
  const pageWhere = Q.entityFilterWhere({ ...opts, after: !!after });
  const countWhere = Q.entityFilterWhere({ ...opts, after: false });
  const page = await tx.run(
    `MATCH (e:Entity) ${pageWhere} RETURN ${Q.entityMap('e')} AS e ORDER BY e.name, e.id LIMIT $limit`,
    params,
  );
  const count = await tx.run(`MATCH (e:Entity) ${countWhere} RETURN count(e) AS n`, params);
  const entities = page.records.map((r) => toEntityRecord(r.get('e') as EntityMap));
  return {
    entities: entities.slice(0, Math.max(0, first)),
    hasNextPage: entities.length > first,
    totalCount: Number(count.records[0]?.get('n') ?? 0),
  };
}

/**
 * Counts for graphStats. `relationshipTypes` are the valid types in the database; `mentioned` lists the (distinct)
 * ids of mentioned entities, some possibly no longer entities here, which is why they are counted against the graph.
 */
export async function countsTx(
  tx: SpacedTransaction,
  topDegree: number,
  relationshipTypes: readonly string[],
  mentioned: readonly string[],
): Promise<GraphCounts> {
  const totals = (await tx.run(Q.COUNTS)).records[0];
  const byType = await tx.run(Q.COUNTS_BY_TYPE);
  const byRelationshipType =
    relationshipTypes.length > 0
      ? (await tx.run(Q.relationshipCountsQuery(relationshipTypes), { keys: relationshipTypes })).records
      : [];
  const top = topDegree > 0 ? (await tx.run(Q.TOP_DEGREE, { limit: int(topDegree) })).records : [];
  let mentionedEntities = 0;
  for (const ids of chunks(mentioned, COUNT_CHUNK))
    mentionedEntities += Number((await tx.run(Q.COUNT_EXISTING, { ids })).records[0]?.get('n') ?? 0);
  const entityCount = Number(totals?.get('entities') ?? 0);
  return {
    entityCount,
    relationshipCount: Number(totals?.get('relationships') ?? 0),
    byType: byType.records.map((r) => ({ key: r.get('key') as string, count: Number(r.get('count')) })),
    orphanCount: Number(totals?.get('orphans') ?? 0),
    unmentionedCount: entityCount - mentionedEntities,
    relationshipsByType: byRelationshipType
      .map((r) => ({ key: r.get('key') as string, count: Number(r.get('count')) }))
      .filter((r) => r.count > 0)
      .sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
    topDegree: top.map((r) => ({ entity: toEntityRecord(r.get('e') as EntityMap), degree: Number(r.get('degree')) })),
  };
}
