import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { openDb } from '../../src/db/openDb.js';
import { projectPath } from '../../src/paths.js';

// A fresh PGlite costs about 2 s of CPU in initdb, and migrating a server database runs every migration again. Tests
// instead copy a database migrated once per schema: a PGlite data folder, or a Postgres `CREATE DATABASE … TEMPLATE`.

/** Identifies the migrated schema and the PGlite build: a change to either makes new templates. */
function schemaKey(): string {
  const hash = createHash('sha256');
  for (const m of loadMigrations()) hash.update(`${m.name}\n${m.sql}\n`);
  const pglite = JSON.parse(fs.readFileSync(projectPath('node_modules/@electric-sql/pglite/package.json'), 'utf8')) as {
    version: string;
  };
  hash.update(pglite.version);
  return hash.digest('hex').slice(0, 12);
}

/** The folder whose `pglite/` subfolder is a migrated PGlite database (a CAIRN_DATA_DIR to copy). */
export function pgliteTemplateDir(): string {
  return projectPath('.cairn', 'test-templates', `pglite-${schemaKey()}`);
}

/** The name of the migrated template database on the Postgres server. */
export function postgresTemplateName(): string {
  return `cairn_template_${schemaKey()}`;
}

/** Builds the PGlite template folder unless it exists; a half-built one is never visible under the final name. */
export async function ensurePgliteTemplate(): Promise<string> {
  const dir = pgliteTemplateDir();
  if (fs.existsSync(path.join(dir, 'pglite', 'PG_VERSION'))) return dir;
  const building = `${dir}.building-${randomBytes(4).toString('hex')}`;
  const db = await openDb(loadConfig({ CAIRN_DATA_DIR: building }));
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(building, dir);
  return dir;
}

/** Creates the migrated template database on the server unless it exists (built under another name, then renamed). */
export async function ensurePostgresTemplate(serverUrl: string): Promise<string> {
  const name = postgresTemplateName();
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return name;
    const building = `${name}_b${randomBytes(3).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${building}`);
    const url = new URL(serverUrl);
    url.pathname = `/${building}`;
    const db = await openDb(loadConfig({ CAIRN_DATABASE_URL: url.toString() }));
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
    try {
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    } catch (err) {
      // Another run built it meanwhile: use theirs.
      await admin.query(`DROP DATABASE ${building}`);
      if ((err as { code?: string }).code !== '42P04') throw err;
      return name;
    }
    await admin.query(`ALTER DATABASE ${name} WITH IS_TEMPLATE true`);
    return name;
  } finally {
    await admin.end();
  }
}
