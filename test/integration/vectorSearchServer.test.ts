import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { VectorSearch } from '../../src/retrieval/VectorSearch.js';
import { createServices, type Services } from '../../src/services.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';
import { NO_BACKGROUND_EXTRACTION } from '../helpers/backgroundWork.js';
import { countStatement, countStatements } from '../helpers/statementCounter.js';

// HNSW only exists on a server: ef_search per connection, widening for large limits, the exact fallback for filters.
const servers = dbTargets().filter((t) => t.name === 'postgres');
const suite = servers.length > 0 ? describe.each(servers) : describe.skip.each([{ name: 'postgres' as const }]);

suite('vector search on a server ($name)', (target) => {
  let scratch: ScratchDatabase;
  let services: Services;
  const embedder = new HashingEmbeddingProvider({ dimensions: 64 });
  beforeAll(async () => {
    scratch = await (target as (typeof servers)[number]).createDatabase();
    const config = loadConfig({
      ...NO_BACKGROUND_EXTRACTION,
      ...scratch.env,
      CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
      CAIRN_HNSW_EF_SEARCH: '120',
    });
    services = await createServices(config, silentLogger(), { embedder, onStatement: countStatement });
    // 200 one-chunk documents; the 4 tagged "needle" are about something else than the query below.
    await services.documents.upsertMany(
      Array.from({ length: 200 }, (_, i) => ({
        id: `v${i}`,
        title: `Note ${i}`,
        content: i % 50 === 7 ? `Glacier moraine sediment ${i}` : `Payment retry policy number ${i} for card payments`,
        documentType: 'other' as const,
        source: null,
        tags: i % 50 === 7 ? ['needle'] : [],
        metadata: {},
        expiresAt: null,
      })),
    );
  });
  afterAll(async () => {
    await services?.close();
    await scratch?.drop();
  });

  const vectorOf = async (text: string) => (await embedder.embed([text]))[0]!;

  it('sets CAIRN_HNSW_EF_SEARCH on every connection, so limits up to it need no transaction', async () => {
    const { rows } = await services.db.query<{ v: string }>("SELECT current_setting('hnsw.ef_search') AS v");
    expect(rows[0]?.v).toBe('120');
    const iterative = await services.db.query<{ v: string }>("SELECT current_setting('hnsw.iterative_scan') AS v");
    expect(iterative.rows[0]?.v).toBe('relaxed_order');
    const search = new VectorSearch(services.db, { efSearch: 120 });
    const q = await vectorOf('payment retry policy');
    // Up to ef_search: the SELECT alone.
    const within = await countStatements(() => search.search(q, {}, 100));
    expect(within.value).toHaveLength(100);
    expect(within.statements).toBe(1);
    // Above it, one transaction widens ef_search for the query: BEGIN, SET LOCAL, SELECT, COMMIT.
    const above = await countStatements(() => search.search(q, {}, 150));
    expect(above.value).toHaveLength(150);
    expect(above.statements).toBe(4);
  });

  it('answers a selective filter with every match even when ef_search is tiny (HNSW alone would come back short)', async () => {
    // ef_search 4 on these connections: HNSW sees 4 candidates, nearly all payment notes, so the filter leaves fewer.
    const narrow = await createServices(
      loadConfig({
        ...NO_BACKGROUND_EXTRACTION,
        ...scratch.env,
        CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
        CAIRN_HNSW_EF_SEARCH: '4',
      }),
      silentLogger(),
      { embedder },
    );
    const search = new VectorSearch(narrow.db, { efSearch: 4 });
    const hits = await search.search(await vectorOf('payment retry policy'), { tagGroups: [['needle']] }, 4);
    await narrow.close();
    expect(hits.map((h) => h.documentId).sort()).toEqual(['v107', 'v157', 'v57', 'v7']);
    // Best first.
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
  });

  it('indexes the half-precision cast and reports full-precision cosine similarity', async () => {
    const { rows: index } = await services.db.query<{ def: string }>(
      "SELECT pg_get_indexdef('chunks_embedding_hnsw'::regclass) AS def",
    );
    expect(index[0]?.def).toContain('((embedding)::halfvec(64)) halfvec_cosine_ops');
    const q = await vectorOf('payment retry policy');
    const hits = await new VectorSearch(services.db, { efSearch: 120 }).search(q, {}, 20);
    expect(hits).toHaveLength(20);
    const { rows } = await services.db.query<{ id: string; similarity: number }>(
      'SELECT id::text AS id, 1 - (embedding <=> $1::vector) AS similarity FROM chunks WHERE id = ANY($2::bigint[])',
      [`[${Array.from(q).join(',')}]`, hits.map((h) => h.chunkId)],
    );
    const exact = new Map(rows.map((r) => [r.id, Number(r.similarity)]));
    for (const h of hits) expect(Math.abs(h.score - Math.max(0, exact.get(h.chunkId) ?? -1))).toBeLessThan(1e-6);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
  });

  it('rebuilds an index of an earlier release (on the full-precision column) at start-up', async () => {
    await services.db.exec(
      'DROP INDEX chunks_embedding_hnsw; CREATE INDEX chunks_embedding_hnsw ON chunks USING hnsw (embedding vector_cosine_ops)',
    );
    const restarted = await createServices(
      loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch.env, CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0' }),
      silentLogger(),
      { embedder },
    );
    try {
      const { rows } = await restarted.db.query<{ def: string; valid: boolean }>(
        "SELECT pg_get_indexdef(indexrelid) AS def, indisvalid AS valid FROM pg_index WHERE indexrelid = 'chunks_embedding_hnsw'::regclass",
      );
      expect(rows[0]).toEqual({ def: expect.stringContaining('halfvec_cosine_ops'), valid: true });
      const hits = await restarted.search.hits({
        query: 'glacier moraine sediment',
        topK: 4,
        filter: {},
        mode: 'VECTOR',
      });
      expect(hits.map((h) => h.document.id).sort()).toEqual(['v107', 'v157', 'v57', 'v7']);
    } finally {
      await restarted.close();
    }
  });

  it('rebuilds an index with the earlier build parameters beside it, then swaps it in', async () => {
    await services.db.exec(
      'DROP INDEX chunks_embedding_hnsw; CREATE INDEX chunks_embedding_hnsw ON chunks USING hnsw ((embedding::halfvec(64)) halfvec_cosine_ops)',
    );
    const restarted = await createServices(
      loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch.env, CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0' }),
      silentLogger(),
      { embedder },
    );
    try {
      const { rows } = await restarted.db.query<{ name: string; def: string; valid: boolean }>(
        "SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname LIKE 'chunks_embedding_hnsw%'",
      );
      expect(rows).toEqual([
        { name: 'chunks_embedding_hnsw', def: expect.stringContaining("WITH (ef_construction='128')"), valid: true },
      ]);
      const hits = await restarted.search.hits({
        query: 'glacier moraine sediment',
        topK: 4,
        filter: {},
        mode: 'VECTOR',
      });
      expect(hits.map((h) => h.document.id).sort()).toEqual(['v107', 'v157', 'v57', 'v7']);
    } finally {
      await restarted.close();
    }
  });

  it('keeps start-up options the database URL already has next to hnsw.ef_search', async () => {
    const url = new URL(scratch.url!);
    url.searchParams.set('options', '-c statement_timeout=12345');
    const other = await createServices(
      loadConfig({
        ...NO_BACKGROUND_EXTRACTION,
        CAIRN_DATABASE_URL: url.toString(),
        CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
        CAIRN_HNSW_EF_SEARCH: '77',
      }),
      silentLogger(),
      { embedder },
    );
    try {
      const { rows } = await other.db.query<{ ef: string; timeout: string }>(
        "SELECT current_setting('hnsw.ef_search') AS ef, current_setting('statement_timeout') AS timeout",
      );
      expect(rows[0]).toEqual({ ef: '77', timeout: '12345ms' });
    } finally {
      await other.close();
    }
  });

  it.each([
    [3072, 'halfvec'], // e.g. text-embedding-3-large: over pgvector's 2,000-dimension limit for vector, under 4,000 for halfvec
    [4500, 'none'],
  ])('stores and searches %i-dimension embeddings (HNSW index: %s)', async (dimensions, kind) => {
    const wide = await (target as (typeof servers)[number]).createDatabase();
    const big = new HashingEmbeddingProvider({ dimensions });
    const s = await createServices(
      loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...wide.env, CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0' }),
      silentLogger(),
      {
        embedder: big,
      },
    );
    try {
      await s.documents.upsertMany(
        ['glacier moraine sediment', 'payment retry policy', 'lighthouse keeper logbook'].map((content, i) => ({
          id: `w${i}`,
          title: `Wide ${i}`,
          content,
          documentType: 'other' as const,
          source: null,
          tags: [],
          metadata: {},
          expiresAt: null,
        })),
      );
      const { rows } = await s.db.query<{ def: string | null }>(
        "SELECT pg_get_indexdef(to_regclass('chunks_embedding_hnsw')) AS def",
      );
      if (kind === 'none') expect(rows[0]?.def).toBeNull();
      else expect(rows[0]?.def).toContain(`halfvec(${dimensions})) halfvec_cosine_ops`);
      const hits = await s.search.hits({ query: 'payment retry', topK: 1, filter: {}, mode: 'VECTOR' });
      expect(hits[0]?.document.id).toBe('w1');
      if (kind === 'halfvec') {
        // The search orders by the indexed expression, so the planner can use the index.
        const [q] = await big.embed(['payment retry']);
        const plan = await s.db.transaction(async (tx) => {
          await tx.exec('SET LOCAL enable_seqscan = off');
          const res = await tx.query<{ 'QUERY PLAN': string }>(
            `EXPLAIN SELECT id FROM chunks c ORDER BY (c.embedding::halfvec(${dimensions})) <=> $1::halfvec(${dimensions}) LIMIT 1`,
            [`[${Array.from(q!).join(',')}]`],
          );
          return res.rows.map((r) => r['QUERY PLAN']).join('\n');
        });
        expect(plan).toContain('chunks_embedding_hnsw');
      }
    } finally {
      await s.close();
      await wide.drop();
    }
  });
});
