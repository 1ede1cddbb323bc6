import fs from 'node:fs';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { KeyedQueue } from '../KeyedQueue.js';
import { lockDataDir } from './dataDirLock.js';
import { observed, type Db, type QueryResult, type Queryable, type StatementObserver } from './Db.js';
import { translateDbError } from './dbErrors.js';
import { embeddedSessionLock } from './sessionLock.js';
import { encodeVectorParams, hasVectorParams, vectorTypeOidsLoader, type VectorTypeOids } from './vector.js';

// PGlite is a single connection; it serialises queries and transactions itself, so locks are process-local.

/**
 * Lets the event loop run before each statement. PGlite runs in this thread and answers through already-settled
 * promises, so a chain of statements (an import job's thousands) never left the microtask queue: HTTP requests, even
 * /healthz, waited for the whole job (bench/RESULTS.md has the import that showed it).
 */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

type OidsOf = (q: PGlite | Transaction) => Promise<VectorTypeOids>;

/** Binary parameters as PGlite sends them: as they are, instead of through its text serialiser for their type. */
const asIs = (value: unknown) => value as string;

/** The statement's parameters and options, with vector parameters in binary form (see VectorArrayParam). */
async function prepare(q: PGlite | Transaction, params: readonly unknown[], oidsOf: OidsOf) {
  if (!hasVectorParams(params)) return { values: params as unknown[], options: undefined };
  const oids = await oidsOf(q);
  return {
    values: encodeVectorParams(params, oids),
    options: { serializers: { [oids.vector]: asIs, [oids.vectorArray]: asIs } },
  };
}

function wrap(q: PGlite | Transaction, onStatement: StatementObserver, oidsOf: OidsOf): Queryable {
  return {
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
      const res = await observed(onStatement, sql, async () => {
        await turn();
        const { values, options } = await prepare(q, params, oidsOf);
        return q.query<R>(sql, values, options);
      }).catch((err: unknown) => Promise.reject(translateDbError(err, false)));
      return { rows: res.rows, rowCount: res.affectedRows ?? res.rows.length };
    },
    async exec(sql: string): Promise<void> {
      await observed(onStatement, sql, async () => {
        await turn();
        await q.exec(sql);
      }).catch((err: unknown) => Promise.reject(translateDbError(err, false)));
    },
  };
}

/** What `openPgliteDb` takes besides the folder. */
export interface PgliteOptions {
  /** Told of every statement sent (see StatementObserver). */
  onStatement?: StatementObserver | undefined;
}

/**
 * Opens (creating if needed) a PGlite database with pgvector in `dataDir`; `undefined` (or a `memory://` URL) means
 * in-memory. A folder is locked for this process until `close` (see dataDirLock.ts): a second open fails at once.
 */
export async function openPgliteDb(dataDir: string | undefined, options: PgliteOptions = {}): Promise<Db> {
  const onDisk = dataDir !== undefined && dataDir !== '' && !/^[a-z]+:\/\//i.test(dataDir);
  if (onDisk) fs.mkdirSync(dataDir, { recursive: true });
  const lock = onDisk ? lockDataDir(dataDir) : undefined;
  let pg: PGlite;
  try {
    pg = await PGlite.create({ dataDir, extensions: { vector } });
  } catch (err) {
    lock?.release();
    throw err;
  }
  const observe = options.onStatement ?? (() => undefined);
  const loadOids = vectorTypeOidsLoader();
  // Through the connection asking (a transaction holds PGlite's only one).
  const oidsOf: OidsOf = (q) => loadOids(async (sql) => (await q.query<{ vector: string; array: string }>(sql)).rows);
  const root = wrap(pg, observe, oidsOf);
  const locks = new KeyedQueue();
  return {
    kind: 'pglite',
    query: root.query,
    exec: root.exec,
    transaction: async (fn) => {
      // PGlite sends BEGIN and COMMIT (or ROLLBACK) itself.
      observe('BEGIN')?.();
      try {
        const result = await pg.transaction((tx) => fn(wrap(tx, observe, oidsOf)));
        observe('COMMIT')?.();
        return result;
      } catch (err) {
        observe('ROLLBACK')?.();
        throw err;
      }
    },
    // One chain per key: a long spec import holds its spec id only, not every other key (an entity create's).
    withLock: <T>(key: number, fn: (conn: Queryable) => Promise<T>): Promise<T> =>
      locks.run(String(key), () => fn(root)),
    sessionLock: () => embeddedSessionLock(),
    listen: async () => ({ close: async () => undefined }),
    async close() {
      try {
        if (!pg.closed) await pg.close();
      } finally {
        lock?.release();
      }
    },
  };
}
