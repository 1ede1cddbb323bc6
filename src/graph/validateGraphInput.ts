import { createHash, randomUUID } from 'node:crypto';
import type { JsonObject } from '../shared/json.js';
import { AppError, ErrorCode, badInput } from '../errors.js';
import { assertStorableText } from '../storableText.js';
import {
  ENTITY_ID_PATTERN,
  ENTITY_TYPE_PATTERN,
  RELATIONSHIP_TYPE_PATTERN,
  type EntityWrite,
  type RelationshipWrite,
} from './types.js';

/** An entity as clients send it. */
export interface RawEntityInput {
  id?: string | null;
  type?: string | null;
  name?: string | null;
  aliases?: readonly string[] | null;
  description?: string | null;
  properties?: unknown;
  /** False: documents and queries naming it are not linked automatically (importers' generic names); internal only. */
  linkByName?: boolean;
}

/** A relationship as clients send it. */
export interface RawRelationshipInput {
  fromId?: string | null;
  toId?: string | null;
  type?: string | null;
  properties?: unknown;
}

const MAX_NAME = 500;
const MAX_ALIASES = 50;
const MAX_DESCRIPTION = 10_000;
const MAX_PROPERTIES_BYTES = 64 * 1024;

/** Validates an entity id. */
export function validateEntityId(id: string, field = 'id'): string {
  if (!ENTITY_ID_PATTERN.test(id))
    throw badInput(
      field,
      `"${id.slice(0, 80)}" is not a valid id: 1-512 letters, digits and _ - : . / @ # ? = & % + ~`,
    );
  return id;
}

/** Validates an entity type (`^[A-Z][A-Za-z0-9_]{0,63}$`). */
export function validateEntityType(type: string | null | undefined, field = 'type'): string {
  if (!type || !ENTITY_TYPE_PATTERN.test(type)) {
    throw badInput(
      field,
      `"${type ?? ''}" is not a valid entity type: start with an upper-case letter, then letters, digits or _ (e.g. Service)`,
    );
  }
  return type;
}

/** Validates a relationship type (UPPER_SNAKE). */
export function validateRelationshipType(type: string | null | undefined, field = 'type'): string {
  if (!type || !RELATIONSHIP_TYPE_PATTERN.test(type)) {
    throw badInput(field, `"${type ?? ''}" is not a valid relationship type: use UPPER_SNAKE case, e.g. DEPENDS_ON`);
  }
  return type;
}

function validateProperties(value: unknown, field: string): JsonObject {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw badInput(field, 'must be a JSON object');
  if (Buffer.byteLength(JSON.stringify(value)) > MAX_PROPERTIES_BYTES)
    throw badInput(field, `must be at most ${MAX_PROPERTIES_BYTES} bytes as JSON`);
  return value as JsonObject;
}

function validateName(name: string | null | undefined, field: string): string {
  const n = (name ?? '').trim();
  if (n === '') throw badInput(field, 'must not be empty');
  if (n.length > MAX_NAME) throw badInput(field, `must be at most ${MAX_NAME} characters`);
  return n;
}

/** Validates aliases: trimmed, non-empty, distinct from each other (case-insensitively). */
export function validateAliases(aliases: readonly string[] | null | undefined, field: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const a of aliases ?? []) {
    const v = validateName(a, field);
    if (!seen.has(v.toLowerCase())) {
      seen.add(v.toLowerCase());
      out.push(v);
    }
  }
  if (out.length > MAX_ALIASES) throw badInput(field, `at most ${MAX_ALIASES} aliases`);
  return out;
}

/** Validates an entity write, generating an id when none is given. */
export function validateEntityInput(raw: RawEntityInput, prefix = 'input'): EntityWrite {
  assertStorableText(raw, prefix);
  const description = raw.description?.trim() || null;
  if (description && description.length > MAX_DESCRIPTION)
    throw badInput(`${prefix}.description`, `must be at most ${MAX_DESCRIPTION} characters`);
  return {
    id: raw.id ? validateEntityId(raw.id, `${prefix}.id`) : `ent_${randomUUID()}`,
    type: validateEntityType(raw.type, `${prefix}.type`),
    name: validateName(raw.name, `${prefix}.name`),
    aliases: validateAliases(raw.aliases, `${prefix}.aliases`),
    description,
    properties: validateProperties(raw.properties, `${prefix}.properties`),
    ...(raw.linkByName !== undefined ? { linkByName: raw.linkByName } : {}),
  };
}

/** Deterministic relationship id: the same (from, type, to) always gets the same id, so upserts are repeatable. */
export function relationshipId(fromId: string, type: string, toId: string): string {
  return `rel_${createHash('sha256').update(`${fromId}\u0000${type}\u0000${toId}`).digest('hex').slice(0, 24)}`;
}

/** Validates a relationship write. */
export function validateRelationshipInput(raw: RawRelationshipInput, prefix = 'input'): RelationshipWrite {
  assertStorableText(raw, prefix);
  const fromId = validateEntityId(raw.fromId ?? '', `${prefix}.fromId`);
  const toId = validateEntityId(raw.toId ?? '', `${prefix}.toId`);
  const type = validateRelationshipType(raw.type, `${prefix}.type`);
  return {
    id: relationshipId(fromId, type, toId),
    fromId,
    toId,
    type,
    properties: validateProperties(raw.properties, `${prefix}.properties`),
  };
}

/** Rejects a batch that gives the same id twice: one upsert cannot write a row twice, and which copy wins would be unclear. */
export function assertDistinctIds<T extends { id: string }>(
  items: readonly T[],
  field: string,
  describe: (item: T) => string,
): void {
  const first = new Map<string, number>();
  items.forEach((item, i) => {
    const earlier = first.get(item.id);
    if (earlier !== undefined)
      throw badInput(
        `${field}[${i}]`,
        `${describe(item)} is also given at ${field}[${earlier}]; give each once per call`,
      );
    first.set(item.id, i);
  });
}

/** An entity write naming an id that another space holds: refused, whatever the space (both stores answer alike). */
export function entityIdTaken(id: string | undefined): AppError {
  return new AppError(
    ErrorCode.CONFLICT,
    `entity id "${id ?? ''}" cannot be written in this space; choose another id`,
    {
      id,
    },
  );
}
