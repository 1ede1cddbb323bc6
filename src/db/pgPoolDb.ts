import pg from 'pg';
import { observed, type Db, type QueryResult, type Queryable, type StatementObserver } from './Db.js';
import { translateDbError } from './dbErrors.js';
import { postgresChangeListener } from './changeFeed.js';
import { postgresSessionLock } from './sessionLock.js';
import { encodeVectorParams, hasVectorParams, vectorTypeOidsLoader } from './vector.js';

/** Pool settings for `openPgPoolDb`. */
export interface PgPoolOptions {
  poolSize: number;
  /**
   * Every connection's hnsw.ef_search (pgvector's default when absent). With it, iterative index scans are on
   * (pgvector 0.8's hnsw.iterative_scan, relaxed order: callers re-sort): a filter that removes most candidates makes
   * the scan go on through the index instead of coming back short.
   */
  hnswEfSearch?: number;
  /** Prepare read statements by name (see PreparedNames); off for poolers that cannot keep them. */
  preparedStatements?: boolean;
  /** Where the connections that keep a session (leader lock, LISTEN) go, when the pool's URL is a transaction pooler. */
  sessionUrl?: string;
  /** Told of every statement sent through the pool (see StatementObserver). */
  onStatement?: StatementObserver | undefined;
}

/** Runs `fn` on a client checked out of `pool`; a client whose statement failed is discarded, not reused. */
async function withPoolClient<T>(
  pool: pg.Pool,
  inTransaction: boolean,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect().catch((err: unknown) => Promise.reject(translateDbError(err, false)));
  // The pool stops listening for errors on a checked-out client: a connection lost between two statements would
  // otherwise be an unhandled 'error' event and crash the process. The next statement fails instead.
  const onError = () => undefined;
  client.on('error', onError);
  let broken = false;
  try {
    return await fn(client);
  } catch (err) {
    broken = true;
    throw translateDbError(err, inTransaction);
  } finally {
    // A client whose statement failed may be mid-protocol; discard it rather than reuse (keeping the listener,
    // as its socket may still report an error while it closes).
    if (!broken) client.removeListener('error', onError);
    client.release(broken);
  }
}

/** The pool, with HNSW settings at connection start-up, so a search needs no transaction to widen HNSW. */
function createPool(connectionString: string, { poolSize, hnswEfSearch }: PgPoolOptions): pg.Pool {
  // pgvector's default ef_search is 40.
  const url =
    hnswEfSearch === undefined
      ? connectionString
      : withStartupOption(
          connectionString,
          `-c hnsw.ef_search=${Math.trunc(hnswEfSearch)} -c hnsw.iterative_scan=relaxed_order`,
        );
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 10_000 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  return pool;
}

/** Connects to a real Postgres server through a `pg` Pool. */
export async function openPgPoolDb(connectionString: string, options: PgPoolOptions): Promise<Db> {
  const pool = createPool(connectionString, options);
  const observe = options.onStatement ?? (() => undefined);
  /** Sends a statement of the Db's own (transaction and lock control) on a checked-out client. */
  const control = <R extends pg.QueryResultRow>(client: pg.PoolClient, sql: string, params?: unknown[]) =>
    observed(observe, sql, () => client.query<R>(sql, params));
  const prepared = new PreparedNames(options.preparedStatements === false ? 0 : PREPARED_STATEMENTS);
  const loadOids = vectorTypeOidsLoader();
  /** Vector parameters in binary form (pg sends a Buffer as a binary parameter); see VectorArrayParam. */
  const encoded = async (q: pg.Pool | pg.PoolClient, params: readonly unknown[]): Promise<unknown[]> => {
    if (!hasVectorParams(params)) return params as unknown[];
    const oids = await loadOids(async (sql) => (await q.query<{ vector: string; array: string }>(sql)).rows);
    return encodeVectorParams(params, oids);
  };
  const wrap = (q: pg.Pool | pg.PoolClient, inTransaction = false): Queryable => ({
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
      const name = prepared.nameFor(sql);
      const res = await encoded(q, params)
        .then((values) =>
          observed(observe, sql, () =>
            q.query(name === undefined ? { text: sql, values } : { name, text: sql, values }),
          ),
        )
        .catch((err: unknown) => Promise.reject(translateDbError(err, inTransaction)));
      return { rows: res.rows as R[], rowCount: res.rowCount ?? res.rows.length };
    },
    async exec(sql: string): Promise<void> {
      // No parameters: the simple protocol allows several statements.
      await observed(observe, sql, () => q.query(sql)).catch((err: unknown) =>
        Promise.reject(translateDbError(err, inTransaction)),
      );
    },
  });
  const withClient = <T>(inTransaction: boolean, fn: (client: pg.PoolClient) => Promise<T>) =>
    withPoolClient(pool, inTransaction, fn);
  const root = wrap(pool);
  // A lock holder keeps its connection while the work it guards takes others: at most half the pool holds locks, so
  // many waiting imports cannot take every connection and leave none for the writes of the one that holds the lock.
  const lockSlots = new Slots(Math.max(1, Math.floor(options.poolSize / 2)));
  return {
    kind: 'postgres',
    query: root.query,
    exec: root.exec,
    transaction: (fn) =>
      withClient(true, async (client) => {
        await control(client, 'BEGIN');
        try {
          const result = await fn(wrap(client, true));
          await control(client, 'COMMIT');
          return result;
        } catch (err) {
          await control(client, 'ROLLBACK').catch(() => undefined);
          throw err;
        }
      }),
    withLock: (key, fn, options) =>
      lockSlots.run(() =>
        withClient(false, async (client) => {
          if (options?.pollMs === undefined) await control(client, 'SELECT pg_advisory_lock($1)', [key]);
          else {
            while (
              !(await control<{ ok: boolean }>(client, 'SELECT pg_try_advisory_lock($1) AS ok', [key])).rows[0]?.ok
            ) {
              await new Promise((resolve) => setTimeout(resolve, options.pollMs));
            }
          }
          try {
            return await fn(wrap(client));
          } finally {
            await control(client, 'SELECT pg_advisory_unlock($1)', [key]).catch(() => undefined);
          }
        }),
      ),
    sessionLock: (key, onLost) => postgresSessionLock(options.sessionUrl ?? connectionString, key, onLost),
    listen: (channel, onChange) => postgresChangeListener(options.sessionUrl ?? connectionString, channel, onChange),
    close: () => pool.end(),
  };
}

/** Runs at most `size` tasks at once; the rest wait their turn in order. */
class Slots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

/** Most distinct statement texts prepared per pool (each connection prepares a text on first use and keeps it). */
const PREPARED_STATEMENTS = 256;

/**
 * Names for read statements, so each connection parses them once and Postgres may reuse a generic plan: the hot
 * search and lookup statements are parsed and planned on every call otherwise (parse and bind were about a fifth of
 * the statement time Postgres logged per enrichContext). Bounded, because a name lives as long as its connection;
 * texts past the bound run unnamed.
 */
class PreparedNames {
  private readonly names = new Map<string, string>();

  constructor(private readonly capacity: number) {}

  /** The statement's name, or undefined for statements that run unnamed (writes, DDL, texts past the bound). */
  nameFor(sql: string): string | undefined {
    const known = this.names.get(sql);
    if (known !== undefined || this.names.size >= this.capacity || !/^\s*(SELECT|WITH)\b/i.test(sql)) return known;
    const name = `cairn_${this.names.size}`;
    this.names.set(sql, name);
    return name;
  }
}

/** Appends a server start-up option to the URL's `options` parameter (pg lets the URL's own value win over config). */
function withStartupOption(connectionString: string, option: string): string {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return connectionString; // not a URL: leave it to pg, without the option
  }
  const existing = url.searchParams.get('options');
  url.searchParams.set('options', existing ? `${existing} ${option}` : option);
  return url.toString();
}
