// `tsx bench/peer/statements.ts --database-url=<kept by bench:peer --keep> [--queries=300] [--rounds=2]`: what one
// enrichContext costs Postgres, from pg_stat_statements (scripts/postgres-server.sh stat-statements installs it) and
// from the CPU time of the Postgres processes. SciFact queries one at a time in this process, after a warm-up, with
// bench:peer's configuration; prints the statements by total time per call, and the CPU per call of each side.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import { createServices } from '../../src/services.js';
import { loadSciFact } from '../datasets.js';
import { defaultEnrichRequest } from '../enrichRequest.js';
import { benchNeo4j } from '../servers.js';
import { cpuBetween, cpuSnapshot, pidFromFile, type ProcessGroups } from './cpu.js';
import { TOP_K } from './measure.js';

const { values: args } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    queries: { type: 'string', default: '300' },
    warmup: { type: 'string', default: '40' },
    rounds: { type: 'string', default: '2' },
  },
});
const databaseUrl = args['database-url'];
const neo4j = benchNeo4j();
if (!databaseUrl || !neo4j) {
  console.error('usage: CAIRN_TEST_NEO4J_URI=… tsx bench/peer/statements.ts --database-url=<bench:peer --keep URL>');
  process.exit(2);
}
const env = {
  CAIRN_DATA_DIR: 'memory://',
  CAIRN_DATABASE_URL: databaseUrl,
  CAIRN_NEO4J_URI: neo4j.uri,
  CAIRN_NEO4J_USER: neo4j.user,
  CAIRN_NEO4J_PASSWORD: neo4j.password,
  CAIRN_EMBEDDING_PROVIDER: 'hashing',
  CAIRN_EMBEDDING_DIMENSIONS: '1024',
  CAIRN_RATE_LIMIT_PER_SECOND: '0',
  // The first calls load the name cache; a shared, busy machine must not turn them into lane timeouts.
  CAIRN_ENRICH_LANE_TIMEOUT_MS: '30000',
};
const texts = loadSciFact()
  .queries.slice(0, Number(args.queries))
  .map((q) => q.text);

interface StatementRow {
  query: string;
  calls: string;
  plans: string;
  total_plan_time: number;
  total_exec_time: number;
  rows: string;
}

const services = await createServices(loadConfig(env), silentLogger(), { importQueue: false });
const ask = (q: string) => services.enricher.enrich(defaultEnrichRequest(services, q, { topK: TOP_K }));
const client = new pg.Client({ connectionString: databaseUrl });
await client.connect();
try {
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid as number;
  const postmaster = Number(fs.readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
  const groups: ProcessGroups = { postgres: postmaster };
  const neo4jPidFile = '.cairn/neo4j/neo4j.pid';
  if (fs.existsSync(neo4jPidFile)) groups.neo4j = pidFromFile(neo4jPidFile);
  for (const q of texts.slice(0, Number(args.warmup))) await ask(q);
  for (let round = 1; round <= Number(args.rounds); round++) {
    await client.query('SELECT pg_stat_statements_reset()');
    const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const before = cpuSnapshot(groups);
    const started = performance.now();
    for (const q of texts) await ask(q);
    const wallMs = performance.now() - started;
    const cpu = cpuBetween(before, cpuSnapshot(groups));
    const n = texts.length;
    const { rows } = await client.query<StatementRow>(
      `SELECT query, calls, plans, total_plan_time, total_exec_time, rows FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND query NOT LIKE '%pg_stat_statements%' ORDER BY total_plan_time + total_exec_time DESC`,
    );
    const per = (x: number) => (x / n).toFixed(3);
    const calls = rows.reduce((s, r) => s + Number(r.calls), 0);
    const time = rows.reduce((s, r) => s + r.total_plan_time + r.total_exec_time, 0);
    console.log(`\n## Round ${round}: ${n} enrichContext calls, load average before ${load}\n`);
    console.log(
      `wall ${per(wallMs)} ms/call; CPU ms/call: Postgres ${per(cpu.postgres ?? 0)}, Neo4j ${per(cpu.neo4j ?? 0)},` +
        ` Node ${per(cpu.bench ?? 0)}; statements/call ${per(calls)}; statement time ms/call ${per(time)}\n`,
    );
    console.log('| statement | calls/call | plans/call | plan ms/call | exec ms/call | rows/exec |');
    console.log('|---|---|---|---|---|---|');
    for (const r of rows.slice(0, 25)) {
      const text = r.query.replace(/\s+/g, ' ').trim().slice(0, 120).replace(/\|/g, '\\|');
      const c = Number(r.calls);
      console.log(
        `| ${text} | ${per(c)} | ${per(Number(r.plans))} | ${per(r.total_plan_time)} | ${per(r.total_exec_time)} |` +
          ` ${(Number(r.rows) / Math.max(1, c)).toFixed(1)} |`,
      );
    }
  }
} finally {
  await client.end();
  await services.close();
}
