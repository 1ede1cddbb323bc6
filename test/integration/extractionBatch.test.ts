import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import type { Db, Queryable } from '../../src/db/Db.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { RECONCILE_LOCK } from '../../src/extraction/ExtractionPipeline.js';
import { silentLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';
import { doc, EXTRACTION_ENV } from '../helpers/extractionScenario.js';
import { TextMarkupExtractor } from '../helpers/TextMarkupExtractor.js';

const BATCH = 4;
const DOCUMENTS = 10;

/** Counts the reconcile rounds the pipeline takes, and can hold the next one at its start until released. */
function watchReconcile(db: Db) {
  const withLock = db.withLock.bind(db);
  const watch = {
    rounds: 0,
    documents: [] as number[],
    hold: undefined as Promise<void> | undefined,
    entered: () => {},
  };
  db.withLock = <T>(key: number, fn: (conn: Queryable) => Promise<T>, options?: { pollMs?: number }) =>
    withLock(
      key,
      async (conn) => {
        if (key === RECONCILE_LOCK) {
          watch.rounds += 1;
          watch.entered();
          await watch.hold;
        }
        return fn(conn);
      },
      options,
    );
  return watch;
}

describe.each(dbTargets())('extraction in batches ($name)', (target) => {
  let scratch: ScratchDatabase;
  let s: Services;
  beforeAll(async () => {
    scratch = await target.createDatabase();
    s = await createServices(
      loadConfig({ ...scratch.env, ...EXTRACTION_ENV, CAIRN_EXTRACTION_BATCH_DOCUMENTS: String(BATCH) }),
      silentLogger(),
      {
        embedder: new HashingEmbeddingProvider({ dimensions: 64 }),
        extractors: [new TextMarkupExtractor()],
        importQueue: false,
      },
    );
  });
  afterAll(async () => {
    await s?.close();
    await scratch?.drop();
  });

  it('reconciles a batch of documents in one round, and each document alike', async () => {
    const watch = watchReconcile(s.db);
    const docs = Array.from({ length: DOCUMENTS }, (_, i) =>
      doc(`doc:b${i}`, `Batch Page ${i}`, `b${i}.md`, `Built with [[Rollup|Technology]] and [[Tool ${i}|Technology]].`),
    );
    await s.documents.upsertMany(docs);
    await s.extraction.drain();
    expect(watch.rounds).toBeLessThanOrEqual(Math.ceil(DOCUMENTS / BATCH));
    expect(await s.extraction.statusCounts()).toEqual({ pending: 0, running: 0, done: DOCUMENTS, failed: 0 });
    // One entity for the thing every document names; each document's own tool and page.
    const ids = ['x:technology:rollup', ...docs.map((_, i) => `x:technology:tool-${i}`)];
    expect((await s.graph.getEntities(ids)).map((e) => e.id).sort()).toEqual([...ids].sort());
    const state = await s.extraction.documentState('doc:b3');
    expect(state?.entityCount).toBe(3);
  }, 60_000);

  it('writes documents while a batch holds the reconcile lock', async () => {
    const watch = watchReconcile(s.db);
    let release = () => {};
    watch.hold = new Promise<void>((resolve) => (release = resolve));
    const entered = new Promise<void>((resolve) => (watch.entered = resolve));
    await s.documents.upsertMany([doc('doc:held', 'Held Page', 'held.md', 'Uses [[esbuild|Technology]].')]);
    const draining = s.extraction.drain();
    await entered;
    // The worker is inside the lock: a write neither waits for it nor for the round to end.
    await s.documents.upsertMany([doc('doc:meanwhile', 'Meanwhile', 'meanwhile.md', 'Uses [[Vite|Technology]].')]);
    expect(await s.documents.manyWithChunks(['doc:meanwhile'])).toHaveLength(1);
    expect((await s.extraction.documentState('doc:held'))?.status).toBe('RUNNING');
    watch.hold = undefined;
    release();
    await draining;
    await s.extraction.drain();
    expect(await s.extraction.statusCounts()).toMatchObject({ pending: 0, running: 0, failed: 0 });
    expect((await s.graph.getEntities(['x:technology:esbuild', 'x:technology:vite'])).map((e) => e.id)).toEqual([
      'x:technology:esbuild',
      'x:technology:vite',
    ]);
  }, 60_000);
});
