import path from 'node:path';
import { MEMORY_DATA_DIR, type Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Db, StatementObserver } from './Db.js';
import type { PgPoolOptions } from './pgPoolDb.js';
import type { ReplicatedDb } from './replicatedDb.js';

/** The folder PGlite keeps the embedded database in; undefined on a Postgres server or in memory. */
export function embeddedFolder(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string | undefined {
  return config.databaseUrl || config.dataDir === MEMORY_DATA_DIR ? undefined : path.join(config.dataDir, 'pglite');
}

type DbConfig = Pick<
  Config,
  'databaseUrl' | 'databasePoolSize' | 'databasePreparedStatements' | 'dataDir' | 'hnswEfSearch'
> &
  Partial<Pick<Config, 'databaseSessionUrl' | 'databaseReplicas'>>;

/** What `openDb` needs besides the configuration when replicas are configured. */
export interface OpenDbOptions {
  logger?: Logger;
  /** The clock replica lag is measured on (tests inject one). */
  now?: (() => Date) | undefined;
  /** Told of every statement sent, on the primary and the replicas alike (see StatementObserver). */
  onStatement?: StatementObserver | undefined;
}

/**
 * Opens the configured database: a Postgres server when `CAIRN_DATABASE_URL` is set (with its read replicas, when
 * `CAIRN_DATABASE_REPLICA_URLS` names some), else PGlite under the data folder. Each driver loads only when used, so
 * a CLI command that works through a running server never loads either.
 */
export async function openDb(config: DbConfig, options: OpenDbOptions = {}): Promise<Db | ReplicatedDb> {
  if (config.databaseUrl) {
    const { openPgPoolDb } = await import('./pgPoolDb.js');
    const poolOptions: PgPoolOptions = {
      poolSize: config.databasePoolSize,
      hnswEfSearch: config.hnswEfSearch,
      preparedStatements: config.databasePreparedStatements,
      onStatement: options.onStatement,
    };
    const primary = await openPgPoolDb(config.databaseUrl, {
      ...poolOptions,
      ...(config.databaseSessionUrl ? { sessionUrl: config.databaseSessionUrl } : {}),
    });
    const replicas = config.databaseReplicas;
    if (!replicas || replicas.urls.length === 0 || !options.logger) return primary;
    return openReplicated(primary, replicas, poolOptions, { ...options, logger: options.logger });
  }
  const { openPgliteDb } = await import('./pgliteDb.js');
  return openPgliteDb(embeddedFolder(config), { onStatement: options.onStatement });
}

/** host:port/database of a URL, without credentials. */
function replicaName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname}`;
  } catch {
    return 'replica';
  }
}

async function openReplicated(
  primary: Db,
  settings: Config['databaseReplicas'],
  poolOptions: PgPoolOptions,
  options: OpenDbOptions & { logger: Logger },
): Promise<ReplicatedDb> {
  const [{ openPgPoolDb }, { ReplicaSet }, { replicatedDb }] = await Promise.all([
    import('./pgPoolDb.js'),
    import('./ReplicaSet.js'),
    import('./replicatedDb.js'),
  ]);
  const replicas = await Promise.all(
    settings.urls.map(async (url) => ({
      name: replicaName(url),
      db: await openPgPoolDb(url, poolOptions),
      state: 'down' as const,
      replayed: 0n,
      lagMs: 0,
      reads: 0,
    })),
  );
  const set = new ReplicaSet(primary, replicas, {
    maxLagMs: settings.maxLagMs,
    checkMs: settings.checkMs,
    logger: options.logger,
    ...(options.now ? { now: options.now } : {}),
  });
  await set.start();
  return replicatedDb(primary, set);
}
