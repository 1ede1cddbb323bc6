import type { Db } from '../../db/Db.js';
import { readSpaceSqlFor } from '../../db/spaceScope.js';
import type { GraphCounts } from '../types.js';
import { ENTITY_COLUMNS, toEntityRecord, type EntityRow } from './rows.js';

/**
 * Counts for graphStats over the request's space; degree counts relationships in both directions (a self-loop counts
 * twice). `orphan` and `mentioned` are the store's predicates on an entity `e`.
 */
export async function graphCounts(db: Db, topDegree: number, orphan: string, mentioned: string): Promise<GraphCounts> {
  const params: unknown[] = [];
  const inSpace = readSpaceSqlFor(params);
  const [totals, byType, relationshipsByType, top] = await Promise.all([
    db.query<{ entities: number; relationships: number; orphans: number; unmentioned: number }>(
      `SELECT (SELECT count(*)::int FROM graph_entities e WHERE ${inSpace('e')}) AS entities,
              (SELECT count(*)::int FROM graph_relationships r WHERE ${inSpace('r')}) AS relationships,
              (SELECT count(*)::int FROM graph_entities e WHERE ${orphan} AND ${inSpace('e')}) AS orphans,
              (SELECT count(*)::int FROM graph_entities e WHERE NOT ${mentioned} AND ${inSpace('e')}) AS unmentioned`,
      params,
    ),
    db.query<{ key: string; count: number }>(
      `SELECT type AS key, count(*)::int AS count FROM graph_entities e WHERE ${inSpace('e')}
        GROUP BY type ORDER BY count(*) DESC, type COLLATE "C"`,
      params,
    ),
    db.query<{ key: string; count: number }>(
      `SELECT type AS key, count(*)::int AS count FROM graph_relationships r WHERE ${inSpace('r')}
        GROUP BY type ORDER BY count(*) DESC, type COLLATE "C"`,
      params,
    ),
    topDegree > 0
      ? db.query<EntityRow & { degree: number }>(
          `SELECT ${ENTITY_COLUMNS}, coalesce(d.degree, 0)::int AS degree
             FROM graph_entities e
             LEFT JOIN (SELECT node, count(*) AS degree
                          FROM (SELECT from_id AS node FROM graph_relationships
                                UNION ALL SELECT to_id FROM graph_relationships) ends
                         GROUP BY node) d ON d.node = e.id
            WHERE ${inSpace('e')}
            ORDER BY coalesce(d.degree, 0) DESC, e.id COLLATE "C" LIMIT $${params.length + 1}`,
          [...params, topDegree],
        )
      : Promise.resolve({ rows: [] as (EntityRow & { degree: number })[], rowCount: 0 }),
  ]);
  const t = totals.rows[0];
  return {
    entityCount: t?.entities ?? 0,
    relationshipCount: t?.relationships ?? 0,
    byType: byType.rows.map((r) => ({ key: r.key, count: r.count })),
    orphanCount: t?.orphans ?? 0,
    unmentionedCount: t?.unmentioned ?? 0,
    relationshipsByType: relationshipsByType.rows.map((r) => ({ key: r.key, count: r.count })),
    topDegree: top.rows.map((r) => ({ entity: toEntityRecord(r), degree: r.degree })),
  };
}
