import pg from 'pg';
import type { Db, QueryResult, Queryable } from './Db.js';

/** Connects to a real Postgres server through a `pg` Pool. */
export async function openPgPoolDb(connectionString: string, poolSize: number): Promise<Db> {
  const pool = new pg.Pool({ connectionString, max: poolSize, connectionTimeoutMillis: 10_000 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  let statements = 0;
  const wrap = (q: pg.Pool | pg.PoolClient): Queryable => ({
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
      statements++;
      const res = await q.query(sql, params as unknown[]);
      return { rows: res.rows as R[], rowCount: res.rowCount ?? res.rows.length };
    },
    async exec(sql: string): Promise<void> {
      statements++;
      await q.query(sql); // no parameters: the simple protocol allows several statements
    },
  });
  const withClient = async <T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    let broken = false;
    try {
      return await fn(client);
    } catch (err) {
      broken = true;
      throw err;
    } finally {
      // A client whose statement failed may be mid-protocol; discard it rather than reuse.
      client.release(broken);
    }
  };
  const root = wrap(pool);
  return {
    kind: 'postgres',
    query: root.query,
    exec: root.exec,
    get statementCount() {
      return statements;
    },
    transaction: (fn) =>
      withClient(async (client) => {
        await client.query('BEGIN');
        statements++;
        try {
          const result = await fn(wrap(client));
          await client.query('COMMIT');
          statements++;
          return result;
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      }),
    withLock: (key, fn) =>
      withClient(async (client) => {
        await client.query('SELECT pg_advisory_lock($1)', [key]);
        try {
          return await fn(wrap(client));
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => undefined);
        }
      }),
    close: () => pool.end(),
  };
}
