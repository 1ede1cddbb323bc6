import type { Db } from '../db/Db.js';
import { writeSpace } from '../db/spaceScope.js';
import { nameKey } from './nameKey.js';

/**
 * The extraction_rejections and extraction_relationship_rejections tables: names and relationships an admin rejected
 * are never extracted again in their space (until the rejection is undone). Extraction runs in its document's space,
 * so `writeSpace()` is the space whose rejections apply.
 */
export class RejectionRepository {
  constructor(private readonly db: Db) {}

  /** Rejects a name (by its normalised key). */
  async add(name: string): Promise<void> {
    const key = nameKey(name);
    if (key === '') return;
    await this.db.query(
      'INSERT INTO extraction_rejections (name_key, name, space_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
      [key, name.trim(), writeSpace()],
    );
  }

  /** Deletes a space's rejected names and relationships (its deletion); returns how many. */
  async deleteSpace(space: string): Promise<number> {
    const names = await this.db.query('DELETE FROM extraction_rejections WHERE space_id = $1', [space]);
    const relationships = await this.db.query('DELETE FROM extraction_relationship_rejections WHERE space_id = $1', [
      space,
    ]);
    return names.rowCount + relationships.rowCount;
  }

  /** The rejected keys among `keys`. */
  async rejected(keys: readonly string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const { rows } = await this.db.query<{ name_key: string }>(
      'SELECT name_key FROM extraction_rejections WHERE name_key = ANY($1::text[]) AND space_id = $2',
      [[...new Set(keys)], writeSpace()],
    );
    return new Set(rows.map((r) => r.name_key));
  }

  /** True when the name is rejected. */
  async isRejected(name: string): Promise<boolean> {
    return (await this.rejected([nameKey(name)])).size > 0;
  }

  /** The rejected relationship ids among `ids`. */
  async rejectedRelationships(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const { rows } = await this.db.query<{ relationship_id: string }>(
      'SELECT relationship_id FROM extraction_relationship_rejections WHERE relationship_id = ANY($1::text[])',
      [[...new Set(ids)]],
    );
    return new Set(rows.map((r) => r.relationship_id));
  }
}
