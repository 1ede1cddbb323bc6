import neo4j from 'neo4j-driver';
import { AppError, ErrorCode } from '../../errors.js';
import type { EntitiesAndRelationships, GraphStore } from '../GraphStore.js';
import {
  RELATIONSHIP_TYPE_PATTERN,
  type Direction,
  type Edge,
  type EntityFilterSpec,
  type EntityPage,
  type EntityRecord,
  type EntityWrite,
  type GraphCounts,
  type MentionIndex,
  type MentionOp,
  type RelationshipRecord,
  type RelationshipWrite,
} from '../types.js';
import { validateEntityType, validateRelationshipType } from '../validateGraphInput.js';
import * as Q from './cypher.js';
import { Neo4jConnection, type Neo4jOptions, type SpacedTransaction } from './Neo4jConnection.js';
import { countsTx, findEntitiesTx } from './entityReads.js';
import { CHUNK, upsertEntitiesTx, upsertRelationshipsTx } from './graphWrites.js';
import {
  entityParams,
  relationshipKey,
  toEdges,
  toEntityRecord,
  toRelationshipRecord,
  uniqueBy,
  type EntityMap,
  type ExpandedEdge,
  type RelationshipMap,
} from './mapping.js';
import { applyMentionOps } from './mentions.js';
import { Neo4jSchema } from './Neo4jSchema.js';

// Data model: every entity is (:Entity:<Type> {id, type, name, nameLower, aliases, aliasesLower, description,
// properties: JSON string, createdAt, updatedAt: epoch ms}); relationships are [:<TYPE> {id, properties: JSON string,
// createdAt}] between entities. Mentions mirrored from Postgres are (:Entity)-[:MENTIONED_IN]->(:Document {id, title});
// every graph query matches both ends as :Entity, so mentions never count as relationships.

/** Connection options of the store (uri, user, password, optional database and logger). */
export type { Neo4jOptions } from './Neo4jConnection.js';

/** Most mentioned-entity ids that `hasDocuments` sends to Neo4j with one query (a few MB of parameters). */
export const MAX_MENTIONED_IDS = 100_000;

const int = (n: number) => neo4j.int(Math.max(0, Math.floor(n)));

/** The knowledge graph in Neo4j (5.26+, Community is enough): one driver per instance, a session per unit of work. */
export class Neo4jGraphStore implements GraphStore {
  readonly kind = 'neo4j' as const;
  private readonly conn: Neo4jConnection;
  private readonly schema: Neo4jSchema;

  constructor(
    options: Neo4jOptions,
    private mentions?: MentionIndex,
  ) {
    this.conn = new Neo4jConnection(options);
    this.schema = new Neo4jSchema(this.conn);
  }

  /** Creates constraints and indexes (idempotent), including the id index of every existing relationship type. */
  async init(): Promise<void> {
    await this.conn.guard('init', async () => {
      await this.schema.init(await this.conn.read((tx) => this.relationshipTypes(tx)));
      await this.schema.backfillSpaces();
    });
  }

  /** Inserts or replaces entities (last duplicate wins, createdAt survives, labels follow the type); input order. */
  async upsertEntities(entities: readonly EntityWrite[]): Promise<EntityRecord[]> {
    if (entities.length === 0) return [];
    // Sorted by id: concurrent batches lock nodes in the same order, avoiding deadlocks.
    const rows = uniqueBy(entities, (e) => e.id)
      .map((e) => entityParams({ ...e, type: validateEntityType(e.type) }))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const nowMs = Date.now();
    const byId = await this.conn.guard('upsertEntities', () =>
      this.conn.write((tx) => upsertEntitiesTx(tx, rows, nowMs)),
    );
    return entities.map((e) => byId.get(e.id)).filter((e): e is EntityRecord => e !== undefined);
  }

  /** Entities by id, in no particular order; missing ids are absent. */
  async getEntities(ids: readonly string[]): Promise<EntityRecord[]> {
    if (ids.length === 0) return [];
    return this.conn.guard('getEntities', () =>
      this.conn
        .readQuery(
          `UNWIND $ids AS id MATCH (e:Entity {id: id}) WHERE ${Q.inSpace('e')} RETURN ${Q.entityMap('e')} AS e`,
          {
            ids: [...new Set(ids)],
          },
        )
        .then((records) => records.map((r) => toEntityRecord(r.get('e') as EntityMap))),
    );
  }

  /**
   * Entities matching a filter, ordered by (name, id) in code unit order, after the keyset position. `hasDocuments`
   * sends the ids of mentioned entities (from the MentionIndex) along; more than MAX_MENTIONED_IDS fails.
   */
  async findEntities(
    filter: EntityFilterSpec,
    first: number,
    after?: { name: string; id: string },
  ): Promise<EntityPage> {
    const mentioned = filter.hasDocuments === undefined ? undefined : await this.mentionedIds(MAX_MENTIONED_IDS);
    return this.conn.guard('findEntities', () =>
      this.conn.read((tx) => findEntitiesTx(tx, filter, first, after, mentioned)),
    );
  }

  /** Deletes an entity with its relationships (and mentions); true when it existed. */
  async deleteEntity(id: string): Promise<boolean> {
    return this.conn.guard('deleteEntity', () =>
      this.conn.write(async (tx) => {
        const res = await tx.run(
          `MATCH (e:Entity {id: $id}) WHERE ${Q.inOwnSpace('e')} DETACH DELETE e RETURN count(*) AS n`,
          { id },
        );
        return Number(res.records[0]?.get('n') ?? 0) > 0;
      }),
    );
  }

  /**
   * Inserts relationships or updates the properties of existing (from, type, to) ones, in one transaction; fails with
   * NOT_FOUND naming the first missing endpoint (input order) and writes nothing. Returns them in input order.
   */
  async upsertRelationships(relationships: readonly RelationshipWrite[]): Promise<RelationshipRecord[]> {
    if (relationships.length === 0) return [];
    for (const r of relationships) validateRelationshipType(r.type);
    const unique = uniqueBy(relationships, (r) => relationshipKey(r.fromId, r.type, r.toId));
    const nowMs = Date.now();
    const byKey = await this.conn.guard('upsertRelationships', async () => {
      await this.schema.ensureRelationshipIndexes(unique.map((r) => r.type));
      return this.conn.write((tx) => upsertRelationshipsTx(tx, unique, relationships, nowMs));
    });
    return relationships
      .map((r) => byKey.get(relationshipKey(r.fromId, r.type, r.toId)))
      .filter((r): r is RelationshipRecord => r !== undefined);
  }

  /** Relationships by id, ordered by id. */
  async getRelationships(ids: readonly string[]): Promise<RelationshipRecord[]> {
    if (ids.length === 0) return [];
    return this.conn.guard('getRelationships', async () => {
      const types = await this.conn.read((tx) => this.relationshipTypes(tx));
      if (types.length === 0) return [];
      await this.schema.ensureRelationshipIndexes(types);
      const query = Q.relationshipsByIdQuery(types, `WITH DISTINCT r RETURN ${Q.REL_MAP} AS r ORDER BY r.id`);
      return this.relationshipRows(query, { ids: [...new Set(ids)] });
    });
  }

  /** Deletes a relationship; true when it existed. */
  async deleteRelationship(id: string): Promise<boolean> {
    return this.conn.guard('deleteRelationship', async () => {
      const types = await this.conn.read((tx) => this.relationshipTypes(tx));
      if (types.length === 0) return false;
      await this.schema.ensureRelationshipIndexes(types);
      const query = Q.relationshipsByIdQuery(types, 'WITH DISTINCT r DELETE r RETURN count(*) AS n', true);
      return this.conn.write(async (tx) => {
        const res = await tx.run(query, { ids: [id] });
        return Number(res.records[0]?.get('n') ?? 0) > 0;
      });
    });
  }

  /** Relationships touching the entities in `direction` (OUT: entity is `from`), optionally of given types; ordered by id. */
  async relationshipsOf(
    ids: readonly string[],
    direction: Direction,
    types?: readonly string[],
  ): Promise<RelationshipRecord[]> {
    const filter = Q.typeFilter(types);
    if (ids.length === 0 || filter === null) return [];
    const query = Q.relationshipsOfQuery(direction, filter);
    return this.conn.guard('relationshipsOf', () => this.relationshipRows(query, { ids: [...new Set(ids)] }));
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
    const filter = Q.typeFilter(types);
    if (ids.length === 0 || capPerNode <= 0 || filter === null) return [];
    const query = Q.expandQuery(direction, filter);
    const nodes = [...new Set(ids)].sort();
    return this.conn.guard('expand', () =>
      this.conn.readQuery(query, { ids: nodes, cap: int(capPerNode) }).then((records) => {
        const rows = records.map((r) => ({
          fromId: r.get('fromId') as string,
          edges: r.get('edges') as ExpandedEdge[],
        }));
        rows.sort((a, b) => (a.fromId < b.fromId ? -1 : a.fromId > b.fromId ? 1 : 0)); // aggregation may reorder nodes
        return rows.flatMap((r) => toEdges(r.fromId, r.edges));
      }),
    );
  }

  /** Relationships whose both ends are in `ids`, ordered by id. */
  async relationshipsAmong(ids: readonly string[]): Promise<RelationshipRecord[]> {
    if (ids.length === 0) return [];
    return this.conn.guard('relationshipsAmong', () =>
      this.relationshipRows(Q.RELATIONSHIPS_AMONG, { ids: [...new Set(ids)] }),
    );
  }

  /** Both reads in one query, so one round trip. */
  async entitiesAndRelationshipsAmong(ids: readonly string[]): Promise<EntitiesAndRelationships> {
    if (ids.length === 0) return { entities: [], relationships: [] };
    return this.conn.guard('entitiesAndRelationshipsAmong', async () => {
      const [row] = await this.conn.readQuery(Q.ENTITIES_AND_RELATIONSHIPS_AMONG, { ids: [...new Set(ids)] });
      return {
        entities: ((row?.get('entities') ?? []) as EntityMap[]).map(toEntityRecord),
        relationships: ((row?.get('relationships') ?? []) as RelationshipMap[]).map(toRelationshipRecord),
      };
    });
  }

  /** Runs a read statement that returns relationship maps as `r`. */
  private async relationshipRows(query: string, params: Record<string, unknown>): Promise<RelationshipRecord[]> {
    return (await this.conn.readQuery(query, params)).map((r) => toRelationshipRecord(r.get('r') as RelationshipMap));
  }

  /** Mirrors mention changes from Postgres, in order, in one transaction; idempotent. */
  async applyMentionOps(ops: readonly MentionOp[]): Promise<void> {
    if (ops.length === 0) return;
    await this.conn.guard('applyMentionOps', () => this.conn.write((tx) => applyMentionOps(tx, ops, CHUNK)));
  }

  /** Counts for graphStats; degree counts relationships in both directions (a self-loop counts twice). */
  async counts(topDegree: number): Promise<GraphCounts> {
    const mentioned = await this.mentionedIds();
    return this.conn.guard('counts', () =>
      this.conn.read(async (tx) => countsTx(tx, topDegree, await this.relationshipTypes(tx), mentioned)),
    );
  }

  /** Where "mentioned" is read from (the Postgres mentions table); the composition root attaches it. */
  useMentionIndex(index: MentionIndex): void {
    this.mentions = index;
  }

  /** Runs `RETURN 1` once (no retries); throws GRAPH_UNAVAILABLE when Neo4j does not answer. */
  async ping(): Promise<void> {
    await this.conn.guard('ping', () => this.conn.verify());
  }

  /** Closes the driver. */
  async close(): Promise<void> {
    await this.conn.close();
  }

  /** Ids of mentioned entities, read before any Neo4j work so that a Postgres failure is not reported as Neo4j's. */
  private async mentionedIds(cap?: number): Promise<string[]> {
    if (!this.mentions) throw new Error('the Neo4j graph store has no MentionIndex: call useMentionIndex first');
    const ids = await this.mentions.mentionedEntityIds(cap);
    if (cap !== undefined && ids.length > cap) {
      throw new AppError(
        ErrorCode.QUERY_TOO_COMPLEX,
        `filter.hasDocuments on the Neo4j graph store handles at most ${cap} mentioned entities; narrow the query another way`,
        { limit: cap },
      );
    }
    return ids;
  }

  /** Valid relationship types present in the database. */
  private async relationshipTypes(tx: SpacedTransaction): Promise<string[]> {
    const res = await tx.run(Q.RELATIONSHIP_TYPES);
    const types = (res.records[0]?.get('types') as string[] | undefined) ?? [];
    return types.filter((t) => RELATIONSHIP_TYPE_PATTERN.test(t)).sort();
  }
}
