import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Db } from '../../src/db/Db.js';
import { loadMigrations, migrate, pendingMigrations } from '../../src/db/migrate.js';
import { openDb } from '../../src/db/openDb.js';
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import type { AppError } from '../../src/errors.js';
import { silentLogger } from '../../src/logger.js';
import { reindex } from '../../src/retrieval/reindex.js';
import { createServices } from '../../src/services.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';
import { NO_BACKGROUND_EXTRACTION } from '../helpers/backgroundWork.js';

describe.each(dbTargets())('storage ($name)', (target) => {
  let scratch: ScratchDatabase;
  beforeAll(async () => {
    scratch = await target.createDatabase({ empty: true });
  });
  afterAll(async () => {
    await scratch?.drop();
  });
  const config = () => loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch.env, CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0' });

  it('applies migrations once; concurrent servers take turns', async () => {
    const all = loadMigrations().map((m) => m.version);
    let dbs: Db[];
    if (target.name === 'postgres') {
      dbs = await Promise.all([openDb(config()), openDb(config())]);
      const applied = await Promise.all(dbs.map((db) => migrate(db)));
      expect(applied.flat().sort()).toEqual([...all].sort());
    } else {
      // PGlite is single-process: one instance per data folder.
      dbs = [await openDb(config())];
      expect(await migrate(dbs[0]!)).toEqual(all);
    }
    const db = dbs[0]!;
    expect(await migrate(db)).toEqual([]);
    expect(await pendingMigrations(db)).toEqual([]);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
    expect(rows[0]!.n).toBe(all.length);
    const idx = await db.query<{ indexname: string }>(
      `SELECT indexname FROM pg_indexes WHERE tablename IN ('documents','chunks')`,
    );
    expect(idx.rows.map((r) => r.indexname)).toEqual(
      expect.arrayContaining(['documents_tags_gin', 'chunks_keyword_gin']),
    );
    // Searches scan GIN's pending list of not-yet-merged entries: it stays small under a steady import.
    const gin = await db.query<{ options: string[] }>(
      `SELECT reloptions AS options FROM pg_class WHERE relname = 'chunks_keyword_gin'`,
    );
    expect(gin.rows[0]?.options).toEqual(['gin_pending_list_limit=256']);
    for (const d of dbs) await d.close();
  });

  it('records the embedder, refuses a different one, and reindex switches to it', async () => {
    const open = (dims: number, allowEmbedderMismatch = false) =>
      createServices(config(), silentLogger(), {
        embedder: new HashingEmbeddingProvider({ dimensions: dims }),
        allowEmbedderMismatch,
      });

    const first = await open(64);
    await first.documents.create({
      id: 'd1',
      title: 'Alpha',
      content: 'alpha beta gamma. '.repeat(60),
      documentType: 'other',
      source: null,
      tags: [],
      metadata: {},
      expiresAt: null,
    });
    await first.documents.create({
      id: 'd2',
      title: 'Zebra',
      content: 'zebras and lions on the savanna. '.repeat(40),
      documentType: 'other',
      source: null,
      tags: [],
      metadata: {},
      expiresAt: null,
    });
    await first.close();

    const err = await open(128).then(
      () => undefined,
      (e: unknown) => e as AppError,
    );
    expect(err?.code).toBe('EMBEDDER_MISMATCH');
    expect(err?.message).toContain('hashing/hashing-v1 (64 dimensions)');
    expect(err?.message).toContain('hashing/hashing-v1 (128 dimensions)');
    expect(err?.message).toContain('npm run cairn -- reindex');

    const tool = await open(128, true);
    const seen: number[] = [];
    const result = await reindex(tool.db, tool.embedder, { batchSize: 2, onProgress: (p) => seen.push(p.done) });
    expect(result.total).toBeGreaterThan(2);
    expect(result.done).toBe(result.total);
    expect(seen.length).toBeGreaterThan(2);
    await tool.close();

    const after = await open(128);
    const hits = await after.search.hits({ query: 'zebras on the savanna', topK: 1, filter: {} });
    expect(hits[0]?.document.id).toBe('d2');
    const { rows } = await after.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM chunks WHERE embedding IS NULL',
    );
    expect(rows[0]!.n).toBe(0);
    expect((await after.documents.stats()).documentCount).toBe(2);
    await after.close();
  });
});
