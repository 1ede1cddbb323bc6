import type { ApiKeyService } from './auth/ApiKeyService.js';
import type { Config } from './config.js';
import { BackgroundRecheck, type RecheckTimers } from './db/BackgroundRecheck.js';
import { CHANGES_CHANNEL } from './db/changeFeed.js';
import type { Db } from './db/Db.js';
import type { MentionLinker } from './graph/mentions/MentionLinker.js';
import type { Logger } from './logger.js';

/** The background rechecks of what this process caches from the database, and the change listener that runs them. */
export interface CacheRechecks {
  /** Whether any API key exists. */
  keys: BackgroundRecheck;
  /** The entity names' version. */
  names: BackgroundRecheck;
  close(): Promise<void>;
}

/**
 * Rechecks the caches requests answer from, in the background only: when another process on the database announces a
 * change (or notifications may have been missed), and every interval of `config.recheckMs` in case one was missed
 * without the listener noticing. A request's statements therefore never depend on the clock.
 */
export async function startCacheRechecks(
  parts: { db: Db; linker: MentionLinker; apiKeys: ApiKeyService },
  config: Config,
  logger: Logger,
  timers?: RecheckTimers,
): Promise<CacheRechecks> {
  const onError = (what: string) => (err: unknown) => logger.warn({ err }, `could not recheck ${what}`);
  const { db, linker, apiKeys } = parts;
  const names = new BackgroundRecheck(
    () => linker.recheckNames(),
    config.recheckMs.names,
    onError('the entity names'),
    timers,
  );
  const keys = new BackgroundRecheck(
    () => apiKeys.recheckActive(),
    config.recheckMs.keys,
    onError('whether any API key exists'),
    timers,
  );
  // `undefined`: some notifications may have been missed.
  const listener = await db.listen(CHANGES_CHANNEL, (topic) => {
    if (topic === undefined || topic === 'names') void names.run();
    if (topic === undefined || topic === 'keys') void keys.run();
  });
  names.start();
  keys.start();
  return {
    keys,
    names,
    async close() {
      await listener.close();
      await Promise.all([names.stop(), keys.stop()]);
    },
  };
}
