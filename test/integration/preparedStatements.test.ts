import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import type { Db, Queryable } from '../../src/db/Db.js';
import { openDb } from '../../src/db/openDb.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { KeywordSearch } from '../../src/retrieval/KeywordSearch.js';
import { VectorSearch } from '../../src/retrieval/VectorSearch.js';
import { createServices } from '../../src/services.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';
import { NO_BACKGROUND_EXTRACTION } from '../helpers/backgroundWork.js';

// On a server, reads are prepared by name once per connection (pg_prepared_statements lists them); writes and DDL run
// unnamed; CAIRN_DATABASE_PREPARED_STATEMENTS=false prepares nothing. withLock pins one connection to look at.
const servers = dbTargets().filter((t) => t.name === 'postgres');
const suite = servers.length > 0 ? describe.each(servers) : describe.skip.each([{ name: 'postgres' as const }]);

const LOCK = 8_117_001;

/** The texts this connection has prepared by name (not the statement asking). */
async function preparedTexts(conn: Queryable): Promise<string[]> {
  const { rows } = await conn.query<{ statement: string }>(
    `SELECT statement FROM pg_prepared_statements WHERE name LIKE 'cairn\\_%' ORDER BY prepare_time`,
  );
  return rows.map((r) => r.statement).filter((s) => !s.includes('pg_prepared_statements'));
}

suite('prepared statements on a server ($name)', (target) => {
  let scratch: ScratchDatabase;
  let db: Db;
  let unprepared: Db;
  beforeAll(async () => {
    scratch = await (target as (typeof servers)[number]).createDatabase();
    db = await openDb(loadConfig(scratch.env));
    unprepared = await openDb(
      loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch.env, CAIRN_DATABASE_PREPARED_STATEMENTS: 'false' }),
    );
    await db.exec('CREATE TABLE notes (id int PRIMARY KEY, body text)');
  });
  afterAll(async () => {
    await db?.close();
    await unprepared?.close();
    await scratch?.drop();
  });

  it('prepares a read once per connection and reuses it with new parameters', async () => {
    await db.withLock(LOCK, async (conn) => {
      const read = 'SELECT $1::int + 1 AS n';
      expect((await conn.query<{ n: number }>(read, [1])).rows[0]?.n).toBe(2);
      expect((await conn.query<{ n: number }>(read, [41])).rows[0]?.n).toBe(42);
      expect(await preparedTexts(conn)).toEqual([read]);
    });
  });

  it('runs writes unnamed, and their results are unaffected', async () => {
    await db.withLock(LOCK, async (conn) => {
      const before = await preparedTexts(conn);
      await conn.query('INSERT INTO notes (id, body) VALUES ($1, $2)', [1, 'one']);
      await conn.query('UPDATE notes SET body = $1 WHERE id = $2', ['uno', 1]);
      const rows = (await conn.query<{ body: string }>('SELECT body FROM notes WHERE id = $1', [1])).rows;
      expect(rows).toEqual([{ body: 'uno' }]);
      const added = (await preparedTexts(conn)).filter((t) => !before.includes(t));
      expect(added).toEqual(['SELECT body FROM notes WHERE id = $1']);
    });
  });

  it('sees schema changes made after a statement was prepared', async () => {
    await db.withLock(LOCK, async (conn) => {
      const read = 'SELECT count(*)::int AS n FROM notes WHERE id > $1';
      expect((await conn.query<{ n: number }>(read, [0])).rows[0]?.n).toBe(1);
      await conn.exec('CREATE INDEX notes_body ON notes (body)');
      await conn.query('INSERT INTO notes (id, body) VALUES ($1, $2)', [2, 'two']);
      expect((await conn.query<{ n: number }>(read, [0])).rows[0]?.n).toBe(2);
    });
  });

  it('prepares a statement again after it failed to parse', async () => {
    await db.withLock(LOCK, async (conn) => {
      const read = 'SELECT count(*)::int AS n FROM later WHERE id > $1';
      await expect(conn.query(read, [0])).rejects.toThrow(/later/);
    });
    await db.exec('CREATE TABLE later (id int)');
    await db.withLock(LOCK, async (conn) => {
      expect(
        (await conn.query<{ n: number }>('SELECT count(*)::int AS n FROM later WHERE id > $1', [0])).rows[0]?.n,
      ).toBe(0);
    });
  });

  it('prepares nothing when turned off', async () => {
    await unprepared.withLock(LOCK, async (conn) => {
      expect((await conn.query<{ n: number }>('SELECT $1::int * 2 AS n', [21])).rows[0]?.n).toBe(42);
      expect(await preparedTexts(conn)).toEqual([]);
    });
  });

  it('ranks exactly as unprepared statements do, also once Postgres switches to a generic plan', async () => {
    const embedder = new HashingEmbeddingProvider({ dimensions: 64 });
    const services = await createServices(
      loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch.env, CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0' }),
      silentLogger(),
      { embedder },
    );
    const words = ['ledger', 'payment', 'retry', 'glacier', 'vault', 'broker', 'invoice', 'refund', 'latency', 'queue'];
    try {
      await services.documents.upsertMany(
        Array.from({ length: 40 }, (_, i) => ({
          id: `d${i}`,
          title: `Note ${i}`,
          content: Array.from({ length: 30 }, (_, j) => words[(i * 7 + j * ((i % 5) + 1)) % words.length]).join(' '),
          documentType: 'other' as const,
          source: null,
          tags: [],
          metadata: {},
          expiresAt: null,
        })),
      );
    } finally {
      await services.close();
    }
    // One connection, so every call reuses the same prepared statements (Postgres tries custom plans five times).
    const pinned = await openDb(
      loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch.env, CAIRN_DATABASE_POOL_SIZE: '1' }),
    );
    try {
      for (let round = 0; round < 3; round++) {
        for (const [i, word] of words.entries()) {
          const query = `${word} ${words[(i + 3) % words.length]}`;
          const vector = (await embedder.embed([query]))[0]!;
          expect(await new KeywordSearch(pinned).search(query, {}, 5)).toEqual(
            await new KeywordSearch(unprepared).search(query, {}, 5),
          );
          expect(await new VectorSearch(pinned).search(vector, {}, 5)).toEqual(
            await new VectorSearch(unprepared).search(vector, {}, 5),
          );
        }
      }
      const { rows } = await pinned.query<{ generic: number }>(
        `SELECT coalesce(sum(generic_plans), 0)::int AS generic FROM pg_prepared_statements WHERE name LIKE 'cairn\\_%'`,
      );
      expect(rows[0]!.generic).toBeGreaterThan(0);
    } finally {
      await pinned.close();
    }
  });
});
