// `npm run bench [-- --only=pglite|postgres|local|latency|spaces|graph|musique|api|names|names-cache|importers|
// extract-musique|extract-scifact|extract-vite|context]` (several: --only=pglite,postgres):
// SciFact ingest and per-mode search on PGlite and the real Postgres server (hashing embedder; `local`: a real model
// from CAIRN_BENCH_LOCAL_MODEL on both), latency at scale (also split across spaces), graph stores, MuSiQue, API
// questions (hashing embedder, and the local model when CAIRN_BENCH_LOCAL_MODEL is set), importers.
import { loadSciFact } from './datasets.js';
import { benchApiQuestions } from './apiQuestions.js';
import { benchContext } from './context.js';
import { benchGraph } from './graph.js';
import { benchMusique } from './musique.js';
import { benchSciFactEnrich } from './sciFactEnrich.js';
import { benchImporters } from './importers.js';
import { benchMusiqueExtracted } from './extraction/musique.js';
import { benchSciFactExtracted } from './extraction/sciFact.js';
import { benchViteExtracted } from './extraction/vite.js';
import { benchLatency } from './latency.js';
import { benchSpacesLatency } from './spacesLatency.js';
import { benchNameScale, measureNameCache } from './nameScale.js';
import { generatedEntities } from './nameScaleData.js';
import { machineLine, publish, type Table } from './report.js';
import { benchSciFact, HASHING_EMBEDDER, localModelEmbedder } from './sciFact.js';
import { benchDatabaseUrl, benchNeo4j } from './servers.js';

const onlyArg = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
const parts = onlyArg ? new Set(onlyArg.split(',')) : undefined;
/** Whether this run includes a part: every part when --only is absent. */
const runs = (part: string) => !parts || parts.has(part);
const serverUrl = benchDatabaseUrl();
const neo4j = benchNeo4j();

console.log(`Cairn benchmarks on ${machineLine()}`);
const tables: Table[] = [];
const sciFact =
  runs('pglite') || runs('postgres') || runs('local') || runs('scifact-enrich') || runs('extract-scifact');
const data = sciFact ? loadSciFact() : { corpus: [], queries: [], qrels: new Map() };
if (runs('postgres') && !serverUrl) {
  console.log(
    'Skipping the real server: set CAIRN_BENCH_DATABASE_URL (or run `bash scripts/postgres-server.sh start`).',
  );
}
if (runs('pglite') || runs('postgres')) {
  tables.push(
    ...(await benchSciFact(data, HASHING_EMBEDDER, {
      pglite: runs('pglite'),
      serverUrl: runs('postgres') ? serverUrl : undefined,
    })),
  );
}
if (runs('local')) {
  const folder = process.env.CAIRN_BENCH_LOCAL_MODEL;
  if (folder) tables.push(...(await benchSciFact(data, localModelEmbedder(folder), { pglite: true, serverUrl })));
  else
    console.log(
      'Skipping SciFact with a local model: set CAIRN_BENCH_LOCAL_MODEL to a model folder (`bash scripts/local-model.sh` makes one).',
    );
}
if (runs('scifact-enrich')) {
  console.log('SciFact through enrichContext against search …');
  tables.push(...(await benchSciFactEnrich(data)));
}
if (runs('latency')) {
  if (serverUrl && neo4j) {
    console.log('Latency at scale: 100,000 chunks and 10,000 entities on the Postgres server and Neo4j …');
    tables.push(...(await benchLatency({ pgServerUrl: serverUrl, neo4j })));
  } else {
    console.log(
      'Skipping latency at scale: it needs both servers (CAIRN_BENCH_DATABASE_URL and CAIRN_BENCH_NEO4J_URI, or the CAIRN_TEST_ ones).',
    );
  }
}
if (runs('spaces')) {
  if (serverUrl) {
    console.log('Spaces: enrichContext in one of 10 spaces against a single-space install, 100,000 chunks …');
    tables.push(...(await benchSpacesLatency({ pgServerUrl: serverUrl })));
  } else {
    console.log('Skipping spaces: it needs the Postgres server (CAIRN_BENCH_DATABASE_URL or CAIRN_TEST_DATABASE_URL).');
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
if (runs('api')) {
  const folder = process.env.CAIRN_BENCH_LOCAL_MODEL;
  if (!folder)
    console.log(
      'API questions with the hashing embedder only: set CAIRN_BENCH_LOCAL_MODEL to a model folder for the local model too.',
    );
  tables.push(
    ...(await benchApiQuestions({ embedders: [HASHING_EMBEDDER, ...(folder ? [localModelEmbedder(folder)] : [])] })),
  );
}
if (runs('extract-musique')) {
  console.log('MuSiQue with the graph extracted from its paragraphs …');
  tables.push((await benchMusiqueExtracted()).table);
}
if (runs('extract-scifact')) {
  console.log('SciFact with the graph extracted from its abstracts …');
  tables.push(...(await benchSciFactExtracted(data)));
}
if (runs('extract-vite')) {
  console.log("Vite's docs imported, extracted and asked …");
  tables.push(...(await benchViteExtracted()));
}
if (runs('context')) {
  console.log('The context an agent receives: MuSiQue-100 and the Vite docs questions …');
  // CAIRN_BENCH_CONTEXT_SETS=vite (or musique) runs one question set only; CAIRN_BENCH_EXPAND_NEIGHBORS sets the
  // expansion measured as "on" (default: the configured default).
  tables.push(
    ...(await benchContext(process.env.CAIRN_BENCH_CONTEXT_SETS?.split(','), process.env.CAIRN_BENCH_EXPAND_NEIGHBORS)),
  );
}
if (runs('names')) {
  console.log('Entity names at scale: write latency at 100,000 entities against 1,000, and the name cache …');
  tables.push(...(await benchNameScale({ serverUrl })));
} else if (runs('names-cache')) {
  console.log('Entity names at scale: the name cache …');
  tables.push(measureNameCache(generatedEntities(100_000)));
}
if (runs('importers')) {
  console.log('Importers …');
  tables.push(await benchImporters());
}
publish(tables);
