import type { SessionLock } from './sessionLock.js';

/** Rows and affected-row count of one SQL statement. */
export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** Anything that runs parameterised SQL: the database itself or an open transaction. */
export interface Queryable {
  /** Runs one parameterised statement ($1, $2 … placeholders). */
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  /** Executes a multi-statement SQL script without parameters (migrations, DDL). */
  exec(sql: string): Promise<void>;
}

/** A subscription made by `Db.listen`. */
export interface ChangeListener {
  /** Stops listening and closes its connection. */
  close(): Promise<void>;
}

/**
 * Told of each statement a `Db` sends for its callers (its text), synchronously and in the async context of the code
 * that sent it, with the transaction and advisory-lock statements around them; not those of the connections a `Db`
 * keeps for itself (`sessionLock`, `listen`). It may return a function, called when the statement is answered (or
 * fails). For tracing and metrics; tests count one call's statements, and time them, with it.
 */
export type StatementObserver = (sql: string) => (() => void) | void;

/** Sends a statement with `send`, telling `observe` when it is sent and when it is answered. */
export async function observed<T>(observe: StatementObserver, sql: string, send: () => Promise<T>): Promise<T> {
  const answered = observe(sql);
  if (!answered) return send();
  try {
    return await send();
  } finally {
    answered();
  }
}

/** Which engine backs a `Db`. */
export type DbKind = 'pglite' | 'postgres';

/** The database: PGlite in a data folder (embedded) or a real Postgres server through a `pg` Pool. */
export interface Db extends Queryable {
  readonly kind: DbKind;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` while holding a session-level advisory lock, so concurrent processes take turns. With `pollMs`, a waiter
   * retries every `pollMs` instead of blocking in a statement, so it holds no snapshot that `fn` (e.g. CREATE INDEX
   * CONCURRENTLY, which waits for older snapshots) would wait for.
   */
  withLock<T>(key: number, fn: (conn: Queryable) => Promise<T>, options?: { pollMs?: number }): Promise<T>;
  /**
   * A session advisory lock on a connection of its own (not from the pool), released by Postgres when the process or
   * its connection dies: how one process among several becomes the leader. `onLost` runs when a held lock is lost.
   */
  sessionLock(key: number, onLost: () => void): SessionLock;
  /**
   * Calls `onChange` with each notification on `channel` from any process (see `announceChange`); `undefined` when
   * some may have been missed. A no-op on PGlite, whose one process drops its caches as it changes them.
   */
  listen(channel: string, onChange: (payload: string | undefined) => void): Promise<ChangeListener>;
  /** Closes connections; the Db is unusable afterwards. */
  close(): Promise<void>;
}

/** Stops listening (see `Db.listen`). */
export interface ChangeListener {
  close(): Promise<void>;
}
