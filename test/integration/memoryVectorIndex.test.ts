import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/Db.js';
import type { DocumentFilterSpec, DocumentInput } from '../../src/documents/types.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import { memoryVectorIndexFor } from '../../src/retrieval/MemoryVectorIndex.js';
import { reindex } from '../../src/retrieval/reindex.js';
import type { LaneHit } from '../../src/retrieval/types.js';
import { setEmbeddingColumn } from '../../src/retrieval/vectorIndex.js';
import { VectorSearch } from '../../src/retrieval/VectorSearch.js';
import { createServices, type Services } from '../../src/services.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';
import { NO_BACKGROUND_EXTRACTION } from '../helpers/backgroundWork.js';

const VOCAB = (
  'river stone lantern harbor copper meadow signal orchard glacier violet engine cedar thunder marble ' +
  'falcon prairie quartz canyon ember willow tide beacon saddle cobalt fern summit delta raven amber quiver ' +
  'mosaic tundra piston nectar ivory lagoon comet bramble sextant'
).split(' ');
const TYPES = ['faq', 'manual', 'tutorial'] as const;
const EPS = 1e-5;

/** A deterministic random source (mulberry32), so a failure replays. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = rng(42);
const words = (n: number, r = random) =>
  Array.from({ length: n }, () => VOCAB[Math.floor(r() * VOCAB.length)]).join(' ');

/** About eight 120-character chunks, the same for the same arguments; `mark` is a word only this version contains. */
function doc(i: number, mark = `item${i}`): DocumentInput {
  const r = rng([...mark].reduce((h, c) => Math.imul(h, 31) + c.charCodeAt(0), i));
  const sentences = Array.from({ length: 8 }, (_, s) => `${mark} ${words(12, r)} part${s}.`);
  return {
    id: `doc:${i}`,
    title: `Note ${i}`,
    content: sentences.join(' '),
    documentType: TYPES[i % 3] as DocumentInput['documentType'],
    source: i % 2 === 0 ? 'wiki' : 'mail',
    tags: i % 100 === 7 ? ['rare'] : i % 3 === 0 ? ['red'] : ['blue'],
    metadata: {},
    expiresAt: null,
  };
}

/** Same length and scores; ids equal wherever scores are apart (a run of equal scores cut by the limit may differ). */
function expectSameRanking(memory: LaneHit[], exact: LaneHit[], limit: number): void {
  expect(memory.length).toBe(exact.length);
  memory.forEach((h, i) => expect(Math.abs(h.score - (exact[i] as LaneHit).score)).toBeLessThan(EPS));
  const docOf = new Map(exact.map((h) => [h.chunkId, h.documentId]));
  for (const h of memory) if (docOf.has(h.chunkId)) expect(h.documentId).toBe(docOf.get(h.chunkId));
  for (let start = 0, i = 1; i <= exact.length; i++) {
    if (i < exact.length && Math.abs((exact[i] as LaneHit).score - (exact[i - 1] as LaneHit).score) < EPS) continue;
    if (i < exact.length || exact.length < limit) {
      const ids = (hits: LaneHit[]) =>
        hits
          .slice(start, i)
          .map((h) => h.chunkId)
          .sort();
      expect(ids(memory)).toEqual(ids(exact));
    }
    start = i;
  }
}

const FILTERS: DocumentFilterSpec[] = [
  {},
  { tagGroups: [['red']] },
  { types: ['faq'], sources: ['wiki'] },
  { tagGroups: [['rare']] },
];

describe('in-memory vector index on PGlite', () => {
  let scratch: ScratchDatabase;
  let s: Services;
  let embedder = new HashingEmbeddingProvider({ dimensions: 64 });
  const open = (env: Record<string, string> = {}, logger: Logger = silentLogger()) =>
    createServices(
      loadConfig({
        ...NO_BACKGROUND_EXTRACTION,
        ...scratch.env,
        CAIRN_CHUNK_SIZE: '120',
        CAIRN_CHUNK_OVERLAP: '10',
        CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
        ...env,
      }),
      logger,
      { embedder, importQueue: false },
    );
  const count = async (db: Db, sql: string) => (await db.query<{ n: number }>(sql)).rows[0]?.n;
  const memorySearch = (db: Db) => new VectorSearch(db, { memoryIndexMaxChunks: 1_000_000 });

  /** Random queries (a known word, a document's own word, no word at all) through both paths, every filter and limit. */
  async function expectSameAsSql(db: Db, queries = 12, marks: string[] = []): Promise<void> {
    const memory = memorySearch(db);
    const exact = new VectorSearch(db);
    const texts = Array.from({ length: queries }, (_, q) =>
      q === 0 ? '!!! ???' : `${words(1 + (q % 4))} ${marks[q % Math.max(1, marks.length)] ?? ''}`,
    );
    for (const vector of await embedder.embed(texts)) {
      for (const filter of FILTERS) {
        // One exact scan per filter: its top 40 begins with its top 7 and top 1 (up to ties at the cut, which
        // expectSameRanking leaves open), so each limit of the memory path is checked against it.
        const top = await exact.search(vector, filter, 40);
        for (const limit of [1, 7, 40])
          expectSameRanking(await memory.search(vector, filter, limit), top.slice(0, limit), limit);
      }
    }
    // In sync: every embedded chunk is held and the log is consumed.
    expect(memoryVectorIndexFor(db, { maxChunks: 0 }).size).toBe(
      await count(db, 'SELECT count(*)::int AS n FROM chunks WHERE embedding IS NOT NULL'),
    );
    expect(await count(db, 'SELECT count(*)::int AS n FROM chunk_vector_log')).toBe(0);
  }

  beforeAll(async () => {
    scratch = await dbTargets()[0]!.createDatabase();
    s = await open();
    const docs = Array.from({ length: 300 }, (_, i) => doc(i));
    for (let i = 0; i < docs.length; i += 100) await s.documents.upsertMany(docs.slice(i, i + 100));
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await scratch?.drop();
  });

  it('warms up before the first search, holding every embedded chunk (what `cairn serve` does at start)', async () => {
    const held = await s.search.warm();
    expect(held).toBe(await count(s.db, 'SELECT count(*)::int AS n FROM chunks WHERE embedding IS NOT NULL'));
    expect(held).toBeGreaterThan(300);
  });

  it('matches the exact SQL scan after the first load, which spans several pages', async () => {
    expect(await count(s.db, 'SELECT count(*)::int AS n FROM chunks')).toBeGreaterThan(2000);
    await expectSameAsSql(s.db, 6, ['item5', 'item107']);
  }, 60_000);

  it('stays in sync through changed, unchanged and extended documents, and deletes', async () => {
    await s.documents.upsertMany([
      ...Array.from({ length: 30 }, (_, i) => doc(i, `changed${i}`)),
      ...Array.from({ length: 10 }, (_, i) => doc(100 + i)), // unchanged: no vector is rewritten
      ...Array.from({ length: 10 }, (_, i) => ({
        ...doc(200 + i),
        content: `${doc(200 + i).content} tail${i} ${words(12)}.`,
      })), // chunks kept, one added
    ]);
    for (let i = 250; i < 275; i++) expect(await s.documents.delete(`doc:${i}`)).toBe(true);
    const memory = memorySearch(s.db);
    const [v] = await embedder.embed(['item260 item261']);
    expect(
      (await memory.search(v!, {}, 40)).some((h) => h.documentId === 'doc:260' || h.documentId === 'doc:261'),
    ).toBe(false);
    await expectSameAsSql(s.db, 6, ['changed3', 'tail4', 'item260']);
  }, 60_000);

  it('sees a write as soon as it resolves, also while other searches and writes run', async () => {
    const memory = memorySearch(s.db);
    const [v] = await embedder.embed(['quokka zeppelin']);
    await Promise.all([
      ...Array.from({ length: 4 }, (_, i) => s.documents.upsertMany([doc(400 + i)])),
      ...Array.from({ length: 4 }, () => memory.search(v!, {}, 5)),
    ]);
    await s.documents.upsertMany([{ ...doc(500), content: 'quokka zeppelin' }]);
    expect((await memory.search(v!, {}, 1))[0]?.documentId).toBe('doc:500');
    await expectSameAsSql(s.db, 4, ['item401']);
  }, 60_000);

  it('never returns an expired document, and a selective filter still gets every match', async () => {
    await s.db.query(`UPDATE documents SET expires_at = now() - interval '1 minute' WHERE id IN ('doc:40', 'doc:41')`);
    const memory = memorySearch(s.db);
    const [v] = await embedder.embed(['item40 item41']);
    const hits = await memory.search(v!, {}, 40);
    expect(hits.length).toBe(40);
    expect(hits.some((h) => h.documentId === 'doc:40' || h.documentId === 'doc:41')).toBe(false);
    // Three documents carry "rare" (1% of the chunks): too few among the best candidates, so the SQL scan answers.
    const rare = await memory.search(v!, { tagGroups: [['rare']] }, 40);
    expect(rare.length).toBe(
      await count(
        s.db,
        `SELECT count(*)::int AS n FROM chunks c JOIN documents d ON d.id = c.document_id WHERE 'rare' = ANY(d.tags)`,
      ),
    );
    await expectSameAsSql(s.db, 4, ['item40']);
  }, 60_000);

  it('reloads when a reindex clears the vectors and re-embeds them with another dimension', async () => {
    const memory = memorySearch(s.db);
    const next = new HashingEmbeddingProvider({ dimensions: 48 });
    await setEmbeddingColumn(s.db, next.info);
    const [v] = await next.embed(['river stone']);
    expect(await memory.search(v!, {}, 10)).toEqual([]);
    expect(memoryVectorIndexFor(s.db, { maxChunks: 0 }).size).toBe(0); // the column change fired no row trigger
    await reindex(s.db, next, { batchSize: 500 });
    embedder = next;
    await expectSameAsSql(s.db, 4, ['item9']);
    await reindex(s.db, next, { force: true, batchSize: 700 }); // every row updated in place, same dimension
    await expectSameAsSql(s.db, 2);
    await s.close(); // as after `cairn reindex`: the services start again with the new embedder
    s = await open();
  }, 120_000);

  it('after a restart, loads the store and consumes what the previous process logged but never read', async () => {
    const logged = async () => count(s.db, 'SELECT count(*)::int AS n FROM chunk_vector_log');
    await s.documents.upsertMany(Array.from({ length: 5 }, (_, i) => doc(600 + i)));
    await s.documents.delete('doc:10');
    expect(await logged()).toBeGreaterThan(0);
    await s.close();
    s = await open();
    expect(await logged()).toBeGreaterThan(0); // still there for the new process
    await s.documents.upsertMany([doc(601, 'again601')]);
    await s.documents.delete('doc:11');
    await expectSameAsSql(s.db, 5, ['item603', 'again601', 'item10', 'item11']);
    await s.close();
    s = await open({ CAIRN_VECTOR_MEMORY_INDEX_MAX_CHUNKS: '0' }); // off: the log goes, searches scan in SQL
    expect(await count(s.db, `SELECT count(*)::int AS n FROM pg_class WHERE relname = 'chunk_vector_log'`)).toBe(0);
    await s.documents.upsertMany([doc(700)]);
    await s.close();
    s = await open();
    expect((await s.search.hits({ query: 'item700', topK: 1, filter: {}, mode: 'VECTOR' }))[0]?.document.id).toBe(
      'doc:700',
    );
    await expectSameAsSql(s.db, 4, ['item700']);
  }, 120_000);
});

describe('in-memory vector index over its cap', () => {
  it('scans in SQL instead, says so once and drops the change log', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const scratch = await dbTargets()[0]!.createDatabase();
    const config = loadConfig({
      ...NO_BACKGROUND_EXTRACTION,
      ...scratch.env,
      CAIRN_CHUNK_SIZE: '120',
      CAIRN_CHUNK_OVERLAP: '10',
      CAIRN_VECTOR_MEMORY_INDEX_MAX_CHUNKS: '10',
    });
    const embedder = new HashingEmbeddingProvider({ dimensions: 32 });
    const s = await createServices(config, logger, { embedder, importQueue: false });
    try {
      await s.documents.upsertMany([doc(1), doc(2)]);
      expect((await s.db.query('SELECT 1 FROM chunk_vector_log')).rows.length).toBeGreaterThan(10);
      const exact = new VectorSearch(s.db);
      for (const q of ['river stone', 'item2 lantern']) {
        const [v] = await embedder.embed([q]);
        const hits = await s.search.hits({ query: q, topK: 5, filter: {}, mode: 'VECTOR' });
        expect(hits.map((h) => h.chunk.id)).toEqual((await exact.search(v!, {}, 5)).map((h) => h.chunkId));
      }
      expect(lines.filter((l) => l.includes('CAIRN_VECTOR_MEMORY_INDEX_MAX_CHUNKS'))).toHaveLength(1);
      expect(
        (await s.db.query<{ t: string | null }>(`SELECT to_regclass('chunk_vector_log')::text AS t`)).rows[0]?.t,
      ).toBeNull();
    } finally {
      await s.close();
    }
  });
});

const server = dbTargets().find((t) => t.name === 'postgres');

(server ? describe : describe.skip)('no change log on a Postgres server', () => {
  it('creates no log or trigger: the server keeps HNSW', async () => {
    const scratch = await server!.createDatabase();
    const s = await createServices(
      loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch.env, CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0' }),
      silentLogger(),
      {
        embedder: new HashingEmbeddingProvider({ dimensions: 32 }),
        importQueue: false,
      },
    );
    try {
      await s.documents.upsertMany([doc(1)]);
      expect(await s.search.warm()).toBe(0); // nothing to warm: HNSW answers
      expect((await s.search.hits({ query: 'item1', topK: 1, filter: {}, mode: 'VECTOR' }))[0]?.document.id).toBe(
        'doc:1',
      );
      expect(
        (await s.db.query<{ t: string | null }>(`SELECT to_regclass('chunk_vector_log')::text AS t`)).rows[0]?.t,
      ).toBeNull();
      expect((await s.db.query(`SELECT 1 FROM pg_trigger WHERE tgname = 'chunks_vector_log'`)).rows).toHaveLength(0);
    } finally {
      await s.close();
      await scratch.drop();
    }
  });
});
