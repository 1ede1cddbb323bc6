import type { Db } from '../../db/Db.js';
import { SqlParams, escapeLike } from '../../db/SqlParams.js';
import { readSpaceSql, spaceSql, writeSpace } from '../../db/spaceScope.js';
import { AppError, ErrorCode, notFound } from '../../errors.js';
import type { EntitiesAndRelationships, GraphStore } from '../GraphStore.js';
import { mentionedByLiveDocument } from '../mentions/PostgresMentionIndex.js';
import type {
  Direction,
  Edge,
  EntityFilterSpec,
  EntityPage,
  EntityRecord,
  EntityWrite,
  GraphCounts,
  RelationshipRecord,
  RelationshipWrite,
} from '../types.js';
import {
  ENTITY_COLUMNS,
  ENTITY_RETURNING,
  originToStore,
  RELATIONSHIP_COLUMNS,
  RELATIONSHIP_RETURNING,
  relationshipKey,
  toEntityRecord,
  toRelationshipRecord,
  type EntityRow,
  type RelationshipRow,
} from './rows.js';
import { graphCounts } from './graphCounts.js';
import { entityIdTaken } from '../validateGraphInput.js';

/** An entity `e` with no relationship in either direction (two index probes). */
const ORPHAN = `(NOT EXISTS (SELECT 1 FROM graph_relationships r WHERE r.from_id = e.id)
                AND NOT EXISTS (SELECT 1 FROM graph_relationships r WHERE r.to_id = e.id))`;
/** An entity `e` that a live document mentions. */
const MENTIONED = mentionedByLiveDocument('e.id');

// Every ordering uses COLLATE "C" (byte order of UTF-8 = code point order), so pages and traversal tie-breaks agree
// with JavaScript string comparison and with the Neo4j store, whatever the database locale.

/** The knowledge graph in the `graph_entities` and `graph_relationships` tables of the main database. */
export class PostgresGraphStore implements GraphStore {
  readonly kind = 'postgres' as const;

  constructor(private readonly db: Db) {}

  /** Nothing to do: migrations create the tables and indexes. */
  async init(): Promise<void> {}

  /** Inserts or replaces entities in one statement (last duplicate wins); returns them in input order. */
  async upsertEntities(entities: readonly EntityWrite[]): Promise<EntityRecord[]> {
    if (entities.length === 0) return [];
    // In id order, so concurrent batches lock rows in one order and cannot deadlock.
    const unique = [...new Map(entities.map((e) => [e.id, e])).values()].sort((a, b) =>
      a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
    );
    // One transaction: a batch naming an id another space holds writes nothing.
    const rows = await this.db.transaction(async (tx) => {
      const { rows } = await tx.query<EntityRow>(
        `INSERT INTO graph_entities (id, type, name, aliases, description, properties, origin, space_id)
       SELECT x.id, x.type, x.name, ARRAY(SELECT jsonb_array_elements_text(x.aliases::jsonb)), x.description,
              x.properties::jsonb, ${originToStore('x.origin', 'cur.origin')}, $8::text
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
           AS x(id, type, name, aliases, description, properties, origin)
         LEFT JOIN graph_entities cur ON cur.id = x.id
       ON CONFLICT (id) DO UPDATE SET
         type = EXCLUDED.type, name = EXCLUDED.name, aliases = EXCLUDED.aliases, description = EXCLUDED.description,
         properties = EXCLUDED.properties, origin = EXCLUDED.origin, updated_at = now()
       WHERE graph_entities.space_id = EXCLUDED.space_id
       RETURNING ${ENTITY_RETURNING}`,
        [
          unique.map((e) => e.id),
          unique.map((e) => e.type),
          unique.map((e) => e.name),
          unique.map((e) => JSON.stringify(e.aliases)),
          unique.map((e) => e.description),
          unique.map((e) => JSON.stringify(e.properties)),
          unique.map((e) => e.origin ?? null),
          writeSpace(),
        ],
      );
      // Entity ids are unique across spaces: an id another space holds is not taken over (its row stays as it was).
      if (rows.length < unique.length) throw entityIdTaken(unique.find((e) => !rows.some((r) => r.id === e.id))?.id);
      return rows;
    });
    const byId = new Map(rows.map((r) => [r.id, toEntityRecord(r)]));
    return entities.map((e) => byId.get(e.id)).filter((e): e is EntityRecord => e !== undefined);
  }

  /** Entities by id, in no particular order; missing ids are absent. */
  async getEntities(ids: readonly string[]): Promise<EntityRecord[]> {
    if (ids.length === 0) return [];
    const params: unknown[] = [ids];
    const { rows } = await this.db.query<EntityRow>(
      `SELECT ${ENTITY_COLUMNS} FROM graph_entities e WHERE e.id = ANY($1::text[]) AND ${readSpaceSql('e', params)}`,
      params,
    );
    return rows.map(toEntityRecord);
  }

  /**
   * Entities matching a filter, ordered by (name, id) in code point order, after the keyset position; mentions are
   * read from this same database.
   */
  async findEntities(
    filter: EntityFilterSpec,
    first: number,
    after?: { name: string; id: string },
  ): Promise<EntityPage> {
    const params = new SqlParams();
    const where: string[] = [readSpaceSql('e', params)];
    if (filter.types?.length) where.push(`e.type = ANY(${params.add(filter.types)}::text[])`);
    if (filter.origin?.length) where.push(`e.origin = ANY(${params.add(filter.origin)}::text[])`);
    if (filter.nameContains) {
      const p = params.add(`%${escapeLike(filter.nameContains)}%`);
      where.push(
        `(e.name ILIKE ${p} OR EXISTS (SELECT 1 FROM unnest(e.aliases) AS a(alias) WHERE a.alias ILIKE ${p}))`,
      );
    }
    if (filter.hasRelationships !== undefined) where.push(filter.hasRelationships ? `NOT ${ORPHAN}` : ORPHAN);
    if (filter.hasDocuments !== undefined) where.push(filter.hasDocuments ? MENTIONED : `NOT ${MENTIONED}`);
    const countWhere = where.length > 0 ? where.join(' AND ') : 'TRUE';
    const countParams = [...params.values];
    if (after) {
      where.push(
        `(e.name COLLATE "C", e.id COLLATE "C") > (${params.add(after.name)}::text, ${params.add(after.id)}::text)`,
      );
    }
    const limit = params.add(first + 1);
    const [page, count] = await Promise.all([
      this.db.query<EntityRow>(
        `SELECT ${ENTITY_COLUMNS} FROM graph_entities e
          WHERE ${where.length > 0 ? where.join(' AND ') : 'TRUE'}
          ORDER BY e.name COLLATE "C", e.id COLLATE "C" LIMIT ${limit}`,
        params.values,
      ),
      this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM graph_entities e WHERE ${countWhere}`, countParams),
    ]);
    return {
      entities: page.rows.slice(0, first).map(toEntityRecord),
      hasNextPage: page.rows.length > first,
      totalCount: count.rows[0]?.n ?? 0,
    };
  }

  /** Deletes an entity; its relationships cascade. True when it existed. */
  async deleteEntity(id: string): Promise<boolean> {
    const params: unknown[] = [id];
    const { rowCount } = await this.db.query(
      `DELETE FROM graph_entities e WHERE e.id = $1 AND ${spaceSql('e', params)}`,
      params,
    );
    return rowCount > 0;
  }

  /**
   * Inserts relationships or updates the properties of existing (from, type, to) ones, in one transaction; fails with
   * NOT_FOUND naming the first missing endpoint (input order) and writes nothing. Returns them in input order.
   */
  async upsertRelationships(relationships: readonly RelationshipWrite[]): Promise<RelationshipRecord[]> {
    if (relationships.length === 0) return [];
    // Sorted, like entities, so concurrent batches lock rows in one order.
    const unique = [...new Map(relationships.map((r) => [relationshipKey(r.fromId, r.type, r.toId), r])).values()].sort(
      (a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
    const endpoints = [...new Set(unique.flatMap((r) => [r.fromId, r.toId]))];
    const rows = await this.db.transaction(async (tx) => {
      // KEY SHARE keeps the endpoints from being deleted until commit.
      const params: unknown[] = [endpoints];
      const found = await tx.query<{ id: string }>(
        `SELECT e.id FROM graph_entities e
          WHERE e.id = ANY($1::text[]) AND ${spaceSql('e', params)} ORDER BY e.id FOR KEY SHARE`,
        params,
      );
      const existing = new Set(found.rows.map((r) => r.id));
      for (const r of relationships) {
        for (const id of [r.fromId, r.toId]) if (!existing.has(id)) throw notFound('Entity', id);
      }
      const written = await tx.query<RelationshipRow>(
        `INSERT INTO graph_relationships (id, type, from_id, to_id, properties, origin)
         SELECT x.id, x.type, x.from_id, x.to_id, x.properties::jsonb, ${originToStore('x.origin', 'cur.origin')}
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
             AS x(id, type, from_id, to_id, properties, origin)
           LEFT JOIN graph_relationships cur ON cur.from_id = x.from_id AND cur.type = x.type AND cur.to_id = x.to_id
         ON CONFLICT (from_id, type, to_id) DO UPDATE SET properties = EXCLUDED.properties, origin = EXCLUDED.origin
         RETURNING ${RELATIONSHIP_RETURNING}`,
        [
          unique.map((r) => r.id),
          unique.map((r) => r.type),
          unique.map((r) => r.fromId),
          unique.map((r) => r.toId),
          unique.map((r) => JSON.stringify(r.properties)),
          unique.map((r) => r.origin ?? null),
        ],
      );
      return written.rows;
    });
    const byKey = new Map(rows.map((r) => [relationshipKey(r.from_id, r.type, r.to_id), toRelationshipRecord(r)]));
    return relationships
      .map((r) => byKey.get(relationshipKey(r.fromId, r.type, r.toId)))
      .filter((r): r is RelationshipRecord => r !== undefined);
  }

  /** Relationships by id, ordered by id. */
  async getRelationships(ids: readonly string[]): Promise<RelationshipRecord[]> {
    if (ids.length === 0) return [];
    const params: unknown[] = [ids];
    const { rows } = await this.db.query<RelationshipRow>(
      `SELECT ${RELATIONSHIP_COLUMNS} FROM graph_relationships r
        WHERE r.id = ANY($1::text[]) AND ${readSpaceSql('r', params)} ORDER BY r.id COLLATE "C"`,
      params,
    );
    return rows.map(toRelationshipRecord);
  }

  /** Deletes a relationship; true when it existed. */
  async deleteRelationship(id: string): Promise<boolean> {
    const params: unknown[] = [id];
    const { rowCount } = await this.db.query(
      `DELETE FROM graph_relationships r WHERE r.id = $1 AND ${spaceSql('r', params)}`,
      params,
    );
    return rowCount > 0;
  }

  /** Relationships touching the entities in `direction` (OUT: entity is `from`), optionally of given types; ordered by id. */
  async relationshipsOf(
    ids: readonly string[],
    direction: Direction,
    types?: readonly string[],
  ): Promise<RelationshipRecord[]> {
    if (ids.length === 0) return [];
    const params = new SqlParams();
    const p = params.add(ids);
    const ends =
      direction === 'OUT'
        ? `r.from_id = ANY(${p}::text[])`
        : direction === 'IN'
          ? `r.to_id = ANY(${p}::text[])`
          : `(r.from_id = ANY(${p}::text[]) OR r.to_id = ANY(${p}::text[]))`;
    const typeFilter = types?.length ? ` AND r.type = ANY(${params.add(types)}::text[])` : '';
    const { rows } = await this.db.query<RelationshipRow>(
      `SELECT ${RELATIONSHIP_COLUMNS} FROM graph_relationships r
        WHERE ${ends}${typeFilter} AND ${readSpaceSql('r', params)} ORDER BY r.id COLLATE "C"`,
      params.values,
    );
    return rows.map(toRelationshipRecord);
  }

  /**
   * One traversal step in one statement: per node, up to `capPerNode` edges in `direction`, ordered by (type,
   * neighbour id, relationship id); output ordered by node then that order. A self-loop appears once under BOTH.
   */
  async expand(
    ids: readonly string[],
    direction: Direction,
    types: readonly string[] | undefined,
    capPerNode: number,
  ): Promise<Edge[]> {
    if (ids.length === 0 || capPerNode <= 0) return [];
    const params = new SqlParams();
    const p = params.add(ids);
    const typeFilter = `${types?.length ? ` AND r.type = ANY(${params.add(types)}::text[])` : ''} AND ${readSpaceSql('r', params)}`;
    const parts: string[] = [];
    if (direction !== 'IN') {
      parts.push(`SELECT r.from_id AS node, r.to_id AS neighbor, ${RELATIONSHIP_COLUMNS}
                    FROM graph_relationships r WHERE r.from_id = ANY(${p}::text[])${typeFilter}`);
    }
    if (direction !== 'OUT') {
      // Under BOTH the outgoing half already returned self-loops.
      const loops = direction === 'BOTH' ? ' AND r.from_id <> r.to_id' : '';
      parts.push(`SELECT r.to_id AS node, r.from_id AS neighbor, ${RELATIONSHIP_COLUMNS}
                    FROM graph_relationships r WHERE r.to_id = ANY(${p}::text[])${typeFilter}${loops}`);
    }
    const cap = params.add(capPerNode);
    const { rows } = await this.db.query<RelationshipRow & { node: string; neighbor: string; neighbor_name: string }>(
      `SELECT node, neighbor, n.name AS neighbor_name, ranked.id, ranked.type, from_id, to_id, ranked.properties, ranked.origin, ranked.created_at
         FROM (SELECT x.*, row_number() OVER (PARTITION BY x.node
                                               ORDER BY x.type COLLATE "C", x.neighbor COLLATE "C", x.id COLLATE "C") AS rn
                 FROM (${parts.join(' UNION ALL ')}) x) ranked
         JOIN graph_entities n ON n.id = ranked.neighbor
        WHERE rn <= ${cap}::int
        ORDER BY node COLLATE "C", rn`,
      params.values,
    );
    return rows.map((r) => ({
      fromId: r.node,
      neighborId: r.neighbor,
      neighborName: r.neighbor_name,
      relationship: toRelationshipRecord(r),
    }));
  }

  /** Relationships whose both ends are in `ids`, ordered by id. */
  async relationshipsAmong(ids: readonly string[]): Promise<RelationshipRecord[]> {
    if (ids.length === 0) return [];
    const params: unknown[] = [ids];
    const { rows } = await this.db.query<RelationshipRow>(
      `SELECT ${RELATIONSHIP_COLUMNS} FROM graph_relationships r
        WHERE r.from_id = ANY($1::text[]) AND r.to_id = ANY($1::text[]) AND ${readSpaceSql('r', params)}
        ORDER BY r.id COLLATE "C"`,
      params,
    );
    return rows.map(toRelationshipRecord);
  }

  /** Both reads at once (each is one statement here). */
  async entitiesAndRelationshipsAmong(ids: readonly string[]): Promise<EntitiesAndRelationships> {
    const [entities, relationships] = await Promise.all([this.getEntities(ids), this.relationshipsAmong(ids)]);
    return { entities, relationships };
  }

  /** Counts for graphStats; degree counts relationships in both directions (a self-loop counts twice). */
  counts(topDegree: number): Promise<GraphCounts> {
    return graphCounts(this.db, topDegree, ORPHAN, MENTIONED);
  }

  /** Runs `SELECT 1`; throws GRAPH_UNAVAILABLE when the database does not answer. */
  async ping(): Promise<void> {
    try {
      await this.db.query('SELECT 1');
    } catch (err) {
      throw new AppError(
        ErrorCode.GRAPH_UNAVAILABLE,
        'The graph store (Postgres) is unavailable',
        { store: 'postgres' },
        { cause: err },
      );
    }
  }

  /** Nothing to release: the Db belongs to the caller. */
  async close(): Promise<void> {}
}
