import { isAppError } from '../errors.js';
import { isConnectionLost } from './dbErrors.js';
import type { Db, QueryResult } from './Db.js';
import { currentRoute, isReadOnlyStatement, type ReadRoute } from './readRoute.js';
import type { Replica, ReplicaSet } from './ReplicaSet.js';

/** A Db whose reading requests may read from replicas; `replicas` is their health. */
export interface ReplicatedDb extends Db {
  readonly replicas: ReplicaSet;
}

/** The replicas of a Db opened with some (undefined otherwise). */
export function replicasOf(db: Db): ReplicaSet | undefined {
  return 'replicas' in db ? (db as ReplicatedDb).replicas : undefined;
}

/** Clients remembered as having written (beyond this, the oldest are forgotten and may read a replica early). */
const MAX_CLIENTS = 10_000;
/** A client wrote; its position is read from the primary at its next read. */
const WROTE = 'wrote';

/**
 * Read-your-writes: after a client's write, its next reads go only to a replica that has replayed the primary's
 * position as of that read (asked once per request when its last check is older), else to the primary. No waiting:
 * a lagging replica never slows the client down, the primary serves it.
 */
class ClientWrites {
  private readonly positions = new Map<string, bigint | typeof WROTE>();

  wrote(client: string): void {
    this.positions.delete(client);
    this.positions.set(client, WROTE);
    if (this.positions.size > MAX_CLIENTS) this.positions.delete(this.positions.keys().next().value as string);
  }

  async choose(client: string | undefined, set: ReplicaSet): Promise<Replica | undefined> {
    const known = client === undefined ? undefined : this.positions.get(client);
    if (known === undefined || client === undefined) return set.pick();
    const position = known === WROTE ? await set.primaryPosition() : known;
    if (known === WROTE && this.positions.get(client) === WROTE) this.positions.set(client, position);
    const everywhere = set.replayedByAll();
    if (everywhere !== undefined && everywhere >= position) this.positions.delete(client);
    const ready = set.pick(position);
    if (ready) return ready;
    const candidate = set.pick();
    return candidate && (await set.hasReplayed(candidate, position).catch(() => false)) ? candidate : undefined;
  }
}

/** Errors after which a read is repeated on the primary: the replica is gone, or replaying WAL cancelled it. */
function replicaFailed(err: unknown): 'down' | 'retry' | undefined {
  if (isConnectionLost(err)) return 'down';
  const code = (isAppError(err) ? (err.cause as { code?: unknown } | undefined) : (err as { code?: unknown }))?.code;
  // 40001: cancelled by a recovery conflict; 25006: a write in a read-only transaction (a statement taken for a read).
  return code === '40001' || code === '25006' ? 'retry' : undefined;
}

/**
 * The primary with read replicas: a statement that only reads, inside a request allowed to read from a replica,
 * runs on a replica in service; everything else (writes, transactions, locks, the leader lock, LISTEN) runs on the
 * primary. A read whose replica fails runs again on the primary, and the replica is skipped until it checks well.
 */
export function replicatedDb(primary: Db, set: ReplicaSet): ReplicatedDb {
  const writes = new ClientWrites();
  const noteWrite = () => {
    const client = currentRoute()?.client;
    if (client !== undefined) writes.wrote(client);
  };
  const onReplica = async <R>(route: ReadRoute, sql: string, params: readonly unknown[]): Promise<QueryResult<R>> => {
    route.chosen ??= writes.choose(route.client, set).catch(() => undefined);
    const replica = await route.chosen;
    if (!replica) return primary.query<R>(sql, params);
    try {
      const result = await replica.db.query<R>(sql, params);
      replica.reads++;
      return result;
    } catch (err) {
      const failure = replicaFailed(err);
      if (!failure) throw err;
      if (failure === 'down') set.markDown(replica, err);
      route.chosen = Promise.resolve(undefined);
      return primary.query<R>(sql, params);
    }
  };
  return {
    kind: primary.kind,
    replicas: set,
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
      const route = currentRoute();
      const read = isReadOnlyStatement(sql);
      if (route?.replica && read) return onReplica<R>(route, sql, params);
      const result = await primary.query<R>(sql, params);
      if (!read) noteWrite();
      return result;
    },
    async exec(sql) {
      await primary.exec(sql);
      noteWrite();
    },
    async transaction(fn) {
      const result = await primary.transaction(fn);
      noteWrite();
      return result;
    },
    async withLock(key, fn, options) {
      const result = await primary.withLock(key, fn, options);
      noteWrite();
      return result;
    },
    sessionLock: (key, onLost) => primary.sessionLock(key, onLost),
    listen: (channel, onChange) => primary.listen(channel, onChange),
    async close() {
      await set.close();
      await primary.close();
    },
  };
}
