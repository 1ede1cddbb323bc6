import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/Db.js';
import { openDb } from '../../src/db/openDb.js';
import { ensurePgliteTemplate, ensurePostgresTemplate } from './templates.js';

/** A fresh database and the configuration that reaches it. */
export interface ScratchDatabase {
  /** CAIRN_DATABASE_URL for a server, or CAIRN_DATA_DIR for PGlite. */
  env: Record<string, string>;
  url: string | undefined;
  drop(): Promise<void>;
}

/** How a scratch database starts. */
export interface CreateDatabaseOptions {
  /** Start without any migration applied (for tests of migrations themselves); default: fully migrated. */
  empty?: boolean;
}

/** A database a suite can run against. */
export interface DbTarget {
  name: 'pglite' | 'postgres';
  /** Creates a fresh database, migrated unless `empty`; a PGlite database lives in a temporary folder. */
  createDatabase(options?: CreateDatabaseOptions): Promise<ScratchDatabase>;
}

async function pgliteDatabase(empty: boolean): Promise<ScratchDatabase> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-test-'));
  // Copying a migrated folder costs a tenth of PGlite's initdb.
  if (!empty)
    fs.cpSync(path.join(await ensurePgliteTemplate(), 'pglite'), path.join(dir, 'pglite'), { recursive: true });
  return {
    env: { CAIRN_DATA_DIR: dir },
    url: undefined,
    drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

const serverUrl = process.env.CAIRN_TEST_DATABASE_URL;
let warned = false;

/** PGlite always; the real Postgres server when CAIRN_TEST_DATABASE_URL is set (required under CI). */
export function dbTargets(): DbTarget[] {
  const targets: DbTarget[] = [{ name: 'pglite', createDatabase: (o) => pgliteDatabase(o?.empty ?? false) }];
  if (serverUrl) {
    targets.push({
      name: 'postgres',
      createDatabase: async (o) =>
        createScratchDatabase(serverUrl, o?.empty ? undefined : await ensurePostgresTemplate(serverUrl)),
    });
  } else if (process.env.CI) {
    throw new Error(
      'CI is set but CAIRN_TEST_DATABASE_URL is not: the real Postgres server must run in CI (see .ci/run).',
    );
  } else if (!warned) {
    warned = true;
    console.warn(
      'Skipping the real-Postgres half of this suite: CAIRN_TEST_DATABASE_URL is not set (`bash scripts/postgres-server.sh start` prints one).',
    );
  }
  return targets;
}

/**
 * The one database of a suite whose behaviour does not depend on the store (HTTP limits, auth, MCP framing, docs'
 * examples): the real Postgres server when configured, whose native statements cost the Jest worker far less CPU
 * than PGlite's WebAssembly, else PGlite. Store-dependent behaviour runs on every `dbTargets()` entry.
 */
export function edgeTarget(): DbTarget {
  const targets = dbTargets();
  return targets.find((t) => t.name === 'postgres') ?? targets[0]!;
}

/** A migrated PGlite database (a copy of the template), for suites on the local user's paths (`cairn` on a folder). */
export function scratchPglite(): Promise<ScratchDatabase> {
  return pgliteDatabase(false);
}

/** Creates a database on the server, empty or as a copy of `template`, and returns its URL and a dropper. */
export async function createScratchDatabase(
  url: string,
  template?: string,
): Promise<ScratchDatabase & { url: string }> {
  const name = `cairn_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  await admin.end();
  const target = new URL(url);
  target.pathname = `/${name}`;
  return {
    url: target.toString(),
    env: { CAIRN_DATABASE_URL: target.toString() },
    async drop() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** A migrated scratch database of `target`, opened as a Db; `close` closes it and drops the database. */
export async function openScratchDb(target: DbTarget): Promise<{ db: Db; close(): Promise<void> }> {
  const scratch = await target.createDatabase();
  const db = await openDb(loadConfig(scratch.env));
  return {
    db,
    async close() {
      await db.close();
      await scratch.drop();
    },
  };
}
