import pg from 'pg';
import type { ChangeListener, Queryable } from './Db.js';

/** The channel on which processes sharing a database announce changes that other processes cache. */
export const CHANGES_CHANNEL = 'cairn_changes';

/** What changed: the entity names mentions link by, or the set of API keys. */
export type ChangeTopic = 'names' | 'keys';

/**
 * Announces a change to every process listening; inside a transaction, Postgres delivers it only at commit (and not
 * at all on rollback), so no process drops its cache before the change is visible.
 */
export async function announceChange(q: Queryable, topic: ChangeTopic): Promise<void> {
  await q.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, topic]);
}

/**
 * Listens on `channel` on a connection of its own. `onChange(undefined)` means notifications may have been missed
 * (the connection dropped and was made again): forget everything. Reconnects every `retryMs` while the server is away.
 */
export async function postgresChangeListener(
  connectionString: string,
  channel: string,
  onChange: (payload: string | undefined) => void,
  retryMs = 1000,
): Promise<ChangeListener> {
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const reconnectLater = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect(true);
    }, retryMs);
    timer.unref();
  };
  const connect = async (missed: boolean) => {
    const c = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000, application_name: 'cairn-changes' });
    const lost = () => {
      if (client !== c) return;
      client = undefined;
      c.end().catch(() => undefined);
      reconnectLater();
    };
    c.on('error', lost);
    c.on('end', lost);
    c.on('notification', (n) => {
      if (n.channel === channel) onChange(n.payload);
    });
    client = c;
    try {
      await c.connect();
      await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      if (missed) onChange(undefined);
    } catch {
      lost();
    }
  };
  await connect(false);
  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
