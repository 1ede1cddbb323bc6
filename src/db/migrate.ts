import fs from 'node:fs';
import path from 'node:path';
import { projectPath } from '../paths.js';
import type { Db } from './Db.js';

/** A versioned SQL migration file. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Advisory-lock key that serialises migrations across processes ("cairn" in ASCII). */
export const MIGRATION_LOCK_KEY = 0x636169726e;

/** Reads the migrations folder, ordered by version (`NNN_name.sql`). */
export function loadMigrations(dir = projectPath('src', 'db', 'migrations')): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d+_[\w-]+\.sql$/.test(f))
    .map((file) => ({
      version: Number.parseInt(file, 10),
      name: file.replace(/\.sql$/, ''),
      sql: fs.readFileSync(path.join(dir, file), 'utf8'),
    }))
    .sort((a, b) => a.version - b.version);
}

/** Applies pending migrations under an advisory lock, each in its own transaction; returns the versions applied. */
export async function migrate(db: Db, migrations = loadMigrations()): Promise<number[]> {
  return db.withLock(MIGRATION_LOCK_KEY, async (conn) => {
    await conn.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await conn.query<{ version: number }>('SELECT version FROM schema_migrations');
    const done = new Set(rows.map((r) => r.version));
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      // DDL is transactional in Postgres, so a failed migration leaves no trace.
      await conn.query('BEGIN');
      try {
        await conn.exec(m.sql);
        await conn.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        await conn.query('COMMIT');
      } catch (err) {
        await conn.query('ROLLBACK');
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(m.version);
    }
    return applied;
  });
}

/** Lists migrations not yet applied (for readiness checks). */
export async function pendingMigrations(db: Db, migrations = loadMigrations()): Promise<string[]> {
  const exists = await db.query<{ t: string | null }>(`SELECT to_regclass('schema_migrations')::text AS t`);
  if (!exists.rows[0]?.t) return migrations.map((m) => m.name);
  const { rows } = await db.query<{ version: number }>('SELECT version FROM schema_migrations');
  const done = new Set(rows.map((r) => r.version));
  return migrations.filter((m) => !done.has(m.version)).map((m) => m.name);
}
