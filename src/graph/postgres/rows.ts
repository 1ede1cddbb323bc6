import type { JsonObject } from '../../shared/json.js';
import { toDate } from '../../db/rowValues.js';
import type { EntityRecord, Origin, RelationshipRecord } from '../types.js';

/** A `graph_entities` row as the database returns it. */
export interface EntityRow {
  id: string;
  type: string;
  name: string;
  aliases: string[];
  description: string | null;
  properties: JsonObject;
  origin: Origin;
  created_at: Date | string;
  updated_at: Date | string;
}

/** A `graph_relationships` row as the database returns it. */
export interface RelationshipRow {
  id: string;
  type: string;
  from_id: string;
  to_id: string;
  properties: JsonObject;
  origin: Origin;
  created_at: Date | string;
}

/** Columns selected for an entity (alias `e`), in a stable order. */
export const ENTITY_COLUMNS =
  'e.id, e.type, e.name, e.aliases, e.description, e.properties, e.origin, e.created_at, e.updated_at';

/** Columns selected for a relationship (alias `r`), in a stable order. */
export const RELATIONSHIP_COLUMNS = 'r.id, r.type, r.from_id, r.to_id, r.properties, r.origin, r.created_at';

/** Entity columns as written by `INSERT ... RETURNING` (no alias available there). */
export const ENTITY_RETURNING = 'id, type, name, aliases, description, properties, origin, created_at, updated_at';

/** Relationship columns as written by `INSERT ... RETURNING`. */
export const RELATIONSHIP_RETURNING = 'id, type, from_id, to_id, properties, origin, created_at';

/** Maps a database row to an `EntityRecord`. */
export function toEntityRecord(row: EntityRow): EntityRecord {
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    aliases: row.aliases ?? [],
    description: row.description,
    properties: row.properties ?? {},
    origin: row.origin,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

/** Maps a database row to a `RelationshipRecord`. */
export function toRelationshipRecord(row: RelationshipRow): RelationshipRecord {
  return {
    id: row.id,
    type: row.type,
    fromId: row.from_id,
    toId: row.to_id,
    properties: row.properties ?? {},
    origin: row.origin,
    createdAt: toDate(row.created_at),
  };
}

/** Identity of a relationship independent of its id: `(from, type, to)` is unique. */
export function relationshipKey(fromId: string, type: string, toId: string): string {
  return `${fromId}\u0000${type}\u0000${toId}`;
}

/**
 * The origin to store, from the write's origin (`given`, null when absent) and the recorded one (`current`, null for
 * a new row): as given, else MANUAL for a new row and for an EXTRACTED one (a person curated it), else the recorded.
 */
export function originToStore(given: string, current: string): string {
  return `COALESCE(${given}, CASE WHEN ${current} IS NULL OR ${current} = 'EXTRACTED' THEN 'MANUAL' ELSE ${current} END)`;
}
