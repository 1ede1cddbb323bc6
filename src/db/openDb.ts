import path from 'node:path';
import { MEMORY_DATA_DIR, type Config } from '../config.js';
import type { Db } from './Db.js';
import { openPgliteDb } from './pgliteDb.js';
import { openPgPoolDb } from './pgPoolDb.js';

/** PGlite's folder under the data folder (the one its lock guards), or undefined for the in-memory database. */
export function pgliteDir(dataDir: string): string | undefined {
  return dataDir === MEMORY_DATA_DIR ? undefined : path.join(dataDir, 'pglite');
}

/** Opens the configured database: a Postgres server when `CAIRN_DATABASE_URL` is set, else PGlite under the data folder. */
export function openDb(config: Pick<Config, 'databaseUrl' | 'databasePoolSize' | 'databasePreparedStatements' | 'dataDir' | 'hnswEfSearch'>): Promise<Db> {
  if (config.databaseUrl) {
    return openPgPoolDb(config.databaseUrl, { poolSize: config.databasePoolSize, hnswEfSearch: config.hnswEfSearch, preparedStatements: config.databasePreparedStatements });
  }
  return openPgliteDb(pgliteDir(config.dataDir));
}
