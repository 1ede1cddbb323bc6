// `npm run bench:replicas [-- --seconds=20 --clients=8 --docs=2000 --no-publish]`: what a streaming read replica
// takes off the primary. One Cairn server (a child process, dist/) on a scratch database of the real Postgres server,
// seeded with SciFact abstracts and their terms as entities (Postgres graph store, so every read is Postgres work);
// `clients` connections call enrichContext for `seconds`, first with the primary alone, then with
// CAIRN_DATABASE_REPLICA_URLS naming the standby of `scripts/postgres-server.sh replica-start`. CPU is read per
// server (each postmaster and its backends), so the primary's CPU per call is measured apart from the replica's.
// On a machine where the replica cannot have cores of its own, that CPU per call is the figure that scales.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createScratchDatabase } from '../test/helpers/databases.js';
import { machineLine, publish, type Table } from './report.js';
import { asInput, loadCorpus } from './load/corpus.js';
import { latencyOf, runLoad } from './load/load.js';
import { startServerProcess, type ServerProcess } from './load/server.js';
import { gql } from './gqlClient.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    clients: { type: 'string', default: '8' },
    docs: { type: 'string', default: '2000' },
    'no-publish': { type: 'boolean', default: false },
  },
});
const SECONDS = Number(args.seconds);
const CLIENTS = Number(args.clients);
const primaryUrl = process.env.CAIRN_TEST_DATABASE_URL;
const replicaUrl = process.env.CAIRN_TEST_DATABASE_REPLICA_URL;
if (!primaryUrl || !replicaUrl) {
  console.error(
    'bench:replicas needs CAIRN_TEST_DATABASE_URL and CAIRN_TEST_DATABASE_REPLICA_URL (scripts/postgres-server.sh start, replica-start)',
  );
  process.exit(2);
}

const TICKS = 100;
function statOf(pid: number): { cpuMs: number; ppid: number } | undefined {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return { cpuMs: ((Number(f[11]) + Number(f[12])) * 1000) / TICKS, ppid: Number(f[1]) };
  } catch {
    return undefined;
  }
}

/** CPU ms so far of a postmaster's children (its backends and workers), by pid. */
function serverCpu(postmaster: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const s = statOf(Number(d));
    if (s && (s.ppid === postmaster || Number(d) === postmaster)) out.set(Number(d), s.cpuMs);
  }
  return out;
}
const cpuDelta = (a: Map<number, number>, b: Map<number, number>) =>
  [...b].reduce((sum, [pid, ms]) => sum + ms - (a.get(pid) ?? 0), 0);

/** The postmaster of the server behind `url` (the parent of a backend). */
async function postmasterOf(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const pid = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid ?? 0;
  const postmaster = statOf(pid)?.ppid; // while the backend lives
  await c.end();
  if (!postmaster) throw new Error(`cannot read the postmaster of ${url} from /proc (is the server on this machine?)`);
  return postmaster;
}

/** Waits until the standby has replayed everything the primary has written so far. */
async function caughtUp(primary: string, replica: string): Promise<void> {
  const p = new pg.Client({ connectionString: primary });
  await p.connect();
  const lsn = (await p.query<{ l: string }>('SELECT pg_current_wal_lsn()::text AS l')).rows[0]?.l;
  await p.end();
  for (;;) {
    const r = new pg.Client({ connectionString: replica });
    const done = await r
      .connect()
      .then(() => r.query<{ ok: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [lsn]))
      .then((q) => q.rows[0]?.ok === true)
      .catch(() => false);
    await r.end().catch(() => undefined);
    if (done) return;
    await new Promise((res) => setTimeout(res, 200));
  }
}

const ENRICH = `query($q: String!, $k: Int, $d: Int) { enrichContext(input: { query: $q, topK: $k, graphDepth: $d }) {
  context citations { number documentId } entities { entity { id name } why } chunks { score } warnings } }`;
const UPSERT = `mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { chunkCount } }`;

const prefix = `replicas${Date.now().toString(36)}`;
const corpus = loadCorpus(Number(args.docs), 0, prefix);
const scratch = await createScratchDatabase(primaryUrl);
const replicaDbUrl = new URL(scratch.url);
replicaDbUrl.host = new URL(replicaUrl).host;
const env = {
  CAIRN_DATABASE_URL: scratch.url,
  CAIRN_EMBEDDING_PROVIDER: 'hashing',
  CAIRN_EMBEDDING_DIMENSIONS: '256',
  CAIRN_RATE_LIMIT_PER_SECOND: '0',
  // The entities are given: background extraction of the seed would be primary CPU that no call caused.
  CAIRN_EXTRACTION_EXTRACTORS: 'none',
};
let n = 0;
const nextBody = () => {
  n++;
  const q = corpus.queries[n % corpus.queries.length];
  return JSON.stringify({ query: ENRICH, variables: { q, k: [3, 5, 10][n % 3], d: 1 + (n % 2) } });
};
const [primaryPm, replicaPm] = [await postmasterOf(primaryUrl), await postmasterOf(replicaUrl)];

/** One measured window on `server`: requests per second, latency, CPU ms per call of each server. */
async function measure(server: ServerProcess) {
  await runLoad(server.url, CLIENTS, 5, nextBody); // warm-up: prepared statements, caches
  const before = { p: serverCpu(primaryPm), r: serverCpu(replicaPm), s: statOf(server.child.pid ?? 0)?.cpuMs ?? 0 };
  const load = await runLoad(server.url, CLIENTS, SECONDS, nextBody);
  const after = { p: serverCpu(primaryPm), r: serverCpu(replicaPm), s: statOf(server.child.pid ?? 0)?.cpuMs ?? 0 };
  const calls = load.requests;
  const lat = latencyOf(load.samples);
  return {
    rps: calls / load.seconds,
    p50: lat.p50,
    p95: lat.p95,
    errors: load.non2xx + load.graphqlErrors + load.transportErrors,
    primary: cpuDelta(before.p, after.p) / calls,
    replica: cpuDelta(before.r, after.r) / calls,
    server: (after.s - before.s) / calls,
  };
}

let first: ServerProcess | undefined;
let second: ServerProcess | undefined;
try {
  first = await startServerProcess(env);
  await gql(first.url, `mutation($input: UpsertGraphInput!) { upsertGraph(input: $input) { entities { id } } }`, {
    input: { entities: corpus.entities, relationships: corpus.relationships },
  });
  for (let i = 0; i < corpus.seed.length; i += 250)
    await gql(first.url, UPSERT, { input: corpus.seed.slice(i, i + 250).map((d) => asInput(d, 'seed', prefix)) });
  await caughtUp(scratch.url, replicaDbUrl.toString());
  console.log(`seeded ${corpus.seed.length} documents and ${corpus.entities.length} entities; the replica caught up`);
  const alone = await measure(first);
  await first.stop();
  second = await startServerProcess({ ...env, CAIRN_DATABASE_REPLICA_URLS: replicaDbUrl.toString() });
  const withReplica = await measure(second);
  const row = (name: string, m: typeof alone) => [
    name,
    m.rps.toFixed(1),
    `${m.p50.toFixed(0)} / ${m.p95.toFixed(0)} ms`,
    m.primary.toFixed(2),
    m.replica.toFixed(2),
    m.server.toFixed(2),
    m.errors,
  ];
  const table: Table = {
    title: `Read replicas: enrichContext on the primary alone and with one streaming replica (${CLIENTS} clients, ${SECONDS} s)`,
    headers: [
      'setup',
      'req/s',
      'p50 / p95',
      'primary CPU ms/call',
      'replica CPU ms/call',
      'server CPU ms/call',
      'errors',
    ],
    rows: [
      row('primary alone', alone),
      row('primary + 1 replica', withReplica),
      [
        'ratio (with ÷ alone)',
        (withReplica.rps / alone.rps).toFixed(2),
        '',
        (withReplica.primary / alone.primary).toFixed(3),
        '',
        '',
        '',
      ],
    ],
    notes: [
      `Machine: ${machineLine()}; primary and replica on the same cores (Postgres 16, pgvector 0.8, the replica a pg_basebackup standby of scripts/postgres-server.sh).`,
      `Corpus: ${corpus.seed.length} SciFact abstracts, ${corpus.entities.length} term entities, Postgres graph store (no Neo4j), hashing embedder 256-d; rate limit off; no background extraction.`,
      'CPU per call of each server is its postmaster and backends, read from /proc; throughput cannot grow on 2 shared cores, so the primary CPU per call is the figure that says how far reads scale out.',
    ],
  };
  if (args['no-publish']) console.log(JSON.stringify(table, null, 2));
  else publish([table]);
} finally {
  await first?.stop();
  await second?.stop();
  await scratch.drop();
}
