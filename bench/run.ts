// `npm run bench [-- --only=pglite|postgres|graph|musique|importers]`: ingest + search on SciFact, on PGlite and on the real Postgres server.
import { createScratchDatabase } from '../test/helpers/databases.js';
import { loadSciFact } from './datasets.js';
import { benchIngestSearch, type IngestSearchResult } from './ingestSearch.js';
import { benchGraph } from './graph.js';
import { benchMusique } from './musique.js';
import { benchImporters } from './importers.js';
import { machineLine, publish, type Table } from './report.js';

const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
const serverUrl = process.env.CAIRN_BENCH_DATABASE_URL ?? process.env.CAIRN_TEST_DATABASE_URL;

console.log(`Cairn benchmarks on ${machineLine()}`);
const sciFact = !only || only === 'pglite' || only === 'postgres';
const data = sciFact ? loadSciFact() : { corpus: [], queries: [], qrels: new Map() };
const results: IngestSearchResult[] = [];
if (!only || only === 'pglite') {
  console.log('SciFact on PGlite …');
  results.push(await benchIngestSearch('PGlite (embedded)', undefined, data));
}
if (!only || only === 'postgres') {
  if (!serverUrl) {
    console.log('Skipping the real server: set CAIRN_BENCH_DATABASE_URL (or run `bash scripts/postgres-server.sh start`).');
  } else {
    console.log('SciFact on the Postgres server …');
    const db = await createScratchDatabase(serverUrl);
    try {
      results.push(await benchIngestSearch('Postgres 16 + pgvector (server)', db.url, data));
    } finally {
      await db.drop();
    }
  }
}

const tables: Table[] = [];
if (sciFact) {
  tables.push({
    title: `Ingest and search: SciFact (${data.corpus.length} documents, ${data.queries.length} queries), hashing embedder 1024-d`,
    headers: ['store', 'chunks', 'docs/s', 'chunks/s', 'ingest s', 'embed-only s', 'ingest/embed', 'peak RSS MB', 'search p50 ms', 'search p95 ms', 'nDCG@10', 'recall@100'],
    rows: results.map((r) => [r.target, r.chunks, r.docsPerSecond, r.chunksPerSecond, r.ingestSeconds, r.embedSeconds, r.overheadRatio, r.peakRssMb, r.searchP50Ms, r.searchP95Ms, r.ndcg10, r.recall100]),
    notes: [
      `Machine: ${machineLine()}.`,
      'ingest/embed = total ingest wall time ÷ time to embed the same chunk texts with no storage (target ≤ 1.25).',
      'Targets: search p95 ≤ 20 ms on the server, ≤ 100 ms on PGlite; PGlite ingest ≤ 10 min; peak RSS ≤ 1.5 GB.',
      'Search latency includes embedding the query. nDCG@10 ranks documents by their best chunk.',
    ],
  });
}
if (!only || only === 'graph') {
  console.log('Knowledge graph stores …');
  const neo4jUri = process.env.CAIRN_BENCH_NEO4J_URI ?? process.env.CAIRN_TEST_NEO4J_URI;
  const neo4j = neo4jUri
    ? { uri: neo4jUri, user: process.env.CAIRN_TEST_NEO4J_USER ?? 'neo4j', password: process.env.CAIRN_TEST_NEO4J_PASSWORD ?? 'cairn-test-password' }
    : undefined;
  if (!neo4j) console.log('Skipping Neo4j: set CAIRN_BENCH_NEO4J_URI (or run `bash scripts/neo4j-server.sh start`).');
  tables.push(...(await benchGraph({ ...(serverUrl ? { pgServerUrl: serverUrl } : {}), ...(neo4j ? { neo4j } : {}) })));
}
if (!only || only === 'musique') {
  console.log('MuSiQue: search against enrichContext …');
  tables.push(await benchMusique());
}
if (!only || only === 'importers') {
  console.log('Importers …');
  tables.push(await benchImporters());
}
publish(tables);
