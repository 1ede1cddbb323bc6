// `npm run bench [-- --only=pglite|postgres|latency|graph|musique|importers]` (several: --only=pglite,postgres):
// SciFact ingest and per-mode search on PGlite and the real Postgres server, latency at scale, graph stores, MuSiQue, importers.
import { createScratchDatabase } from '../test/helpers/databases.js';
import { loadSciFact } from './datasets.js';
import { benchIngestSearch, type IngestSearchResult } from './ingestSearch.js';
import { benchGraph } from './graph.js';
import { benchMusique } from './musique.js';
import { benchImporters } from './importers.js';
import { benchLatency } from './latency.js';
import { modesTable, withEarlierRows } from './modes.js';
import { machineLine, publish, type Table } from './report.js';

const onlyArg = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
const parts = onlyArg ? new Set(onlyArg.split(',')) : undefined;
/** Whether this run includes a part: every part when --only is absent. */
const runs = (part: string) => !parts || parts.has(part);
const serverUrl = process.env.CAIRN_BENCH_DATABASE_URL ?? process.env.CAIRN_TEST_DATABASE_URL;
const neo4jUri = process.env.CAIRN_BENCH_NEO4J_URI ?? process.env.CAIRN_TEST_NEO4J_URI;
const neo4j = neo4jUri
  ? { uri: neo4jUri, user: process.env.CAIRN_TEST_NEO4J_USER ?? 'neo4j', password: process.env.CAIRN_TEST_NEO4J_PASSWORD ?? 'cairn-test-password' }
  : undefined;

const PGLITE = 'PGlite (embedded)';
const SERVER = 'Postgres 16 + pgvector (server)';

console.log(`Cairn benchmarks on ${machineLine()}`);
const sciFact = runs('pglite') || runs('postgres');
const data = sciFact ? loadSciFact() : { corpus: [], queries: [], qrels: new Map() };
const results: IngestSearchResult[] = [];
if (runs('pglite')) {
  console.log('SciFact on PGlite …');
  results.push(await benchIngestSearch(PGLITE, undefined, data));
}
if (runs('postgres')) {
  if (!serverUrl) {
    console.log('Skipping the real server: set CAIRN_BENCH_DATABASE_URL (or run `bash scripts/postgres-server.sh start`).');
  } else {
    console.log('SciFact on the Postgres server …');
    const db = await createScratchDatabase(serverUrl);
    try {
      results.push(await benchIngestSearch(SERVER, db.url, data));
    } finally {
      await db.drop();
    }
  }
}

const tables: Table[] = [];
if (sciFact) {
  // A partial run (--only=pglite, then --only=postgres) keeps the other store's rows from RESULTS.md.
  const storeOrder = [PGLITE, SERVER];
  tables.push(
    withEarlierRows(
      {
        title: `Ingest and search: SciFact (${data.corpus.length} documents, ${data.queries.length} queries), hashing embedder 1024-d`,
        headers: ['store', 'chunks', 'docs/s', 'chunks/s', 'ingest s', 'embed-only s', 'ingest/embed', 'peak RSS MB', 'search p50 ms', 'search p95 ms', 'nDCG@10', 'recall@100'],
        rows: results.map((r) => [r.target, r.chunks, r.docsPerSecond, r.chunksPerSecond, r.ingestSeconds, r.embedSeconds, r.overheadRatio, r.peakRssMb, r.searchP50Ms, r.searchP95Ms, r.ndcg10, r.recall100]),
        notes: [
          `Machine: ${machineLine()}.`,
          'ingest/embed = total ingest wall time ÷ time to embed the same chunk texts with no storage (target ≤ 1.25).',
          'Ingest runs as one bulk session (src/retrieval/bulkLoad.ts, what import jobs use) in batches of 250 documents: on the server it drops the HNSW index once the load is projected to pay off and rebuilds it at the end, inside the ingest time. PGlite has no HNSW index (exact search, in-memory).',
          'Targets: search p95 ≤ 20 ms on the server, ≤ 100 ms on PGlite; PGlite ingest ≤ 10 min; peak RSS ≤ 1.5 GB.',
          'Search columns: the default mode (HYBRID, LINEAR fusion) at topK 10, including embedding the query; nDCG@10 and recall@100 in the same mode at topK 100, documents ranked by their best chunk. Every mode is in the next table, on the same ingested stores.',
        ],
      },
      storeOrder,
    ),
    withEarlierRows(modesTable(data, results), storeOrder),
  );
}
if (runs('latency')) {
  if (serverUrl && neo4j) {
    console.log('Latency at scale: 100,000 chunks and 10,000 entities on the Postgres server and Neo4j …');
    tables.push(...(await benchLatency({ pgServerUrl: serverUrl, neo4j })));
  } else {
    console.log('Skipping latency at scale: it needs both servers (CAIRN_BENCH_DATABASE_URL and CAIRN_BENCH_NEO4J_URI, or the CAIRN_TEST_ ones).');
  }
}
if (runs('graph')) {
  console.log('Knowledge graph stores …');
  if (!neo4j) console.log('Skipping Neo4j: set CAIRN_BENCH_NEO4J_URI (or run `bash scripts/neo4j-server.sh start`).');
  tables.push(...(await benchGraph({ ...(serverUrl ? { pgServerUrl: serverUrl } : {}), ...(neo4j ? { neo4j } : {}) })));
}
if (runs('musique')) {
  console.log('MuSiQue: search against enrichContext …');
  tables.push(await benchMusique());
}
if (runs('importers')) {
  console.log('Importers …');
  tables.push(await benchImporters());
}
publish(tables);
