import type { JsonObject } from '../shared/json.js';

/** Entity types: PascalCase-ish labels, safe to use as Neo4j labels. */
export const ENTITY_TYPE_PATTERN = /^[A-Z][A-Za-z0-9_]{0,63}$/;
/** Relationship types: UPPER_SNAKE, safe to use as Neo4j relationship types. */
export const RELATIONSHIP_TYPE_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/;
/** Entity ids: like document ids. */
export const ENTITY_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_\-:./@#?=&%+~]{0,511}$/;

/**
 * Where a fact came from: written through the API (MANUAL), by an importer (IMPORTED, e.g. an OpenAPI spec), or
 * built from document text (EXTRACTED). Extraction never changes or removes MANUAL and IMPORTED facts.
 */
export type Origin = 'MANUAL' | 'IMPORTED' | 'EXTRACTED';

/** Every origin, in the order the API lists them. */
export const ORIGINS: readonly Origin[] = ['MANUAL', 'IMPORTED', 'EXTRACTED'];

/** A typed entity of the knowledge graph. */
export interface EntityRecord {
  id: string;
  type: string;
  name: string;
  aliases: string[];
  description: string | null;
  properties: JsonObject;
  origin: Origin;
  createdAt: Date;
  updatedAt: Date;
}

/** A named, directed relationship; `(fromId, type, toId)` is unique. */
export interface RelationshipRecord {
  id: string;
  type: string;
  fromId: string;
  toId: string;
  properties: JsonObject;
  origin: Origin;
  createdAt: Date;
}

/** A validated entity write (id always set: generated before reaching a store). */
export interface EntityWrite {
  id: string;
  type: string;
  name: string;
  aliases: string[];
  description: string | null;
  properties: JsonObject;
  /** Whether text naming it links to it automatically; undefined keeps the recorded choice (true for a new entity). */
  linkByName?: boolean;
  /**
   * Where it came from, stored as given. Absent means a person's write (the API): a new fact is MANUAL, and an
   * EXTRACTED fact it updates becomes MANUAL (curated, so extraction no longer removes it); others keep theirs.
   */
  origin?: Origin;
}

/** A validated relationship write. Its id is derived from (fromId, type, toId) so upserts are idempotent. */
export interface RelationshipWrite {
  id: string;
  type: string;
  fromId: string;
  toId: string;
  properties: JsonObject;
  /**
   * Where it came from, stored as given. Absent means a person's write (the API): a new fact is MANUAL, and an
   * EXTRACTED fact it updates becomes MANUAL (curated, so extraction no longer removes it); others keep theirs.
   */
  origin?: Origin;
}

/** Which relationships to follow from an entity. */
export type Direction = 'OUT' | 'IN' | 'BOTH';

/** One step of a traversal: `relationship` links `fromId` (already reached) to `neighborId`. */
export interface Edge {
  fromId: string;
  neighborId: string;
  /** The neighbour's name, so traversals can order neighbours before (or without) reading their records. */
  neighborName: string;
  relationship: RelationshipRecord;
}

/** A neighbour found by a traversal, at its smallest depth, with the relationship that reached it. */
export interface NeighborRecord {
  entity: EntityRecord;
  depth: number;
  relationship: RelationshipRecord;
}

/** A filter over entities. */
export interface EntityFilterSpec {
  types?: string[];
  /** Case-insensitive substring of the name or an alias. */
  nameContains?: string;
  /** true: at least one relationship (either direction); false: none; absent: either. */
  hasRelationships?: boolean;
  /** true: a live document mentions it (the Postgres `mentions` table); false: none does; absent: either. */
  hasDocuments?: boolean;
  /** Any of these origins; absent or empty: any. */
  origin?: Origin[];
}

/** A page of entities ordered by (name, id). */
export interface EntityPage {
  entities: EntityRecord[];
  hasNextPage: boolean;
  totalCount: number;
}

/** Counts for `graphStats`. */
export interface GraphCounts {
  entityCount: number;
  relationshipCount: number;
  byType: { key: string; count: number }[];
  /** Entities with no relationship. */
  orphanCount: number;
  /** Entities that no live document mentions. */
  unmentionedCount: number;
  /** Relationship counts per type, most common first, ties by type. */
  relationshipsByType: { key: string; count: number }[];
  /** Most connected entities. */
  topDegree: { entity: EntityRecord; degree: number }[];
}

/**
 * Which entities live documents mention, read from the Postgres `mentions` table: the one source of truth for
 * "mentioned" whichever store holds the graph.
 */
export interface MentionIndex {
  /** Distinct ids of entities that a live document mentions; with `limit`, at most `limit + 1` (to detect a cap). */
  mentionedEntityIds(limit?: number): Promise<string[]>;
}

/** A mention of an entity by a document. */
export interface MentionLink {
  entityId: string;
  documentId: string;
}

/** A change to mirror into a graph store: link an entity to a document, or drop all links of a document. */
export type MentionOp =
  | { op: 'link'; entityId: string; documentId: string; documentTitle: string; space?: string }
  | { op: 'unlinkDocument'; documentId: string }
  | { op: 'unlink'; entityId: string; documentId: string };
