import type { JsonObject } from '../../shared/json.js';
import type { Edge, EntityRecord, EntityWrite, Origin, RelationshipRecord, RelationshipWrite } from '../types.js';

// How records look in Neo4j: `properties` is a JSON string (Neo4j cannot store nested maps), timestamps are epoch
// milliseconds (integers), `nameLower` / `aliasesLower` serve case-insensitive search.

/** An entity as the `entityMap` projection returns it (integers already JS numbers: disableLosslessIntegers). */
export interface EntityMap {
  id: string;
  type: string;
  name: string;
  aliases?: string[] | null;
  description?: string | null;
  properties?: string | null;
  origin?: Origin | null;
  createdAt?: number | null;
  updatedAt?: number | null;
}

/** A relationship as the `REL_MAP` projection returns it. */
export interface RelationshipMap {
  id: string;
  type: string;
  fromId: string;
  toId: string;
  properties?: string | null;
  origin?: Origin | null;
  createdAt?: number | null;
}

/** An entity row sent to the upsert query. */
export interface EntityParams {
  id: string;
  type: string;
  name: string;
  nameLower: string;
  aliases: string[];
  aliasesLower: string[];
  description: string | null;
  properties: string;
  origin: Origin | null;
}

/** A relationship row sent to the upsert query. */
export interface RelationshipParams {
  key: string;
  id: string;
  fromId: string;
  toId: string;
  properties: string;
  origin: Origin | null;
}

function parseProperties(text: string | null | undefined): JsonObject {
  if (!text) return {};
  const value: unknown = JSON.parse(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject) : {};
}

const toDate = (ms: number | null | undefined): Date => new Date(typeof ms === 'number' ? ms : 0);

/** Maps a projected entity to an `EntityRecord`. */
export function toEntityRecord(m: EntityMap): EntityRecord {
  return {
    id: m.id,
    type: m.type,
    name: m.name,
    aliases: m.aliases ?? [],
    description: m.description ?? null,
    properties: parseProperties(m.properties),
    origin: m.origin ?? 'MANUAL',
    createdAt: toDate(m.createdAt),
    updatedAt: toDate(m.updatedAt),
  };
}

/** Maps a projected relationship to a `RelationshipRecord`. */
export function toRelationshipRecord(m: RelationshipMap): RelationshipRecord {
  return {
    id: m.id,
    type: m.type,
    fromId: m.fromId,
    toId: m.toId,
    properties: parseProperties(m.properties),
    origin: m.origin ?? 'MANUAL',
    createdAt: toDate(m.createdAt),
  };
}

/** The record of an entity just written from `p`, given what the database kept (createdAt, origin). */
export function writtenEntity(p: EntityParams, createdAt: number, updatedAt: number, origin: Origin): EntityRecord {
  return {
    id: p.id,
    type: p.type,
    name: p.name,
    aliases: [...p.aliases],
    description: p.description,
    properties: parseProperties(p.properties),
    origin,
    createdAt: new Date(createdAt),
    updatedAt: new Date(updatedAt),
  };
}

/** The record of a relationship just written from `w`, given what the database kept (id, createdAt, origin). */
export function writtenRelationship(
  w: RelationshipWrite,
  id: string,
  createdAt: number,
  origin: Origin,
): RelationshipRecord {
  return {
    id,
    type: w.type,
    fromId: w.fromId,
    toId: w.toId,
    properties: parseProperties(JSON.stringify(w.properties ?? {})),
    origin,
    createdAt: new Date(createdAt),
  };
}

/** One edge of an `expandQuery` row: `[neighbourId, id, type, outgoing, properties, createdAt, neighbourName, origin]`. */
export type ExpandedEdge = [string, string, string, boolean, string | null, number | null, string, Origin | null];

/** Maps the edges of one `expandQuery` row (node `fromId`) to `Edge`s, keeping their order. */
export function toEdges(fromId: string, edges: readonly ExpandedEdge[]): Edge[] {
  return edges.map(([neighborId, id, type, outgoing, properties, createdAt, neighborName, origin]) => ({
    fromId,
    neighborId,
    neighborName,
    relationship: toRelationshipRecord({
      id,
      type,
      fromId: outgoing ? fromId : neighborId,
      toId: outgoing ? neighborId : fromId,
      properties,
      origin,
      createdAt,
    }),
  }));
}

/** The parameters of one entity write. */
export function entityParams(e: EntityWrite): EntityParams {
  return {
    id: e.id,
    type: e.type,
    name: e.name,
    nameLower: e.name.toLowerCase(),
    aliases: [...e.aliases],
    aliasesLower: e.aliases.map((a) => a.toLowerCase()),
    description: e.description,
    properties: JSON.stringify(e.properties ?? {}),
    origin: e.origin ?? null,
  };
}

/** The parameters of one relationship write. */
export function relationshipParams(r: RelationshipWrite): RelationshipParams {
  return {
    key: relationshipKey(r.fromId, r.type, r.toId),
    id: r.id,
    fromId: r.fromId,
    toId: r.toId,
    properties: JSON.stringify(r.properties ?? {}),
    origin: r.origin ?? null,
  };
}

/** Identity of a relationship independent of its id: `(from, type, to)` is unique. */
export function relationshipKey(fromId: string, type: string, toId: string): string {
  return `${fromId}\u0000${type}\u0000${toId}`;
}

/** Groups items by a key, keeping first-seen key order and item order. */
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** Splits a list into chunks of at most `size`. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Last occurrence wins, in first-occurrence order (like Postgres' `new Map(...).values()`). */
export function uniqueBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  return [...new Map(items.map((i) => [key(i), i])).values()];
}
