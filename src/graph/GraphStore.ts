import type {
  Direction,
  Edge,
  EntityFilterSpec,
  EntityPage,
  EntityRecord,
  EntityWrite,
  GraphCounts,
  MentionIndex,
  MentionOp,
  RelationshipRecord,
  RelationshipWrite,
} from './types.js';

/**
 * Storage of the knowledge graph. Implemented by Postgres tables (embedded default) and by Neo4j; one contract test
 * suite (test/integration/graphStore.contract.test.ts) holds both to identical behaviour. Traversal logic that must
 * agree across stores (depth, caps, tie-breaks) lives in `traversal.ts` on top of `expand`.
 */
export interface GraphStore {
  readonly kind: 'postgres' | 'neo4j';
  /** Creates constraints and indexes (idempotent). */
  init(): Promise<void>;
  /** Inserts or replaces entities by id (createdAt survives); returns them in input order. */
  upsertEntities(entities: readonly EntityWrite[]): Promise<EntityRecord[]>;
  /** Entities by id, in no particular order; missing ids are absent. */
  getEntities(ids: readonly string[]): Promise<EntityRecord[]>;
  /**
   * Entities matching a filter, ordered by (name, id), after the (name, id) keyset position. "Mentioned"
   * (`hasDocuments`) always means the Postgres mentions table, as `Entity.documents` does, whichever the store.
   */
  findEntities(filter: EntityFilterSpec, first: number, after?: { name: string; id: string }): Promise<EntityPage>;
  /** Deletes an entity with its relationships; true when it existed. */
  deleteEntity(id: string): Promise<boolean>;
  /**
   * Inserts relationships, or updates the properties of an existing (from, type, to). Fails with NOT_FOUND naming
   * the first missing endpoint, writing nothing.
   */
  upsertRelationships(relationships: readonly RelationshipWrite[]): Promise<RelationshipRecord[]>;
  /** Relationships by id. */
  getRelationships(ids: readonly string[]): Promise<RelationshipRecord[]>;
  /** Deletes a relationship; true when it existed. */
  deleteRelationship(id: string): Promise<boolean>;
  /** Relationships touching each entity in the given direction (OUT: entity is `from`), optionally of given types. */
  relationshipsOf(
    ids: readonly string[],
    direction: Direction,
    types?: readonly string[],
  ): Promise<RelationshipRecord[]>;
  /**
   * One traversal step: for each node, up to `capPerNode` edges in `direction`, ordered by (relationship type,
   * neighbour id, relationship id). `neighborId` is the node at the other end.
   */
  expand(
    ids: readonly string[],
    direction: Direction,
    types: readonly string[] | undefined,
    capPerNode: number,
  ): Promise<Edge[]>;
  /** Relationships whose both ends are in `ids`. */
  relationshipsAmong(ids: readonly string[]): Promise<RelationshipRecord[]>;
  /** `getEntities(ids)` and `relationshipsAmong(ids)` in one read: one round trip on Neo4j. */
  entitiesAndRelationshipsAmong(ids: readonly string[]): Promise<EntitiesAndRelationships>;
  /**
   * Mirrors mention changes from Postgres (where mentions live) into the store; idempotent, so the outbox can
   * apply a batch twice. The Postgres store has nothing to mirror and omits it.
   */
  applyMentionOps?(ops: readonly MentionOp[]): Promise<void>;
  /**
   * Attaches the reader of the Postgres mentions table, for `hasDocuments` and `unmentionedCount`. The Postgres store
   * reads the table in its own queries and omits it.
   */
  useMentionIndex?(index: MentionIndex): void;
  /** Counts for graphStats. */
  counts(topDegree: number): Promise<GraphCounts>;
  /** Reports whether the store answers (throws GRAPH_UNAVAILABLE otherwise). */
  ping(): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
}

/** Entities with the relationships among them (see `GraphStore.entitiesAndRelationshipsAmong`). */
export interface EntitiesAndRelationships {
  entities: EntityRecord[];
  relationships: RelationshipRecord[];
}
