import type { Queryable } from '../db/Db.js';
import type { Role } from './roles.js';

/** An API key as listed: never the key or its hash. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  role: Role;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** The spaces the key is bound to, by id; null: every space. */
  spaces: string[] | null;
}

interface Row {
  id: string;
  name: string;
  role: Role;
  key_hash: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  spaces: string[] | null;
}

const COLUMNS = 'id, name, role, key_hash, created_at, last_used_at, revoked_at';

/** The key's spaces (null: every space) of the key row under `alias`. */
const spacesOf = (alias: string) =>
  `CASE WHEN ${alias}.all_spaces THEN NULL
        ELSE ARRAY(SELECT s.space_id FROM api_key_spaces s WHERE s.key_id = ${alias}.id ORDER BY s.space_id) END AS spaces`;

const toRecord = (r: Row): ApiKeyRecord => ({
  id: r.id,
  name: r.name,
  role: r.role,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
  spaces: r.spaces,
});

/** SQL for the `api_keys` table. */
export class ApiKeyRepository {
  constructor(private readonly db: Queryable) {}

  /**
   * Takes `space` off every key bound to it (a space being deleted), revoking keys bound to it alone, so that a space
   * made later under the same id is not theirs. Returns how many keys lost it.
   */
  async unbindSpace(space: string): Promise<number> {
    await this.db.query(
      `UPDATE api_keys k SET revoked_at = coalesce(k.revoked_at, now())
        WHERE NOT k.all_spaces AND EXISTS (SELECT 1 FROM api_key_spaces s WHERE s.key_id = k.id AND s.space_id = $1)
          AND NOT EXISTS (SELECT 1 FROM api_key_spaces s WHERE s.key_id = k.id AND s.space_id <> $1)`,
      [space],
    );
    const { rowCount } = await this.db.query('DELETE FROM api_key_spaces WHERE space_id = $1', [space]);
    return rowCount;
  }

  /** Stores a new key by its hash, bound to `spaces` (null: every space), in one statement. */
  async insert(key: {
    id: string;
    name: string;
    role: Role;
    keyHash: string;
    spaces: readonly string[] | null;
  }): Promise<ApiKeyRecord> {
    const { rows } = await this.db.query<Row>(
      `WITH k AS (INSERT INTO api_keys (id, name, role, key_hash, all_spaces) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}),
            s AS (INSERT INTO api_key_spaces (key_id, space_id) SELECT $1, unnest($6::text[]) RETURNING space_id)
       SELECT k.*, CASE WHEN $5 THEN NULL ELSE ARRAY(SELECT space_id FROM s ORDER BY space_id) END AS spaces FROM k`,
      [key.id, key.name, key.role, key.keyHash, key.spaces === null, key.spaces ?? []],
    );
    return toRecord(rows[0] as Row);
  }

  /** Every key, revoked ones included, oldest first. */
  async list(): Promise<ApiKeyRecord[]> {
    const { rows } = await this.db.query<Row>(
      `SELECT ${COLUMNS}, ${spacesOf('api_keys')} FROM api_keys ORDER BY created_at, id`,
    );
    return rows.map(toRecord);
  }

  /** One key with its hash (for verification), or null. */
  async findWithHash(id: string): Promise<(ApiKeyRecord & { keyHash: string }) | null> {
    const { rows } = await this.db.query<Row>(
      `SELECT ${COLUMNS}, ${spacesOf('api_keys')} FROM api_keys WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    return row ? { ...toRecord(row), keyHash: row.key_hash } : null;
  }

  /** Marks a key revoked (keeping the first revocation time); null when it does not exist. */
  async revoke(id: string): Promise<ApiKeyRecord | null> {
    const { rows } = await this.db.query<Row>(
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1
       RETURNING ${COLUMNS}, ${spacesOf('api_keys')}`,
      [id],
    );
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /**
   * Revokes a key unless it is the last unrevoked admin key ('last-admin'); 'missing' for an unknown id. The check
   * and the revocation are one statement.
   */
  async revokeKeepingAnAdmin(
    id: string,
  ): Promise<{ outcome: 'revoked'; record: ApiKeyRecord } | { outcome: 'last-admin' | 'missing' }> {
    const { rows } = await this.db.query<Row>(
      `UPDATE api_keys t SET revoked_at = coalesce(t.revoked_at, now())
        WHERE t.id = $1
          AND (t.role <> 'admin' OR t.revoked_at IS NOT NULL
               OR EXISTS (SELECT 1 FROM api_keys k WHERE k.role = 'admin' AND k.revoked_at IS NULL AND k.id <> t.id))
        RETURNING ${COLUMNS.split(', ')
          .map((c) => `t.${c}`)
          .join(', ')}, ${spacesOf('t')}`,
      [id],
    );
    if (rows[0]) return { outcome: 'revoked', record: toRecord(rows[0]) };
    const exists = await this.db.query('SELECT 1 FROM api_keys WHERE id = $1', [id]);
    return { outcome: exists.rows.length > 0 ? 'last-admin' : 'missing' };
  }

  /** Records that a key was just used. */
  async touch(id: string): Promise<void> {
    await this.db.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [id]);
  }

  /** True when at least one key is not revoked. */
  async anyActive(): Promise<boolean> {
    const { rows } = await this.db.query<{ found: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM api_keys WHERE revoked_at IS NULL) AS found',
    );
    return rows[0]?.found === true;
  }
}
