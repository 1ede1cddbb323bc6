import type { Db, Queryable } from '../../db/Db.js';
import { readSpaceSql } from '../../db/spaceScope.js';
import type { Origin } from '../types.js';

/** An entity as entity_names records it, for extraction's entity resolution. */
export interface NamedEntity {
  entityId: string;
  name: string;
  aliases: string[];
  /** Null for entities written before types were recorded here (on Neo4j, until written again). */
  type: string | null;
  origin: Origin;
  /** Normalised keys of the name and aliases, the name's first. */
  keys: string[];
}

interface NameRow {
  entity_id: string;
  name: string;
  aliases: string[];
  type: string | null;
  origin: Origin;
  name_keys: string[];
}

const COLUMNS = 'entity_id, name, aliases, type, origin, name_keys';

function toNamedEntity(r: NameRow): NamedEntity {
  return { entityId: r.entity_id, name: r.name, aliases: r.aliases, type: r.type, origin: r.origin, keys: r.name_keys };
}

/**
 * Reads of entity_names by normalised key (the GIN and prefix indexes of migration 019), whichever graph store, in the
 * running space (extraction runs in its document's space).
 */
export class EntityNameLookup {
  constructor(private readonly db: Db) {}

  /** Entities any of whose name or alias keys is among `keys`. */
  async byKeys(keys: readonly string[], q: Queryable = this.db): Promise<NamedEntity[]> {
    if (keys.length === 0) return [];
    const params: unknown[] = [[...new Set(keys)]];
    const { rows } = await q.query<NameRow>(
      `SELECT ${COLUMNS} FROM entity_names n WHERE name_keys && $1::text[] AND ${readSpaceSql('n', params)}
        ORDER BY entity_id`,
      params,
    );
    return rows.map(toNamedEntity);
  }

  /** Entities whose name key starts with one of `prefixes` (three characters each): fuzzy-match candidates. */
  async byKeyPrefixes(
    prefixes: readonly string[],
    limitPerPrefix: number,
    q: Queryable = this.db,
  ): Promise<NamedEntity[]> {
    if (prefixes.length === 0) return [];
    const params: unknown[] = [[...new Set(prefixes)], limitPerPrefix];
    const { rows } = await q.query<NameRow>(
      `SELECT x.* FROM unnest($1::text[]) AS p(prefix)
        CROSS JOIN LATERAL (SELECT ${COLUMNS} FROM entity_names n
                             WHERE left(name_keys[1], 3) = p.prefix AND ${readSpaceSql('n', params)}
                             ORDER BY entity_id LIMIT $2) x`,
      params,
    );
    return rows.map(toNamedEntity);
  }

  /** The recorded entities among `ids`. */
  async byIds(ids: readonly string[], q: Queryable = this.db): Promise<Map<string, NamedEntity>> {
    if (ids.length === 0) return new Map();
    const params: unknown[] = [[...new Set(ids)]];
    const { rows } = await q.query<NameRow>(
      `SELECT ${COLUMNS} FROM entity_names n WHERE entity_id = ANY($1::text[]) AND ${readSpaceSql('n', params)}`,
      params,
    );
    return new Map(rows.map((r) => [r.entity_id, toNamedEntity(r)]));
  }
}
