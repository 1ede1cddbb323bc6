// `npm run bench:load [-- --duration=60 --clients=32 --docs=3000 --import=1000 --instances=1 --no-publish]`: a Cairn server on the
// real Postgres and Neo4j servers (a child process, so its RSS is sampled alone), seeded with SciFact and its terms as
// entities; `clients` connections call enrichContext with varied queries for `duration` seconds while 1,000 more
// documents are imported through upsertDocuments. Prints req/s, latency percentiles, errors, RSS and the import time.
// With `--instances N` (N > 1) it starts N servers on the same stores instead and compares one alone with all N behind
// a round-robin balancer (instances.ts).
import os from 'node:os';
import { parseArgs } from 'node:util';
import neo4jDriver from 'neo4j-driver';
import { createScratchDatabase } from '../../test/helpers/databases.js';
import { percentile } from '../metrics.js';
import { machineLine, publish, toMarkdown, type Table } from '../report.js';
import { asInput, loadCorpus } from './corpus.js';
import { cpuBetween, cpuSnapshot } from './cpu.js';
import { measureFloor, type FloorResult, type FloorRows } from './floor.js';
import { instancesTable } from './instances.js';
import { latencyOf, runLoad } from './load.js';
import { sampler, startServerProcess, type ServerProcess } from './server.js';
import { gql } from '../gqlClient.js';
import { requireBenchServers } from '../servers.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    clients: { type: 'string', default: '32' },
    docs: { type: 'string', default: '3000' },
    import: { type: 'string', default: '1000' },
    instances: { type: 'string', default: '1' },
    'no-publish': { type: 'boolean', default: false },
    'no-floor': { type: 'boolean', default: false },
  },
});
const DURATION = Number(args.duration);
const CLIENTS = Number(args.clients);
const INSTANCES = Number(args.instances);
if (!Number.isInteger(INSTANCES) || INSTANCES < 1) {
  console.error(`--instances must be a whole number of at least 1, not "${args.instances}"`);
  process.exit(2);
}
const IMPORT_BATCH = 50;
const BASELINE_S = 10;
const FLOOR_S = 10;
/** HTTP p95 under load (import running) at most this multiple of the in-process floor's p95 at the same concurrency. */
const TARGET_P95_OVER_FLOOR = 1.25;
/** The import's throughput during the load at least this share of its throughput alone. */
const TARGET_IMPORT_SHARE = 0.5;
const TARGET_RSS_GROWTH = 0.1;

const { databaseUrl, neo4j } = requireBenchServers('bench:load');

/** CPU ms per request of the server, Postgres and Neo4j, as "a / b / c". */
function perRequest(cpu: { server: number; postgres: number; neo4j: number }, requests: number): string {
  return [cpu.server, cpu.postgres, cpu.neo4j].map((v) => (v / Math.max(1, requests)).toFixed(1)).join(' / ');
}

/** The floor table: what the stores alone allow at the bench's concurrency (see floor.ts). */
function floorTable(floor: FloorRows): Table {
  const row = (what: string, r: FloorResult) => [
    what,
    Number((r.calls / r.seconds).toFixed(1)),
    `${r.p50.toFixed(1)} / ${r.p95.toFixed(1)}`,
    perRequest(r.cpu, r.calls),
    `${(r.cpu.machineBusy * 100).toFixed(0)}%`,
  ];
  return {
    title: `Load floor: the server's services called in-process (${CLIENTS} concurrent calls, ${FLOOR_S} s each, no HTTP, GraphQL or import)`,
    headers: [
      'work',
      'calls/s',
      'latency p50 / p95 ms',
      'CPU ms per call: bench (as server) / Postgres / Neo4j',
      'machine busy',
    ],
    rows: [
      row('keyword lane alone (BM25)', floor.keyword),
      row('vector lane alone (HNSW)', floor.vector),
      row('documents lane (both, fused: search HYBRID)', floor.hybrid),
      row('whole enricher (documents and graph lanes, mentions, graph reads)', floor.enrich),
    ],
    notes: [
      `The bench process builds the same services as \`cairn serve\` (createServices, same settings and stores) and calls SearchService.search and ContextEnricher.enrich from ${CLIENTS} concurrent loops, with the load's queries, while the server under test idles. No server in front of these stores can answer faster at this concurrency on this machine: the gap to the load table is HTTP, GraphQL and the import.`,
      `The enricher's calls recorded ${floor.gapsRecorded} knowledge gaps (${((floor.gapsRecorded / Math.max(1, floor.enrich.calls)) * 100).toFixed(1)}% of them; each is one INSERT).`,
    ],
  };
}

/** Imports `docs` in batches through upsertDocuments, as an importer would send them; returns seconds and failures. */
async function importBatches(
  url: string,
  docs: CorpusDocs,
  prefix: string,
): Promise<{ seconds: number; failed: number }> {
  const start = Date.now();
  let failed = 0;
  for (let i = 0; i < docs.length; i += IMPORT_BATCH) {
    await gql(url, UPSERT, { input: docs.slice(i, i + IMPORT_BATCH).map((d) => asInput(d, 'import', prefix)) }).catch(
      (err: unknown) => {
        failed++;
        console.error(String(err));
      },
    );
  }
  return { seconds: (Date.now() - start) / 1000, failed };
}

const UPSERT = `mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { chunkCount } }`;
const ENRICH = `query($q: String!, $k: Int, $d: Int) { enrichContext(input: { query: $q, topK: $k, graphDepth: $d }) {
  context citations { number documentId } entities { entity { id name } why } chunks { score } warnings } }`;

console.log(
  `Cairn load bench on ${machineLine()}: ${CLIENTS} clients × ${DURATION} s of enrichContext while ${args.import} documents are imported`,
);
// Neo4j Community has one database, shared with tests and other benches: this run's nodes carry a prefix, and only
// they are deleted at the end (nothing is wiped).
const prefix = `load${Date.now().toString(36)}`;
const corpus = loadCorpus(Number(args.docs), Number(args.import), prefix);
type CorpusDocs = typeof corpus.imported;
// Half the import runs alone before the load (its throughput is the reference), the other half during the load.
const importAloneDocs = corpus.imported.slice(0, Math.floor(corpus.imported.length / 2));
const importDuringDocs = corpus.imported.slice(importAloneDocs.length);
const scratch = await createScratchDatabase(databaseUrl);
const driver = neo4jDriver.driver(neo4j.uri, neo4jDriver.auth.basic(neo4j.user, neo4j.password));
const serverEnv = {
  CAIRN_DATABASE_URL: scratch.url,
  CAIRN_NEO4J_URI: neo4j.uri,
  CAIRN_NEO4J_USER: neo4j.user,
  CAIRN_NEO4J_PASSWORD: neo4j.password,
  CAIRN_EMBEDDING_PROVIDER: 'hashing',
  CAIRN_EMBEDDING_DIMENSIONS: '256',
  CAIRN_RATE_LIMIT_PER_SECOND: '0', // the bench is one client address: the per-address limit would measure itself
};
const server = await startServerProcess(
  serverEnv,
  process.env.CAIRN_BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.CAIRN_BENCH_CPU_PROF] : [],
);
// Started after the first, which has applied the migrations and recorded the embedder.
const others: ServerProcess[] = [];
const tables: Table[] = [];
try {
  for (let i = 1; i < INSTANCES; i++) others.push(await startServerProcess(serverEnv));
  const t0 = performance.now();
  await gql(server.url, `mutation($input: UpsertGraphInput!) { upsertGraph(input: $input) { entities { id } } }`, {
    input: { entities: corpus.entities, relationships: corpus.relationships },
  });
  for (let i = 0; i < corpus.seed.length; i += 250)
    await gql(server.url, UPSERT, { input: corpus.seed.slice(i, i + 250).map((d) => asInput(d, 'seed', prefix)) });
  for (let backlog = 1; backlog > 0;) {
    backlog = (await gql<{ graphStats: { outboxBacklog: number } }>(server.url, `{ graphStats { outboxBacklog } }`))
      .graphStats.outboxBacklog;
    if (backlog > 0) await new Promise((r) => setTimeout(r, 500));
  }
  const seedSeconds = (performance.now() - t0) / 1000;
  console.log(
    `seeded ${corpus.seed.length} documents, ${corpus.entities.length} entities, ${corpus.relationships.length} relationships in ${seedSeconds.toFixed(1)} s (mentions mirrored to Neo4j)`,
  );

  let n = 0;
  const nextBody = () => {
    n++;
    return JSON.stringify({
      query: ENRICH,
      variables: { q: corpus.queries[n % corpus.queries.length], k: [3, 5, 10][n % 3], d: 1 + (n % 2) },
    });
  };
  const probe = await gql<{ enrichContext: { chunks: unknown[]; entities: unknown[] } }>(
    server.url,
    ENRICH,
    JSON.parse(nextBody()).variables,
  );
  if (probe.enrichContext.chunks.length === 0)
    throw new Error('enrichContext returned no chunks: the seed did not work');

  if (INSTANCES > 1) {
    // The comparison replaces the single-server tables (load under import, floor) rather than adding to them.
    tables.push(await instancesTable([server, ...others], CLIENTS, DURATION, nextBody));
  } else {
    const importAlone = await importBatches(server.url, importAloneDocs, prefix);
    // Service time without contention: one connection, nothing else running (the figures below are against it).
    const cpuAlone = cpuSnapshot(server.child.pid as number);
    const alone = await runLoad(server.url, 1, BASELINE_S, nextBody);
    const cpuAloneEnd = cpuBetween(cpuAlone, cpuSnapshot(server.child.pid as number));
    const baseline = latencyOf(alone.samples);
    // The floor: the server's own services in this process, no HTTP, GraphQL or import (see floor.ts).
    const floor = args['no-floor']
      ? undefined
      : await measureFloor(serverEnv, CLIENTS, FLOOR_S, () => {
          const v = JSON.parse(nextBody()).variables as { q: string; k: number; d: number };
          return { query: v.q, topK: v.k, graphDepth: v.d };
        });
    const loadAvgStart = os.loadavg()[0] as number;
    const rssStart = server.rssMb();
    const rss = sampler(() => server.rssMb());
    const cpuStart = cpuSnapshot(server.child.pid as number);
    const loadStart = Date.now();
    // CPU and RSS are read the moment the load ends, even if the import goes on.
    const load = runLoad(server.url, CLIENTS, DURATION, nextBody).then((r) => {
      rss.stop();
      return { r, cpuEnd: cpuSnapshot(server.child.pid as number), rssEnd: server.rssMb() };
    });
    // The import starts once the load is steady, and runs next to it in batches, as an importer would send them.
    await new Promise((r) => setTimeout(r, 2_000));
    const importStart = Date.now();
    const importDuring = await importBatches(server.url, importDuringDocs, prefix);
    const importEnd = Date.now();
    const { r: result, cpuEnd, rssEnd } = await load;
    const cpu = cpuBetween(cpuStart, cpuEnd);
    // A leak shows as growth under steady load: compare the second quarter of the run with the last (medians, since
    // single samples ride the garbage collector's sawtooth; the first quarter is the ramp from idle).
    const quarter = (DURATION * 1000) / 4;
    const level = (q: number) =>
      percentile(
        rss.samples
          .filter(([at]) => at >= q * quarter && at < (q + 1) * quarter + (q === 3 ? 5_000 : 0))
          .map(([, v]) => v),
        50,
      );
    const rssEarly = level(1);
    const rssLate = level(3);
    const rssPeak = Math.max(...rss.samples.map(([, v]) => v), rssEnd);
    const all = latencyOf(result.samples);
    const during = latencyOf(result.samples, importStart, importEnd);
    const errors = result.non2xx + result.graphqlErrors + result.transportErrors;
    const growth = (rssLate - rssEarly) / rssEarly;
    const importErrors = importAlone.failed + importDuring.failed;
    const rate = (docs: CorpusDocs, run: { seconds: number }) => docs.length / Math.max(run.seconds, 0.001);
    const importShare = rate(importDuringDocs, importDuring) / rate(importAloneDocs, importAlone);
    const overFloor = floor ? all.p95 / floor.enrich.p95 : undefined;
    const importedCount =
      (await gql<{ knowledgeStats: { documentCount: number } }>(server.url, `{ knowledgeStats { documentCount } }`))
        .knowledgeStats.documentCount - corpus.seed.length;
    if (result.errorExamples.length) console.log('error examples:', result.errorExamples);
    const ok = (pass: boolean) => (pass ? 'yes' : 'NO');
    const mb = (v: number) => Math.round(v);
    const ms = (l: { p50: number; p95: number; p99: number }) =>
      [l.p50, l.p95, l.p99].map((v) => v.toFixed(1)).join(' / ');
    const outlasted = importEnd > loadStart + result.seconds * 1000;
    tables.push({
      title: `Load: enrichContext under import (${CLIENTS} clients, ${DURATION} s, Postgres 16 + Neo4j 5)`,
      headers: ['measure', 'value', 'target', 'met'],
      rows: [
        ['requests/s', Number((result.requests / result.seconds).toFixed(1)), '–', '–'],
        [`latency p50 / p95 / p99 ms, 1 client alone (${BASELINE_S} s, before the run)`, ms(baseline), '–', '–'],
        ['latency p50 / p95 / p99 ms (whole run)', ms(all), '–', '–'],
        ['latency p50 / p95 / p99 ms (while importing)', ms(during), '–', '–'],
        [
          `HTTP p95 (whole run) ÷ the in-process floor's p95 (whole enricher, ${CLIENTS} concurrent calls)`,
          overFloor === undefined
            ? 'no floor (--no-floor)'
            : `${overFloor.toFixed(2)} (${all.p95.toFixed(1)} ÷ ${floor?.enrich.p95.toFixed(1)} ms)`,
          `≤ ${TARGET_P95_OVER_FLOOR}`,
          overFloor === undefined ? '–' : ok(overFloor <= TARGET_P95_OVER_FLOOR),
        ],
        [
          'CPU ms per request: server / Postgres / Neo4j, 1 client alone',
          perRequest(cpuAloneEnd, alone.requests),
          '–',
          '–',
        ],
        ['CPU ms per request: server / Postgres / Neo4j (import included)', perRequest(cpu, result.requests), '–', '–'],
        [
          'CPU ms per request of the bench itself (autocannon and the importer)',
          (cpu.generator / Math.max(1, result.requests)).toFixed(1),
          '–',
          '–',
        ],
        [
          `machine CPU busy during the load (all processes, ${os.cpus().length} cores)`,
          `${(cpu.machineBusy * 100).toFixed(0)}%`,
          '–',
          '–',
        ],
        [
          'errors: non-2xx / GraphQL / socket+timeout',
          `${result.non2xx} / ${result.graphqlErrors} / ${result.transportErrors}`,
          '0',
          ok(errors === 0),
        ],
        [
          'server RSS MB: start / 2nd-quarter level / last-quarter level / end / peak',
          `${mb(rssStart)} / ${mb(rssEarly)} / ${mb(rssLate)} / ${mb(rssEnd)} / ${mb(rssPeak)}`,
          `last quarter ≤ +${TARGET_RSS_GROWTH * 100}% of the 2nd`,
          ok(growth <= TARGET_RSS_GROWTH),
        ],
        [
          `import alone, before the load: ${importAloneDocs.length} documents (batches of ${IMPORT_BATCH})`,
          `${importAlone.seconds.toFixed(1)} s (${rate(importAloneDocs, importAlone).toFixed(1)} docs/s)`,
          '–',
          '–',
        ],
        [
          `import during the load: ${importDuringDocs.length} documents ÷ alone, in docs/s`,
          `${importShare.toFixed(2)} (${importDuring.seconds.toFixed(1)} s, ${rate(importDuringDocs, importDuring).toFixed(1)} docs/s${outlasted ? '; outlasted the load' : ''})`,
          `≥ ${TARGET_IMPORT_SHARE}`,
          ok(importShare >= TARGET_IMPORT_SHARE),
        ],
        [
          'imported documents stored (both halves)',
          `${importedCount} of ${corpus.imported.length}, ${importErrors} failed batches`,
          `all ${corpus.imported.length}`,
          ok(importedCount === corpus.imported.length && importErrors === 0),
        ],
      ],
      notes: [
        `Machine: ${machineLine()}; the server, Postgres, Neo4j and the load generator (autocannon, same process as the bench) share it. Load average ${loadAvgStart.toFixed(1)} at the start, ${(os.loadavg()[0] as number).toFixed(1)} at the end.`,
        `Corpus: ${corpus.seed.length} SciFact abstracts, ${corpus.entities.length} term entities, ${corpus.relationships.length} RELATED_TO; hashing embedder 256-d; HNSW index; rate limit off (one client address).`,
        `Requests: enrichContext with the 300 SciFact test queries in turn, topK 3/5/10, graphDepth 1/2. Seeding took ${seedSeconds.toFixed(0)} s.`,
        `Latency is autocannon's per-request time; "while importing" covers requests that completed during the import. RSS: the server's VmRSS (/proc/<pid>/status) every 500 ms; a level is the median over a quarter of the run. CPU: /proc/<pid>/stat of the server, every local Postgres process and the Neo4j JVM over the load, ÷ requests (other users of those servers count too).`,
      ],
    });
    if (floor) tables.push(floorTable(floor));
  }
} catch (err) {
  console.error(`bench:load failed: ${String(err)}\nserver output:\n${server.logs()}`);
  process.exitCode = 1;
} finally {
  for (const other of others) await other.stop();
  await server.stop();
  await scratch.drop();
  for (let deleted = 1; deleted > 0;) {
    const res = await driver.executeQuery(
      'MATCH (n) WHERE n.id STARTS WITH $prefix WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS n',
      { prefix },
    );
    deleted = Number(res.records[0]?.get('n') ?? 0);
  }
  await driver.close();
}
if (tables.length) {
  if (args['no-publish']) console.log(`\n${tables.map(toMarkdown).join('\n\n')}\n`);
  else publish(tables);
}
