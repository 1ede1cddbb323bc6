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
import { dbTargets, type DbTarget, type ScratchDatabase } from '../helpers/databases.js';
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

/**
 * A document of `paragraphs` short paragraphs (one 100-character chunk each) whose words are drawn from 2,000 made-up
 * ones, so no two chunks embed alike: an approximate (HNSW) search then finds a chunk's own text as its nearest
 * neighbour, where near-identical chunks would let it legitimately return a neighbour's.
 */
function distinctText(doc: number, paragraphs: number): string {
  let seed = 1 + doc * 7919;
  const word = () => {
    seed = (seed * 48271) % 2147483647;
    return `w${(seed % 2000).toString(36)}`;
  };
  return Array.from({ length: paragraphs }, () => Array.from({ length: 12 }, word).join(' ') + '.').join('\n\n');
}

/** Scratch services for one database target: the suite's embedder, 100-character chunks, nothing in the background. */
function scratchServices(target: DbTarget): { services: () => Services; scratch: () => ScratchDatabase } {
  let scratch: ScratchDatabase | undefined;
  let services: Services | undefined;
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
      embedder: new HashingEmbeddingProvider({ dimensions: DIMENSIONS }),
    });
  });
  afterAll(async () => {
    await services?.close();
    await scratch?.drop();
  });
  return { services: () => services!, scratch: () => scratch! };
}

const DIMENSIONS = 256;

/** Writes a folder of four ~400-chunk Markdown files, imports it as one job and returns the job's status. */
async function importLargeFolder(services: Services): Promise<string> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bulk-'));
  try {
    // After the first file, ~1,200 more chunks are projected: a large load.
    const files = Array.from({ length: 4 }, (_, i) => `part-${i}.md`);
    files.forEach((f, i) => fs.writeFileSync(path.join(root, f), `# Part ${i}\n\n${distinctText(i, 400)}`));
    const job = await services.imports.submit({
      kind: 'directory',
      root,
      files,
      defaults: { documentType: 'other', tags: [], metadata: {} },
    });
    return job.status;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** Every imported document is found by a VECTOR search for one of its own paragraphs. */
async function expectEveryPartFound(services: Services): Promise<void> {
  for (let i = 0; i < 4; i++) {
    const paragraph = distinctText(i, 300).split('\n\n')[299]!;
    const hits = await services.search.hits({ query: `Part ${i} ${paragraph}`, topK: 1, filter: {}, mode: 'VECTOR' });
    expect(hits[0]?.document.title).toBe(`Part ${i}`);
  }
}

const [pglite, server] = [dbTargets()[0]!, dbTargets().find((t) => t.name === 'postgres')];

describe('bulk loads on PGlite (no HNSW index: searches scan exactly)', () => {
  const { services } = scratchServices(pglite);

  it('never builds an index, for small and large loads alike, and searches stay correct', async () => {
    const db = services().db;
    expect(await hnswOid(db)).toBeUndefined();
    const large = new BulkLoad(db);
    await large.progress(1000, 0.1); // 9,000 more expected into an empty store
    expect(large.indexDeferred).toBe(false);
    await services().documents.upsertMany(bulkDocuments());
    const hits = await services().search.hits({ query: 'topic2 keyword2x1', topK: 1, filter: {}, mode: 'VECTOR' });
    expect(hits[0]?.document.id).toBe('bulk-2');
    await large.finish();
    expect(await hnswOid(db)).toBeUndefined();
  });

  it('a large folder import leaves no index behind, and every document is searchable after', async () => {
    expect(await importLargeFolder(services())).toBe('SUCCEEDED');
    expect(await hnswOid(services().db)).toBeUndefined();
    await expectEveryPartFound(services());
  });
});

/** Three small documents, `bulk-0` to `bulk-2`, each with its own topic and keywords. */
function bulkDocuments() {
  return Array.from({ length: 3 }, (_, i) => ({
    id: `bulk-${i}`,
    title: `Bulk ${i}`,
    content: text(i, 4),
    documentType: 'other' as const,
    source: null,
    tags: [],
    metadata: {},
    expiresAt: null,
  }));
}

(server ? describe : describe.skip)('bulk loads on a Postgres server (HNSW index)', () => {
  const { services, scratch } = scratchServices(server!);

  it('keeps the index for a small load, drops it for a large one and rebuilds it once at the end', async () => {
    const db = services().db;
    const before = await hnswOid(db);
    expect(before).toBeDefined();

    await withBulkLoad(db, async (bulk) => {
      await bulk.progress(100, 0.5); // 100 more chunks expected: not worth a rebuild
      expect(bulk.indexDeferred).toBe(false);
    });
    expect(await hnswOid(db)).toBe(before);

    const off = new BulkLoad(db, { deferIndex: false }); // CAIRN_IMPORT_DEFER_VECTOR_INDEX=false
    await off.progress(1000, 0.1);
    expect(off.indexDeferred).toBe(false);
    expect(await hnswOid(db)).toBe(before);

    const outer = new BulkLoad(db);
    const inner = new BulkLoad(db);
    await outer.progress(1000, 0.1); // 9,000 more expected into an empty store
    await inner.progress(1000, 0.1);
    expect(outer.indexDeferred).toBe(true);
    expect(await hnswOid(db)).toBeUndefined();

    // Searches stay correct while the index is away.
    await services().documents.upsertMany(bulkDocuments());
    const hits = await services().search.hits({ query: 'topic2 keyword2x1', topK: 1, filter: {}, mode: 'VECTOR' });
    expect(hits[0]?.document.id).toBe('bulk-2');

    await inner.finish(); // another session still loads: no rebuild yet
    expect(await hnswOid(db)).toBeUndefined();
    const analysed = async () =>
      (
        await db.query<{ at: Date | null }>(
          "SELECT last_analyze AS at FROM pg_stat_user_tables WHERE relname = 'chunks'",
        )
      ).rows[0]?.at ?? null;
    const analysedBefore = await analysed();
    await outer.finish();
    const after = await hnswOid(db);
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    // The rebuild refreshes the statistics, so the planner knows the loaded rows before autovacuum gets to them.
    expect((await analysed())?.getTime()).toBeGreaterThan(analysedBefore?.getTime() ?? 0);
  });

  it('a large folder import drops and rebuilds the index, which holds every chunk, and every document is found', async () => {
    const db = services().db;
    const before = await hnswOid(db);
    expect(await importLargeFolder(services())).toBe('SUCCEEDED');
    const after = await hnswOid(db);
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    // Exact: the rebuilt index has an entry for every embedded chunk (its build counts them into reltuples).
    const { rows } = await db.query<{ indexed: number; chunks: number }>(
      `SELECT (SELECT reltuples::int FROM pg_class WHERE relname = 'chunks_embedding_hnsw') AS indexed,
              (SELECT count(*)::int FROM chunks WHERE embedding IS NOT NULL) AS chunks`,
    );
    expect(rows[0]?.chunks).toBeGreaterThan(1600);
    expect(rows[0]?.indexed).toBe(rows[0]?.chunks);
    // Through the index: each document's own paragraph finds it.
    await expectEveryPartFound(services());
  });

  it('rebuilds an index left invalid by a dead build, and concurrent rebuilds take turns', async () => {
    // What a CREATE INDEX CONCURRENTLY killed half-way leaves behind.
    await services().db.exec(
      "UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'chunks_embedding_hnsw'::regclass",
    );
    const invalid = await hnswOid(services().db);
    await ensureHnswIndex(services().db);
    const valid = await services().db.query<{ v: boolean }>(
      "SELECT indisvalid AS v FROM pg_index WHERE indexrelid = 'chunks_embedding_hnsw'::regclass",
    );
    expect(valid.rows[0]?.v).toBe(true);
    expect(await hnswOid(services().db)).not.toBe(invalid);

    // Two processes finishing loads at once: both return, one index.
    await dropHnswIndex(services().db);
    const other = await openDb(loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch().env }));
    try {
      await Promise.all([ensureHnswIndex(services().db), ensureHnswIndex(other)]);
    } finally {
      await other.close();
    }
    const { rows } = await services().db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_indexes WHERE tablename = 'chunks' AND indexname LIKE 'chunks_embedding_hnsw%'",
    );
    expect(rows[0]?.n).toBe(1);
    expect(await hnswOid(services().db)).toBeDefined();
  });

  it('a failed rebuild is reported, not thrown, when the caller asks (an import keeps its result)', async () => {
    const other = await openDb(loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch().env }));
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
    await ensureHnswIndex(services().db); // what the next start-up does
    expect(await hnswOid(services().db)).toBeDefined();
  });

  it('says in the log when it drops the index and when it has rebuilt it', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    await withBulkLoad(services().db, (bulk) => bulk.progress(1000, 0.1), { logger });
    const messages = lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages).toEqual([
      'large load: HNSW index dropped until it ends (searches scan exactly meanwhile)',
      'load done: rebuilding the HNSW index',
      'HNSW index rebuilt',
    ]);
  });

  it('a load that died after dropping the index gets it back at the next start-up', async () => {
    const dying = new BulkLoad(services().db);
    await dying.progress(1000, 0.1); // ... and the process dies here: finish never runs
    expect(await hnswOid(services().db)).toBeUndefined();
    const restarted = await createServices(
      loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch().env, CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0' }),
      silentLogger(),
      {
        embedder: new HashingEmbeddingProvider({ dimensions: DIMENSIONS }),
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
