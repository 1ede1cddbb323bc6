import type { Db, Queryable } from '../../db/Db.js';
import { readSpaceSql, spaceSql, writeSpace } from '../../db/spaceScope.js';
import { nameKeys } from '../../extraction/nameKey.js';
import type { EntityName } from './MentionMatcher.js';
import type { NameChange } from './NameCache.js';

/** The entity_names table and its version and change log: every entity's linking names, whichever store holds it. */
export class EntityNameRepository {
  constructor(private readonly db: Db) {}

  /** Records (or refreshes) entity names for linking; returns the ids among them that link by name, as recorded now. */
  async upsertNames(q: Queryable, unsorted: readonly EntityName[]): Promise<Set<string>> {
    if (unsorted.length === 0) return new Set();
    // Rows are locked in id order, whatever order callers give: concurrent batches then cannot deadlock on them.
    const names = [...unsorted].sort((a, b) => (a.entityId < b.entityId ? -1 : a.entityId > b.entityId ? 1 : 0));
    const ids = names.map((n) => n.entityId);
    // Extraction never takes over an entity a person or an importer wrote (its origin stays theirs).
    await q.query(
      `INSERT INTO entity_names (entity_id, name, aliases, name_keys, type, origin, space_id)
       SELECT x.id, x.name, ARRAY(SELECT jsonb_array_elements_text(x.aliases::jsonb)),
              ARRAY(SELECT jsonb_array_elements_text(x.keys::jsonb)), x.type, coalesce(x.origin, 'MANUAL'), $7::text
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS x(id, name, aliases, keys, type, origin)
       ON CONFLICT (entity_id) DO UPDATE SET name = EXCLUDED.name, aliases = EXCLUDED.aliases, name_keys = EXCLUDED.name_keys,
              type = coalesce(EXCLUDED.type, entity_names.type),
              origin = CASE WHEN EXCLUDED.origin = 'EXTRACTED' THEN entity_names.origin ELSE EXCLUDED.origin END,
              updated_at = now()
        WHERE entity_names.space_id = EXCLUDED.space_id`,
      [
        ids,
        names.map((n) => n.name),
        names.map((n) => JSON.stringify(n.aliases)),
        names.map((n) => JSON.stringify(nameKeys(n.name, n.aliases))),
        names.map((n) => n.type ?? null),
        names.map((n) => n.origin ?? null),
        writeSpace(),
      ],
    );
    // A write that does not say keeps the recorded choice (a new entity links by name).
    const chosen = names.filter((n) => n.linkByName !== undefined);
    if (chosen.length > 0) {
      const params: unknown[] = [chosen.map((n) => n.entityId), chosen.map((n) => n.linkByName)];
      await q.query(
        `UPDATE entity_names n SET link_by_name = x.link FROM unnest($1::text[], $2::boolean[]) AS x(id, link)
          WHERE n.entity_id = x.id AND ${spaceSql('n', params)}`,
        params,
      );
    }
    const linking: unknown[] = [ids];
    const { rows } = await q.query<{ entity_id: string }>(
      `SELECT entity_id FROM entity_names n WHERE n.entity_id = ANY($1::text[]) AND link_by_name AND ${spaceSql('n', linking)}`,
      linking,
    );
    return new Set(rows.map((r) => r.entity_id));
  }

  /** Ids of entities whose id starts with any of `prefixes` (entity_names lists every entity, whichever store holds it). */
  async entityIdsWithPrefix(prefixes: readonly string[]): Promise<string[]> {
    if (prefixes.length === 0) return [];
    const { rows } = await this.db.query<{ entity_id: string }>(
      'SELECT entity_id FROM entity_names WHERE EXISTS (SELECT 1 FROM unnest($1::text[]) AS p WHERE starts_with(entity_id, p)) ORDER BY entity_id',
      [prefixes],
    );
    return rows.map((r) => r.entity_id);
  }

  /** Forgets an entity of the request's space: its mentions go with it (cascade). */
  async deleteName(q: Queryable, entityId: string): Promise<void> {
    const params: unknown[] = [entityId];
    await q.query(`DELETE FROM entity_names n WHERE n.entity_id = $1 AND ${spaceSql('n', params)}`, params);
  }

  /** Every name of the request's space that links by name, for its matcher (and for finding entities a query names). */
  async allNames(q: Queryable = this.db): Promise<EntityName[]> {
    const params: unknown[] = [];
    const { rows } = await q.query<{ entity_id: string; name: string; aliases: string[] }>(
      `SELECT entity_id, name, aliases FROM entity_names n WHERE link_by_name AND ${readSpaceSql('n', params)}`,
      params,
    );
    return rows.map((r) => ({ entityId: r.entity_id, name: r.name, aliases: r.aliases }));
  }

  /**
   * The names' version (migration 018): one row, bumped by every statement that writes entity_names, so reading it
   * costs the same at any number of names. Changes numbered up to it are visible once it is read.
   */
  async namesVersion(q: Queryable = this.db): Promise<bigint> {
    const { rows } = await q.query<{ v: string }>('SELECT version::text AS v FROM entity_names_version');
    return BigInt(rows[0]?.v ?? '0');
  }

  /**
   * Entities whose name changed after `version`: each with its current linking name, or `name: undefined` when it
   * was deleted or no longer links by name. Undefined when more than `limit` changed (reading all names is cheaper).
   * Two index lookups (the change log by version, the names by id), whatever the size of the name table.
   */
  async namesChangedSince(q: Queryable, version: bigint, limit: number): Promise<NameChange[] | undefined> {
    const changed = await q.query<{ entity_id: string }>(
      'SELECT entity_id FROM entity_name_changes WHERE version > $1::bigint ORDER BY version LIMIT $2',
      [version.toString(), limit + 1],
    );
    if (changed.rows.length > limit) return undefined;
    const ids = changed.rows.map((r) => r.entity_id);
    if (ids.length === 0) return [];
    // Another space's changed entity reads as gone: the request's cache never held it, so nothing changes there.
    const params: unknown[] = [ids];
    const { rows } = await q.query<{ entity_id: string; name: string; aliases: string[] }>(
      `SELECT entity_id, name, aliases FROM entity_names n WHERE entity_id = ANY($1::text[]) AND link_by_name AND ${readSpaceSql('n', params)}`,
      params,
    );
    const current = new Map(rows.map((r) => [r.entity_id, r]));
    return ids.map((entityId) => {
      const n = current.get(entityId);
      return { entityId, name: n ? { entityId, name: n.name, aliases: n.aliases } : undefined };
    });
  }

  /** The space of each of these entities the request reads (its own, and in a query the spaces it reads). */
  async spacesOf(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const params: unknown[] = [ids];
    const { rows } = await this.db.query<{ entity_id: string; space_id: string }>(
      `SELECT entity_id, space_id FROM entity_names n WHERE n.entity_id = ANY($1::text[]) AND ${readSpaceSql('n', params)}`,
      params,
    );
    return new Map(rows.map((r) => [r.entity_id, r.space_id]));
  }

  /** Which of these ids are known entities (of the request's space). */
  async existingEntityIds(q: Queryable, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const params: unknown[] = [ids];
    const { rows } = await q.query<{ entity_id: string }>(
      `SELECT entity_id FROM entity_names n WHERE n.entity_id = ANY($1::text[]) AND ${spaceSql('n', params)}`,
      params,
    );
    return new Set(rows.map((r) => r.entity_id));
  }
}
