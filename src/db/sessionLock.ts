import pg from 'pg';

/**
 * A session advisory lock held on a connection of its own, outside the pool: Postgres releases it when that
 * connection ends, so a process that dies (kill -9, lost network) gives it up without any cleanup of its own.
 */
export interface SessionLock {
  /**
   * Takes the lock if it is free, or confirms it is still held (one round trip on the lock's connection). Resolves to
   * whether this process holds it now; a connection that failed is replaced on the next call.
   */
  tryAcquire(): Promise<boolean>;
  /** Gives the lock up and closes its connection. */
  release(): Promise<void>;
}

/** A session lock on a real Postgres server; `onLost` runs when the connection holding it drops. */
export function postgresSessionLock(connectionString: string, key: number, onLost: () => void): SessionLock {
  let client: pg.Client | undefined;
  let held = false;
  const drop = (c: pg.Client) => {
    if (client !== c) return;
    client = undefined;
    c.end().catch(() => undefined);
    if (held) {
      held = false;
      onLost();
    }
  };
  return {
    async tryAcquire() {
      try {
        if (!client) {
          const c = new pg.Client({
            connectionString,
            connectionTimeoutMillis: 10_000,
            application_name: 'cairn-leader',
          });
          c.on('error', () => drop(c));
          c.on('end', () => drop(c));
          client = c;
          await c.connect();
        }
        const c = client;
        if (held) {
          await c.query('SELECT 1');
          return held;
        }
        const { rows } = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [key]);
        held = rows[0]?.ok === true;
        return held;
      } catch {
        if (client) drop(client);
        return false;
      }
    },
    async release() {
      const c = client;
      client = undefined;
      held = false;
      await c?.end().catch(() => undefined);
    },
  };
}

/** PGlite has one process by construction (its folder is locked): that process always holds the lock. */
export function embeddedSessionLock(): SessionLock {
  return { tryAcquire: () => Promise.resolve(true), release: () => Promise.resolve() };
}
