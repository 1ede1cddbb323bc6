import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/Db.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { BulkLoad, withBulkLoad } from '../../src/retrieval/BulkLoad.js';
import { dropHnswIndex, ensureHnswIndex } from '../../src/retrieval/vectorIndex.js';
import { openDb } from '../../src/db/openDb.js';
import { createServices, type Services } from '../../src/services.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';
import { NO_BACKGROUND_EXTRACTION } from '../helpers/backgroundWork.js';

/** The HNSW index's oid, or undefined while it is dropped: a new oid means it was rebuilt. */
async function hnswOid(db: Db): Promise<string | undefined> {
  const { rows } = await db.query<{ oid: string }>("SELECT to_regclass('chunks_embedding_hnsw')::oid::text AS oid");
  return rows[0]?.oid ?? undefined;
}

/** A distinctive paragraph per document so searches can tell documents apart. */
function text(i: number, paragraphs: number): string {
  return Array.from(
    { length: paragraphs },
    (_, p) => `Document ${i} paragraph ${p} mentions topic${i} and keyword${i}x${p % 7}.`,
  ).join('\n\n');
}

describe.each(dbTargets())('bulk loads ($name)', (target) => {
  let scratch: ScratchDatabase;
  let services: Services;
  beforeAll(async () => {
    scratch = await target.createDatabase();
    const config = loadConfig({
      ...NO_BACKGROUND_EXTRACTION,
      ...scratch.env,
      CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
      CAIRN_CHUNK_SIZE: '100',
      CAIRN_CHUNK_OVERLAP: '10',
    });
    services = await createServices(config, silentLogger(), {
      embedder: new HashingEmbeddingProvider({ dimensions: 64 }),
    });
  });
  afterAll(async () => {
    await services?.close();
    await scratch?.drop();
  });

  it('keeps the index for a small load and, on a server, drops it for a large one and rebuilds it once at the end', async () => {
    const before = await hnswOid(services.db);
    expect(before === undefined).toBe(target.name === 'pglite');

    await withBulkLoad(services.db, async (bulk) => {
      await bulk.progress(100, 0.5); // 100 more chunks expected: not worth a rebuild
      expect(bulk.indexDeferred).toBe(false);
    });
    expect(await hnswOid(services.db)).toBe(before);

    const off = new BulkLoad(services.db, { deferIndex: false }); // CAIRN_IMPORT_DEFER_VECTOR_INDEX=false
    await off.progress(1000, 0.1);
    expect(off.indexDeferred).toBe(false);
    expect(await hnswOid(services.db)).toBe(before);

    const outer = new BulkLoad(services.db);
    const inner = new BulkLoad(services.db);
    await outer.progress(1000, 0.1); // 9,000 more expected into an empty store
    await inner.progress(1000, 0.1);
    expect(outer.indexDeferred).toBe(target.name === 'postgres');
    if (target.name === 'postgres') expect(await hnswOid(services.db)).toBeUndefined();

    // Searches stay correct while the index is away.
    await services.documents.upsertMany(
      Array.from({ length: 3 }, (_, i) => ({
        id: `bulk-${i}`,
        title: `Bulk ${i}`,
        content: text(i, 4),
        documentType: 'other' as const,
        source: null,
        tags: [],
        metadata: {},
        expiresAt: null,
      })),
    );
    const hits = await services.search.search({ query: 'topic2 keyword2x1', topK: 1, filter: {}, mode: 'VECTOR' });
    expect(hits[0]?.document.id).toBe('bulk-2');

    await inner.finish(); // another session still loads: no rebuild yet
    if (target.name === 'postgres') expect(await hnswOid(services.db)).toBeUndefined();
    const analysed = async () =>
      (
        await services.db.query<{ at: Date | null }>(
          "SELECT last_analyze AS at FROM pg_stat_user_tables WHERE relname = 'chunks'",
        )
      ).rows[0]?.at ?? null;
    const analysedBefore = await analysed();
    await outer.finish();
    const after = await hnswOid(services.db);
    expect(after === undefined).toBe(target.name === 'pglite');
    if (target.name === 'postgres') {
      expect(after).not.toBe(before);
      // The rebuild refreshes the statistics, so the planner knows the loaded rows before autovacuum gets to them.
      expect((await analysed())?.getTime()).toBeGreaterThan(analysedBefore?.getTime() ?? 0);
    }
  });

  it('a large folder import drops and rebuilds the index on a server, and every document is searchable after', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bulk-'));
    try {
      // 4 files of ~700 chunks each (100-character chunks): after the first, ~2,000 more chunks are projected.
      const files = Array.from({ length: 4 }, (_, i) => `part-${i}.md`);
      files.forEach((f, i) => fs.writeFileSync(path.join(root, f), `# Part ${i}\n\n${text(100 + i, 1100)}`));
      const before = await hnswOid(services.db);
      const job = await services.imports.submit({
        kind: 'directory',
        root,
        files,
        defaults: { documentType: 'other', tags: [], metadata: {} },
      });
      expect(job.status).toBe('SUCCEEDED');
      const after = await hnswOid(services.db);
      if (target.name === 'postgres') {
        expect(after).toBeDefined();
        expect(after).not.toBe(before);
      } else {
        expect(after).toBeUndefined();
      }
      for (let i = 0; i < 4; i++) {
        const hits = await services.search.search({
          query: `topic${100 + i} keyword${100 + i}x3`,
          topK: 1,
          filter: {},
          mode: 'VECTOR',
        });
        expect(hits[0]?.document.title).toBe(`Part ${i}`);
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('rebuilds an index left invalid by a dead build, and concurrent rebuilds take turns', async () => {
    if (target.name !== 'postgres') return; // PGlite has no HNSW index
    // What a CREATE INDEX CONCURRENTLY killed half-way leaves behind.
    await services.db.exec(
      "UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'chunks_embedding_hnsw'::regclass",
    );
    const invalid = await hnswOid(services.db);
    await ensureHnswIndex(services.db);
    const valid = await services.db.query<{ v: boolean }>(
      "SELECT indisvalid AS v FROM pg_index WHERE indexrelid = 'chunks_embedding_hnsw'::regclass",
    );
    expect(valid.rows[0]?.v).toBe(true);
    expect(await hnswOid(services.db)).not.toBe(invalid);

    // Two processes finishing loads at once: both return, one index.
    await dropHnswIndex(services.db);
    const other = await openDb(loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch.env }));
    try {
      await Promise.all([ensureHnswIndex(services.db), ensureHnswIndex(other)]);
    } finally {
      await other.close();
    }
    const { rows } = await services.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_indexes WHERE tablename = 'chunks' AND indexname LIKE 'chunks_embedding_hnsw%'",
    );
    expect(rows[0]?.n).toBe(1);
    expect(await hnswOid(services.db)).toBeDefined();
  });

  it('a failed rebuild is reported, not thrown, when the caller asks (an import keeps its result)', async () => {
    if (target.name !== 'postgres') return;
    const other = await openDb(loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch.env }));
    const errors: unknown[] = [];
    const result = await withBulkLoad(
      other,
      async (bulk) => {
        await bulk.progress(1000, 0.1);
        expect(bulk.indexDeferred).toBe(true);
        await other.close(); // the database goes away before the rebuild
        return 'loaded';
      },
      { onRebuildError: (err) => errors.push(err) },
    );
    expect(result).toBe('loaded');
    expect(errors).toHaveLength(1);
    await ensureHnswIndex(services.db); // what the next start-up does
    expect(await hnswOid(services.db)).toBeDefined();
  });

  it('says in the log when it drops the index and when it has rebuilt it', async () => {
    if (target.name !== 'postgres') return;
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    await withBulkLoad(services.db, (bulk) => bulk.progress(1000, 0.1), { logger });
    const messages = lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages).toEqual([
      'large load: HNSW index dropped until it ends (searches scan exactly meanwhile)',
      'load done: rebuilding the HNSW index',
      'HNSW index rebuilt',
    ]);
  });

  it('a load that died after dropping the index gets it back at the next start-up', async () => {
    if (target.name !== 'postgres') return;
    const dying = new BulkLoad(services.db);
    await dying.progress(1000, 0.1); // ... and the process dies here: finish never runs
    expect(await hnswOid(services.db)).toBeUndefined();
    const restarted = await createServices(
      loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch.env, CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0' }),
      silentLogger(),
      {
        embedder: new HashingEmbeddingProvider({ dimensions: 64 }),
        importQueue: false,
      },
    );
    try {
      expect(await hnswOid(restarted.db)).toBeDefined();
    } finally {
      await restarted.close();
      await dying.finish(); // leaves the index as it is (built), for the suites after this one
    }
  });
});
