import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { hnswExpression } from '../src/retrieval/vectorIndex.js';
import { toVectorSql } from '../src/db/vector.js';
import { HashingEmbeddingProvider } from '../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { Neo4jGraphStore } from '../src/graph/neo4j/Neo4jGraphStore.js';
import { silentLogger } from '../src/logger.js';
import { createServices, type Services } from '../src/services.js';
import { createScratchDatabase } from '../test/helpers/databases.js';
import { loadSciFact } from './datasets.js';
import {
  countNeo4jNodes,
  deleteNeo4jNodes,
  graphKeeper,
  loadAtScale,
  type GraphKeeper,
  type LoadFigures,
  type Neo4jTarget,
  type Neo4jWrite,
} from './latencyLoad.js';
import { percentile } from './metrics.js';
import { machineLine, type Table } from './report.js';
import { defaultEnrichRequest } from './enrichRequest.js';

/** How much the part loads and how many queries it measures. */
export interface LatencySizes {
  chunks: number;
  entities: number;
  relationships: number;
  queries: number;
}

/** Issue #4's scale: 100,000 chunks, 10,000 entities (50,000 relationships), 300 queries. */
export const DEFAULT_SIZES: LatencySizes = { chunks: 100_000, entities: 10_000, relationships: 50_000, queries: 300 };
const WARMUP = 20;
const TOP_K = 10;
/** Targets of issue #4. */
const OVERLAP_TARGET = 0.75;
const RECALL_TARGET = 0.95;

/** Per-query figures of the measuring pass. */
interface Measured {
  total: number[];
  retrieval: number[];
  graph: number[];
  /** total ÷ (retrieval + graph) per query. */
  ratio: number[];
  warnings: number;
  /** Distinct lane warnings, to say what went wrong. */
  warningTexts: Set<string>;
  entities: number[];
  vector: number[];
  keyword: number[];
  exact: number[];
  recall: number[];
  /** Recall of HNSW at each of WIDER_EF. */
  widerRecall: number[][];
  hnswUsed: boolean;
  /** Batches measured again because other work wiped Neo4j during them. */
  redone: number;
  /** enrichContext settings used (from configuration). */
  maxEntities: number;
  maxChars: number;
  /** The hnsw.ef_search the vector lane ran with. */
  efSearch: number;
}

const log = (m: string) => console.log(`[latency ${new Date().toISOString().slice(11, 19)}] ${m}`);

/**
 * The vector lane's query with no filter (all documents are live), reporting the full-precision distance: ordered by
 * the HNSW index's expression (the half-precision cast; see hnswExpression), or, with `exact`, by the distance itself,
 * which no index serves.
 */
function nearestSql(dimensions: number, exact: boolean): string {
  const on = hnswExpression(dimensions);
  const order = on && !exact ? `${on.of('c.embedding')} <=> $1::${on.cast}` : 'c.embedding <=> $1::vector';
  return `SELECT c.id::text AS id, (c.embedding <=> $1::vector) AS distance
  FROM chunks c JOIN documents d ON d.id = c.document_id
 WHERE c.embedding IS NOT NULL AND (d.expires_at IS NULL OR d.expires_at > now())
 ORDER BY ${order} LIMIT ${TOP_K}`;
}

/** ef_search values whose recall is printed besides the one search uses, to show what a wider search would buy. */
const WIDER_EF = [200, 400] as const;

type Nearest = { id: string; distance: number }[];

/**
 * Nearest chunks on a separate read-only connection: exact (`ef` undefined), so the distance is computed for every
 * row, or through HNSW with the given ef_search.
 */
async function nearest(client: pg.Client, vector: string, dimensions: number, ef?: number): Promise<Nearest> {
  await client.query('BEGIN READ ONLY');
  try {
    if (ef !== undefined) await client.query(`SET LOCAL hnsw.ef_search = ${Math.trunc(ef)}`);
    const { rows } = await client.query<{ id: string; distance: number | string }>(
      nearestSql(dimensions, ef === undefined),
      [vector],
    );
    return rows.map((r) => ({ id: r.id, distance: Number(r.distance) }));
  } finally {
    await client.query('COMMIT');
  }
}

/** Queries per enrichContext batch; a batch during which the graph vanished from Neo4j is measured again. */
const GUARDED_BATCH = 25;

/** Times enrichContext over the queries, then each search lane alone, and HNSW (VECTOR search) against exact search. */
async function measure(
  services: Services,
  exactUrl: string,
  queries: readonly string[],
  keeper: GraphKeeper,
): Promise<Measured> {
  const { enrich } = services.config;
  const ask = (query: string) => services.enricher.enrich(defaultEnrichRequest(services, query, { topK: TOP_K }));
  const m: Measured = {
    total: [],
    retrieval: [],
    graph: [],
    ratio: [],
    warnings: 0,
    warningTexts: new Set(),
    entities: [],
    vector: [],
    keyword: [],
    exact: [],
    recall: [],
    widerRecall: WIDER_EF.map(() => []),
    hnswUsed: false,
    redone: 0,
    maxEntities: enrich.maxEntities,
    maxChars: enrich.maxChars,
    efSearch: services.config.hnswEfSearch,
  };
  await keeper.ensure();
  for (const q of queries.slice(0, WARMUP)) await ask(q);
  for (let b = 0; b < queries.length;) {
    await keeper.ensure();
    const batch: Awaited<ReturnType<typeof ask>>[] = [];
    for (const q of queries.slice(b, b + GUARDED_BATCH)) batch.push(await ask(q));
    if (!(await keeper.intact())) {
      m.redone++;
      continue; // the graph vanished during the batch: its figures are not of this graph
    }
    for (const { timings, warnings, entities } of batch) {
      m.total.push(timings.totalMs);
      m.retrieval.push(timings.retrievalMs);
      m.graph.push(timings.graphMs);
      m.ratio.push(timings.totalMs / (timings.retrievalMs + timings.graphMs));
      m.entities.push(entities.length);
      m.warnings += warnings.length;
      for (const w of warnings)
        m.warningTexts.add(
          w
            .replace(/\d+(\.\d+)? ms/g, 'N ms')
            .replace(/[\s|]+/g, ' ')
            .slice(0, 160),
        );
    }
    b += GUARDED_BATCH;
    if (b % 100 === 0)
      log(`enrichContext: ${m.total.length}/${queries.length} queries, p50 ${percentile(m.total, 50).toFixed(1)} ms`);
  }

  await measureSearch(services, exactUrl, queries, m);
  return m;
}

/** Times each search lane alone, and HNSW (VECTOR search) recall against exact search on its own connection. */
async function measureSearch(
  services: Services,
  exactUrl: string,
  queries: readonly string[],
  m: Measured,
): Promise<void> {
  const client = new pg.Client({ connectionString: exactUrl });
  await client.connect();
  try {
    const [probe] = await services.embedder.embed([queries[0] ?? 'probe']);
    const dimensions = services.embedder.dimensions;
    const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${nearestSql(dimensions, false)}`, [
      toVectorSql(probe as Float32Array),
    ]);
    m.hnswUsed = plan.rows.some((r) => r['QUERY PLAN'].includes('chunks_embedding_hnsw'));
    for (const [i, q] of queries.entries()) {
      const s = performance.now();
      const hits = await services.search.hits({ query: q, topK: TOP_K, filter: {}, mode: 'VECTOR' });
      m.vector.push(performance.now() - s);
      const k = performance.now();
      await services.search.hits({ query: q, topK: TOP_K, filter: {}, mode: 'KEYWORD' });
      m.keyword.push(performance.now() - k);
      const [vector] = await services.embedder.embed([q]);
      const literal = toVectorSql(vector as Float32Array);
      const e = performance.now();
      const exact = await nearest(client, literal, dimensions);
      m.exact.push(performance.now() - e);
      m.recall.push(
        recallAgainst(
          exact,
          hits.map((h) => ({ id: h.chunk.id, distance: 1 - (h.vectorScore ?? 0) })),
        ),
      );
      for (const [j, ef] of WIDER_EF.entries())
        m.widerRecall[j]?.push(recallAgainst(exact, await nearest(client, literal, dimensions, ef)));
      if (i % 100 === 99)
        log(
          `HNSW vs exact: ${i + 1}/${queries.length} queries, mean recall@${TOP_K} ${(m.recall.reduce((a, b) => a + b, 0) / m.recall.length).toFixed(3)}`,
        );
    }
  } finally {
    await client.end();
  }
}

/** Share of the exact k nearest found; ties at the k-th distance make the exact set ambiguous, so any hit as near counts. */
function recallAgainst(exact: Nearest, found: Nearest): number {
  if (exact.length === 0) return 1;
  const kth = exact.at(-1)?.distance ?? Number.POSITIVE_INFINITY;
  const ids = new Set(exact.map((x) => x.id));
  return Math.min(exact.length, found.filter((h) => ids.has(h.id) || h.distance <= kth + 1e-6).length) / exact.length;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const verdict = (ok: boolean, by: number) =>
  ok ? `met (by ${Math.abs(by).toFixed(3)})` : `missed by ${Math.abs(by).toFixed(3)}`;

/** The two tables of the part: what was loaded, and the query figures against their targets. */
function tables(
  load: LoadFigures,
  neo: Neo4jWrite,
  m: Measured,
  queryCount: number,
  cleanup: { rewrites: number; leftBehind: number },
): Table[] {
  const note = `Machine: ${machineLine()}; other work shares the cores, so times are noisy.`;
  return [loadTable(load, neo, cleanup, note), queryTable(m, load, queryCount, note)];
}

function loadTable(
  load: LoadFigures,
  neo: Neo4jWrite,
  cleanup: { rewrites: number; leftBehind: number },
  note: string,
): Table {
  return {
    title: `Latency at scale: load (Postgres 16 server + Neo4j 5, ${load.chunks.toLocaleString('en')} chunks, ${load.entities.toLocaleString('en')} entities)`,
    headers: ['step', 'items', 'seconds', 'items/s'],
    rows: [
      [
        `documents into Postgres (upsertMany, batches of 1,000; ${load.documents} documents; ${load.mentions} chunk mentions linked)`,
        load.chunks,
        load.ingestSeconds,
        load.chunks / load.ingestSeconds,
      ],
      ['HNSW index build (ensureHnswIndex)', load.chunks, load.hnswSeconds, load.chunks / load.hnswSeconds],
      [
        'entities + relationships into Neo4j (store upserts, batches of 2,000)',
        load.entities + load.relationships,
        neo.graphSeconds,
        (load.entities + load.relationships) / neo.graphSeconds,
      ],
      [
        'mention mirror into Neo4j (entity→document links, applyMentionOps)',
        neo.mirrored,
        neo.mirrorSeconds,
        neo.mirrored / Math.max(neo.mirrorSeconds, 1e-9),
      ],
    ],
    notes: [
      note,
      `Corpus: SciFact in ${load.copies} copies (the last one partial) until ${load.chunks.toLocaleString('en')} chunks; copy 0 as is, later copies with 8% of words dropped, 8% replaced by random corpus words and 10% swapped with a neighbour, each document under a new id. Hashing embedder, 1024-d.`,
      `Graph: the ${load.entities.toLocaleString('en')} most frequent distinctive SciFact terms (corpusEntityNames) as entities, linked by the preferential-attachment structure of the graph-store table (${load.relationships.toLocaleString('en')} relationships); their names are recorded before the documents are written, so every document write links the names its chunks contain; the graph and the mentions go to Neo4j after the load.`,
      'The HNSW index is dropped for the load and built once afterwards (vectorIndex.ts dropHnswIndex / ensureHnswIndex, as reindex does): with the index in place each insert cost ≈6–10 ms with pgvector 0.6 (about half that with 0.8).',
      `Everything this run wrote to Neo4j carries a per-run id prefix and is deleted at the end by that prefix (the database is shared, so it is never wiped); ${cleanup.leftBehind} nodes were left behind.${cleanup.rewrites > 0 ? ` Other work wiped this run's graph ${cleanup.rewrites} times; it was written again each time (the Neo4j rows are of the first write).` : ''}`,
    ],
  };
}

function queryTable(m: Measured, load: LoadFigures, queryCount: number, note: string): Table {
  const ratio50 = percentile(m.ratio, 50);
  const recall = mean(m.recall);
  return {
    title: `Latency at scale: enrichContext and HNSW on ${load.chunks.toLocaleString('en')} chunks, ${load.entities.toLocaleString('en')} entities (${queryCount} SciFact queries)`,
    headers: ['measure', 'p50', 'p95', 'mean', 'target', 'result'],
    rows: [
      ['enrichContext total ms', percentile(m.total, 50), percentile(m.total, 95), mean(m.total), '–', '–'],
      [
        'retrieval lane ms (retrievalMs)',
        percentile(m.retrieval, 50),
        percentile(m.retrieval, 95),
        mean(m.retrieval),
        '–',
        '–',
      ],
      ['graph lane ms (graphMs)', percentile(m.graph, 50), percentile(m.graph, 95), mean(m.graph), '–', '–'],
      [
        'total ÷ (retrieval + graph)',
        ratio50,
        percentile(m.ratio, 95),
        mean(m.ratio),
        `p50 ≤ ${OVERLAP_TARGET}`,
        verdict(ratio50 <= OVERLAP_TARGET, OVERLAP_TARGET - ratio50),
      ],
      ['entities in the answer', percentile(m.entities, 50), percentile(m.entities, 95), mean(m.entities), '–', '–'],
      [
        `VECTOR search ms (HNSW, topK ${TOP_K})`,
        percentile(m.vector, 50),
        percentile(m.vector, 95),
        mean(m.vector),
        '–',
        '–',
      ],
      [
        `KEYWORD search ms (BM25, topK ${TOP_K})`,
        percentile(m.keyword, 50),
        percentile(m.keyword, 95),
        mean(m.keyword),
        '–',
        '–',
      ],
      [
        `exact nearest ${TOP_K} ms (full scan)`,
        percentile(m.exact, 50),
        percentile(m.exact, 95),
        mean(m.exact),
        '–',
        '–',
      ],
      [
        `HNSW recall@${TOP_K} vs exact (VECTOR search, ef_search ${m.efSearch})`,
        percentile(m.recall, 50),
        percentile(m.recall, 5),
        recall,
        `mean ≥ ${RECALL_TARGET}`,
        verdict(recall >= RECALL_TARGET, recall - RECALL_TARGET),
      ],
      ...WIDER_EF.map((ef, j) => {
        const r = m.widerRecall[j] ?? [];
        return [
          `HNSW recall@${TOP_K} at ef_search ${ef} (diagnostic)`,
          percentile(r, 50),
          percentile(r, 5),
          mean(r),
          '–',
          '–',
        ];
      }),
    ],
    notes: [
      note,
      `enrichContext as the API calls it: topK ${TOP_K}, default search mode (HYBRID LINEAR), maxEntities ${m.maxEntities}, graphDepth 1, maxChars ${m.maxChars.toLocaleString('en')} (configuration defaults); sequential, after ${WARMUP} warm-up queries. Lane times are the enricher's own timings: graphMs includes the second step (entities the top chunks mention), which runs after retrieval.`,
      'total ÷ (retrieval + graph) is below 1 when the lanes overlap: 0.5 would be perfect overlap of equal lanes, 1 none at all. Target p50 ≤ 0.75.',
      `HNSW recall@${TOP_K}: VECTOR search (the vector lane, HNSW with CAIRN_HNSW_EF_SEARCH ${m.efSearch}, the default) against the exact ${TOP_K} nearest chunks, computed by a full scan ordered by the full-precision distance on a separate read-only connection (the index is built on the half-precision cast); a hit as near as the exact ${TOP_K}th counts (ties). The diagnostic rows run the same query through HNSW with a wider ef_search on that connection. For recall the p95 column holds the 5th percentile. EXPLAIN shows the HNSW index ${m.hnswUsed ? 'is' : 'is NOT'} used by the vector lane's query.`,
      `Lane warnings (timeouts, failures): ${m.warnings}${m.warningTexts.size > 0 ? ` (${[...m.warningTexts].slice(0, 3).join('; ')})` : ''}. Neo4j is shared with other work that may wipe it: the graph was checked before and after every ${GUARDED_BATCH} queries, and ${m.redone} batches during which it vanished were measured again.`,
    ],
  };
}

/**
 * Latency at scale on the real servers: loads 100,000 chunks and 10,000 entities into a scratch Postgres database and
 * Neo4j, measures enrichContext and HNSW recall over 300 SciFact queries, and removes everything it wrote.
 */
export async function benchLatency(options: {
  pgServerUrl: string;
  neo4j: Neo4jTarget;
  sizes?: LatencySizes;
}): Promise<Table[]> {
  const sizes = options.sizes ?? DEFAULT_SIZES;
  const started = performance.now();
  const data = loadSciFact();
  const queries = data.queries.slice(0, sizes.queries).map((q) => q.text);
  const prefix = `latbench${randomBytes(4).toString('hex')}_`;
  const db = await createScratchDatabase(options.pgServerUrl);
  const store = new Neo4jGraphStore(options.neo4j);
  try {
    const config = loadConfig({ CAIRN_DATA_DIR: 'memory://', CAIRN_DATABASE_URL: db.url, CAIRN_RAG_MAX_TOP_K: '100' });
    const services = await createServices(config, silentLogger(), {
      embedder: new HashingEmbeddingProvider({ dimensions: 1024 }),
      graphStore: store,
      importQueue: false,
    });
    try {
      log(`loading (id prefix ${prefix}) …`);
      const { figures: load, graph } = await loadAtScale(services, data, sizes, prefix, log);
      const keeper = graphKeeper(services, graph, options.neo4j, prefix, log);
      const neo = await keeper.ensure();
      if (!neo) throw new Error("this run's graph was in Neo4j before it was written");
      log(
        `  Neo4j: graph in ${neo.graphSeconds.toFixed(1)} s, ${neo.mirrored} mention links in ${neo.mirrorSeconds.toFixed(1)} s`,
      );
      log(`measuring ${queries.length} queries …`);
      const measured = await measure(services, db.url, queries, keeper);
      log('deleting what this run wrote to Neo4j …');
      await deleteNeo4jNodes(options.neo4j, prefix);
      const left = await countNeo4jNodes(options.neo4j, prefix);
      log(`done in ${((performance.now() - started) / 60_000).toFixed(1)} min`);
      return tables(load, neo, measured, queries.length, {
        rewrites: keeper.writes() - 1,
        leftBehind: left.entities + left.documents,
      });
    } finally {
      await services.close();
    }
  } finally {
    await deleteNeo4jNodes(options.neo4j, prefix).catch((err: unknown) =>
      log(`could not clean Neo4j: ${(err as Error).message}`),
    );
    await store.close();
    await db.drop();
  }
}
