import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { HashingEmbeddingProvider } from '../src/embeddings/hashing/HashingEmbeddingProvider.js';
import type { GraphStore } from '../src/graph/GraphStore.js';
import { MentionMatcher, type EntityName } from '../src/graph/mentions/MentionMatcher.js';
import { Neo4jGraphStore } from '../src/graph/neo4j/Neo4jGraphStore.js';
import { PostgresGraphStore } from '../src/graph/postgres/PostgresGraphStore.js';
import { neighbors } from '../src/graph/traversal.js';
import { silentLogger } from '../src/logger.js';
import { dropHnswIndex } from '../src/retrieval/vectorIndex.js';
import { createServices, type Services } from '../src/services.js';
import { createScratchDatabase } from '../test/helpers/databases.js';
import { wipeNeo4j } from '../test/helpers/graphStores.js';
import { loadSciFact, sciFactDocument, type BeirDataset } from './datasets.js';
import { corpusEntityNames, sampleIndexes, syntheticGraph, type SyntheticGraph } from './graphData.js';
import { percentile } from './metrics.js';
import { machineLine, type Table } from './report.js';

const ENTITIES = 10_000;
const RELATIONSHIPS = 50_000;
const WRITE_BATCH = 2_000;
const SEEDS = 300;
const WARMUP = 20;
const LIMIT = 50;
const LINK_NAMES = 2_000;
const INGEST_BATCH = 250;

/** Figures of one graph store. */
interface StoreResult {
  store: string;
  entitiesPerSecond: number;
  relationshipsPerSecond: number;
  d1: number[];
  d2: number[];
}

type Row = (string | number)[];

const seconds = (since: number) => (performance.now() - since) / 1000;

/** Bulk upserts the synthetic graph into an empty store, then times `neighbors` at depth 1 and 2. */
async function benchStore(label: string, store: GraphStore, graph: SyntheticGraph): Promise<StoreResult> {
  let t0 = performance.now();
  for (let i = 0; i < graph.entities.length; i += WRITE_BATCH)
    await store.upsertEntities(graph.entities.slice(i, i + WRITE_BATCH));
  const entitiesPerSecond = graph.entities.length / seconds(t0);
  t0 = performance.now();
  for (let i = 0; i < graph.relationships.length; i += WRITE_BATCH)
    await store.upsertRelationships(graph.relationships.slice(i, i + WRITE_BATCH));
  const relationshipsPerSecond = graph.relationships.length / seconds(t0);

  const ids = graph.entities.map((e) => e.id);
  const seeds = sampleIndexes(ids.length, SEEDS, 7).map((i) => ids[i] as string);
  const warmup = sampleIndexes(ids.length, WARMUP, 8).map((i) => ids[i] as string);
  const timeNeighbors = async (depth: number): Promise<number[]> => {
    for (const id of warmup) await neighbors(store, [id], { depth, direction: 'BOTH', limit: LIMIT });
    const ms: number[] = [];
    for (const id of seeds) {
      const s = performance.now();
      await neighbors(store, [id], { depth, direction: 'BOTH', limit: LIMIT });
      ms.push(performance.now() - s);
    }
    return ms;
  };
  const d1 = await timeNeighbors(1);
  const d2 = await timeNeighbors(2);
  return { store: label, entitiesPerSecond, relationshipsPerSecond, d1, d2 };
}

/**
 * Ingests SciFact through DocumentService (no entity names yet, so ingest does no linking), then times (a) the
 * matcher alone over every stored chunk and (b) the backfill run by `upsertGraph` when 2,000 entities are created.
 */
async function benchLinking(
  database: string,
  services: Services,
  data: BeirDataset,
  names: readonly EntityName[],
): Promise<Row[]> {
  // Search is not measured here: skip per-row HNSW upkeep on the server (no-op on PGlite, which has no HNSW index).
  await dropHnswIndex(services.db);
  let t0 = performance.now();
  for (let i = 0; i < data.corpus.length; i += INGEST_BATCH) {
    await services.documents.upsertMany(data.corpus.slice(i, i + INGEST_BATCH).map(sciFactDocument));
  }
  const ingestSeconds = seconds(t0);
  const { rows } = await services.db.query<{ content: string }>('SELECT content FROM chunks');
  const chunks = rows.length;

  t0 = performance.now();
  const matcher = new MentionMatcher(names);
  const buildMs = performance.now() - t0;
  t0 = performance.now();
  let pairs = 0;
  let mentioning = 0;
  for (const r of rows) {
    const found = matcher.entitiesIn(r.content).size;
    pairs += found;
    if (found > 0) mentioning++;
  }
  const matchSeconds = seconds(t0);

  t0 = performance.now();
  await services.graph.upsertGraph(
    names.map((n) => ({ id: n.entityId, type: 'Term', name: n.name, aliases: n.aliases })),
    [],
  );
  const backfillSeconds = seconds(t0);
  const stored = await services.db.query<{ pairs: number; chunks: number }>(
    `SELECT count(*)::int AS pairs, count(DISTINCT chunk_id)::int AS chunks FROM mentions WHERE source = 'auto'`,
  );
  const backfilled = stored.rows[0] ?? { pairs: 0, chunks: 0 };
  return [
    [
      database,
      'ingest SciFact via DocumentService (context; no names yet)',
      chunks,
      ingestSeconds,
      chunks / ingestSeconds,
      '–',
      '–',
    ],
    [
      database,
      `matcher only: entitiesIn over every chunk (build ${buildMs.toFixed(0)} ms)`,
      chunks,
      matchSeconds,
      chunks / matchSeconds,
      pairs,
      mentioning,
    ],
    [
      database,
      `backfill: upsertGraph of ${names.length} entities (phrase query + matcher + insert)`,
      chunks,
      backfillSeconds,
      chunks / backfillSeconds,
      backfilled.pairs,
      backfilled.chunks,
    ],
  ];
}

/** The Postgres graph store on the services' database, measured directly (the services keep theirs private). */
const storeOf = (services: Services): GraphStore => new PostgresGraphStore(services.db);

/** Runs `fn` on fresh services over PGlite (temp dir) or a server database URL, with a 256-d hashing embedder. */
async function withServices<T>(databaseUrl: string | undefined, fn: (services: Services) => Promise<T>): Promise<T> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-graph-bench-'));
  const config = loadConfig({ CAIRN_DATA_DIR: dataDir, ...(databaseUrl ? { CAIRN_DATABASE_URL: databaseUrl } : {}) });
  const services = await createServices(config, silentLogger(), {
    embedder: new HashingEmbeddingProvider({ dimensions: 256 }),
  });
  try {
    return await fn(services);
  } finally {
    await services.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Graph store benchmark: bulk upsert rates and `neighbors` latency per store, plus mention-linking rates per database. */
export async function benchGraph(options: {
  pgServerUrl?: string;
  neo4j?: { uri: string; user: string; password: string };
}): Promise<Table[]> {
  const graph = syntheticGraph(ENTITIES, RELATIONSHIPS, 42);
  const data = loadSciFact();
  const names = corpusEntityNames(data.corpus, LINK_NAMES);
  const results: StoreResult[] = [];
  const linking: Row[] = [];

  console.log('Graph: Postgres store on PGlite …');
  await withServices(undefined, async (services) => {
    results.push(await benchStore('Postgres store on PGlite (embedded)', storeOf(services), graph));
    console.log('Mention linking on PGlite …');
    linking.push(...(await benchLinking('PGlite', services, data, names)));
  });
  if (options.pgServerUrl) {
    console.log('Graph: Postgres store on the server …');
    const db = await createScratchDatabase(options.pgServerUrl);
    try {
      await withServices(db.url, async (services) => {
        results.push(await benchStore('Postgres store on Postgres 16 (server)', storeOf(services), graph));
        console.log('Mention linking on the Postgres server …');
        linking.push(...(await benchLinking('Postgres 16 (server)', services, data, names)));
      });
    } finally {
      await db.drop();
    }
  }
  if (options.neo4j) {
    console.log('Graph: Neo4j store …');
    const settings = options.neo4j;
    const store = new Neo4jGraphStore(settings);
    try {
      await wipeNeo4j(settings);
      await store.init();
      results.push(await benchStore('Neo4j 5 store', store, graph));
    } finally {
      await store.close();
      await wipeNeo4j(settings).catch(() => undefined);
    }
  }

  return [storesTable(graph, results), linkingTable(data, names, linking)];
}

function storesTable(graph: SyntheticGraph, results: readonly StoreResult[]): Table {
  const degrees = graph.entities.map((e) => graph.degree.get(e.id) ?? 0);
  const seedDegrees = sampleIndexes(ENTITIES, SEEDS, 7).map((i) => degrees[i] ?? 0);
  return {
    title: `Knowledge graph stores: ${ENTITIES.toLocaleString('en')} entities, ${RELATIONSHIPS.toLocaleString('en')} relationships (preferential attachment)`,
    headers: ['store', 'entities/s', 'relationships/s', 'neighbors d1 p50 ms', 'd1 p95 ms', 'd2 p50 ms', 'd2 p95 ms'],
    rows: results.map((r) => [
      r.store,
      r.entitiesPerSecond,
      r.relationshipsPerSecond,
      percentile(r.d1, 50),
      percentile(r.d1, 95),
      percentile(r.d2, 50),
      percentile(r.d2, 95),
    ]),
    notes: [
      `Machine: ${machineLine()}.`,
      'Targets (Neo4j): neighbors depth-2 p95 ≤ 30 ms; bulk upsert ≥ 5,000 entities/s.',
      `Upserts: GraphStore.upsertEntities / upsertRelationships in batches of ${WRITE_BATCH.toLocaleString('en')} into an empty store, sequentially.`,
      `Graph: deterministic (seed 42); each entity links to ${RELATIONSHIPS / ENTITIES} earlier ones picked ∝ degree (80%) or uniformly; 6 entity types, 5 relationship types, random direction, no self loops or duplicate pairs. ` +
        `Degree median ${percentile(degrees, 50)}, p99 ${percentile(degrees, 99)}, max ${Math.max(...degrees)}.`,
      `neighbors(): traversal.ts as the API calls it, one seed per call, direction BOTH, limit ${LIMIT}, over ${SEEDS} seeds drawn uniformly (seed 7; their degree median ${percentile(seedDegrees, 50)}, max ${Math.max(...seedDegrees)}) after ${WARMUP} warm-up calls per depth. Times include the final getEntities.`,
    ],
  };
}

function linkingTable(data: BeirDataset, names: readonly EntityName[], linking: Row[]): Table {
  return {
    title: `Mention linking: SciFact (${data.corpus.length} documents), ${names.length.toLocaleString('en')} entity names`,
    headers: [
      'database',
      'measure',
      'chunks',
      'seconds',
      'chunks/s',
      'mentions (entity, chunk)',
      'chunks with a mention',
    ],
    rows: linking,
    notes: [
      'Mentions live in Postgres whichever graph store is used (Neo4j only receives a mirror through the outbox), so linking is measured once per database with the Postgres graph store.',
      'Names: distinctive terms of the abstracts (acronyms, gene names, proper nouns): tokens with an upper-case letter, not sentence-initial, whose lower-case form is rarer than the term; ranked by document frequency (see corpusEntityNames in bench/graphData.ts).',
      'Ingest uses a 256-d hashing embedder and no HNSW index (search is not measured here). "matcher only" is the Aho-Corasick pass that document writes run per chunk; "backfill" is the whole upsertGraph call: entity upsert, the Postgres full-text candidate query for all 2,000 phrases, matcher verification and mention inserts; its chunks/s counts every chunk of the corpus as scanned.',
      'Both measures should find the same (entity, chunk) pairs; a lower backfill count means the phrase query missed candidates.',
    ],
  };
}
