import path from 'node:path';
import { MEMORY_DATA_DIR, type Config } from '../config.js';
import type { Db } from './Db.js';

/** The folder PGlite keeps the embedded database in; undefined on a Postgres server or in memory. */
export function embeddedFolder(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string | undefined {
  return config.databaseUrl || config.dataDir === MEMORY_DATA_DIR ? undefined : path.join(config.dataDir, 'pglite');
}

/**
 * Opens the configured database: a Postgres server when `CAIRN_DATABASE_URL` is set, else PGlite under the data folder.
 * Each driver loads only when used, so a CLI command that works through a running server never loads either.
 */
export async function openDb(
  config: Pick<Config, 'databaseUrl' | 'databasePoolSize' | 'databasePreparedStatements' | 'dataDir' | 'hnswEfSearch'> &
    Partial<Pick<Config, 'databaseSessionUrl'>>,
): Promise<Db> {
  if (config.databaseUrl) {
    const { openPgPoolDb } = await import('./pgPoolDb.js');
    return openPgPoolDb(config.databaseUrl, {
      poolSize: config.databasePoolSize,
      hnswEfSearch: config.hnswEfSearch,
      preparedStatements: config.databasePreparedStatements,
      ...(config.databaseSessionUrl ? { sessionUrl: config.databaseSessionUrl } : {}),
    });
  }
  const { openPgliteDb } = await import('./pgliteDb.js');
  return openPgliteDb(embeddedFolder(config));
}
