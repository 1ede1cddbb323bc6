// `tsx bench/peer/profile.ts --database-url=<kept by bench:peer --keep> [--cpu-seconds=20]`: where one enrichContext's
// time goes on the data bench:peer loads. Counts the statements one call sends to Postgres and to Neo4j, runs
// EXPLAIN (ANALYZE, BUFFERS) of the statements it sends, Neo4j PROFILE of the expand query on hub entities, and a Node
// CPU profile of `cairn serve` under 8 clients, summarised by function and by package. Prints markdown.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import neo4j, { Session, Transaction } from 'neo4j-driver';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { expandQuery } from '../../src/graph/neo4j/cypher.js';
import { EXPANSION_CAP_PER_NODE } from '../../src/graph/traversal.js';
import { silentLogger } from '../../src/logger.js';
import { createServices } from '../../src/services.js';
import { loadSciFact } from '../datasets.js';
import { runLoad } from '../load/load.js';
import { startServerProcess } from '../load/server.js';
import { cpuBetween, cpuSnapshot } from './cpu.js';
import { enrichBody, TOP_K } from './measure.js';
import { defaultEnrichRequest } from '../enrichRequest.js';
import { benchNeo4j } from '../servers.js';

const { values: args } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    'cpu-seconds': { type: 'string', default: '20' },
    queries: { type: 'string', default: '50' },
  },
});
const databaseUrl = args['database-url'];
const target = benchNeo4j();
if (!databaseUrl || !target) {
  console.error(
    'usage: CAIRN_TEST_NEO4J_URI=… tsx bench/peer/profile.ts --database-url=<the URL bench:peer --keep printed>',
  );
  process.exit(2);
}
const env = {
  CAIRN_DATABASE_URL: databaseUrl,
  CAIRN_NEO4J_URI: target.uri,
  CAIRN_NEO4J_USER: target.user,
  CAIRN_NEO4J_PASSWORD: target.password,
  CAIRN_EMBEDDING_PROVIDER: 'hashing',
  CAIRN_EMBEDDING_DIMENSIONS: '1024',
  CAIRN_RATE_LIMIT_PER_SECOND: '0',
};
const texts = loadSciFact()
  .queries.slice(0, Number(args.queries))
  .map((q) => q.text);
const out: string[] = [];
const say = (s = '') => {
  out.push(s);
  console.log(s);
};

/** Statements sent while `work` runs: pg's Client.query and the Neo4j driver's Session.run / Transaction.run. */
interface Recorded {
  pg: { text: string; values: unknown[] }[];
  neo4j: { text: string; params: Record<string, unknown> }[];
  /** When each statement was sent and when its result arrived, in ms since `work` began. */
  timeline: { store: string; text: string; sent: number; done?: number }[];
}

async function recordStatements(work: () => Promise<unknown>): Promise<Recorded> {
  const seen: Recorded = { pg: [], neo4j: [], timeline: [] };
  const t0 = performance.now();
  const track = <T>(store: string, text: string, result: T): T => {
    const entry: Recorded['timeline'][number] = { store, text, sent: performance.now() - t0 };
    seen.timeline.push(entry);
    const done = () => (entry.done = performance.now() - t0);
    if (result && typeof (result as { then?: unknown }).then === 'function')
      (result as unknown as Promise<unknown>).then(done, done);
    return result;
  };
  const pgQuery = pg.Client.prototype.query;
  const sessionRun = Session.prototype.run;
  const txRun = Transaction.prototype.run;
  const recordPg = function (this: pg.Client, ...a: unknown[]) {
    const [first, values] = a as [string | { text: string; values?: unknown[] }, unknown[] | undefined];
    const text = typeof first === 'string' ? first : first.text;
    seen.pg.push({ text, values: typeof first === 'string' ? (values ?? []) : (first.values ?? values ?? []) });
    const callback = a.at(-1);
    if (typeof callback !== 'function')
      return track('Postgres', text, (pgQuery as (...x: unknown[]) => unknown).apply(this, a));
    // The pool passes a callback: the statement is done when it is called.
    let finish = (): void => undefined;
    track('Postgres', text, new Promise<void>((resolve) => (finish = resolve)));
    const wrapped = (...r: unknown[]) => {
      finish();
      return (callback as (...x: unknown[]) => unknown)(...r);
    };
    return (pgQuery as (...x: unknown[]) => unknown).apply(this, [...a.slice(0, -1), wrapped]);
  };
  pg.Client.prototype.query = recordPg as typeof pgQuery;
  Session.prototype.run = function (this: Session, text: unknown, params?: unknown, ...rest: unknown[]) {
    seen.neo4j.push({ text: String(text), params: (params ?? {}) as Record<string, unknown> });
    return track(
      'Neo4j',
      String(text),
      (sessionRun as (...x: unknown[]) => ReturnType<typeof sessionRun>).call(this, text, params, ...rest),
    );
  } as typeof sessionRun;
  Transaction.prototype.run = function (this: Transaction, text: unknown, params?: unknown) {
    seen.neo4j.push({ text: String(text), params: (params ?? {}) as Record<string, unknown> });
    return track(
      'Neo4j',
      String(text),
      (txRun as (...x: unknown[]) => ReturnType<typeof txRun>).call(this, text, params),
    );
  } as typeof txRun;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = pgQuery;
    Session.prototype.run = sessionRun;
    Transaction.prototype.run = txRun;
  }
  return seen;
}

/** The longest chain of statements each sent after the previous one answered: round trips one after another. */
function hops(r: Recorded): number {
  const sorted = [...r.timeline].sort((a, b) => a.sent - b.sent);
  const chain: number[] = [];
  sorted.forEach((s, i) => {
    chain[i] =
      1 + Math.max(0, ...sorted.slice(0, i).map((p, j) => ((p.done ?? Infinity) <= s.sent ? (chain[j] as number) : 0)));
  });
  return Math.max(0, ...chain);
}

const firstLine = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 110);

const services = await createServices(loadConfig({ CAIRN_DATA_DIR: 'memory://', ...env }), silentLogger(), {
  importQueue: false,
});
const ask = (q: string) => services.enricher.enrich(defaultEnrichRequest(services, q, { topK: TOP_K }));
const driver = neo4j.driver(target.uri, neo4j.auth.basic(target.user, target.password), {
  disableLosslessIntegers: true,
});
const client = new pg.Client({ connectionString: databaseUrl });
await client.connect();
try {
  for (const q of texts.slice(0, 10)) await ask(q); // warm: prepared statements, name cache

  say('## Statements per enrichContext (in process, default settings)');
  const counts = { pg: [] as number[], neo4j: [] as number[], hops: [] as number[] };
  let example: Awaited<ReturnType<typeof recordStatements>> | undefined;
  const allNeo4j: { text: string; params: Record<string, unknown> }[] = [];
  const allPg: { text: string; values: unknown[] }[] = [];
  for (const q of texts) {
    const seen = await recordStatements(() => ask(q));
    counts.pg.push(seen.pg.length);
    counts.neo4j.push(seen.neo4j.length);
    allNeo4j.push(...seen.neo4j);
    allPg.push(...seen.pg);
    example ??= seen;
    counts.hops.push(hops(seen));
  }
  const summary = (xs: number[]) =>
    `min ${Math.min(...xs)}, max ${Math.max(...xs)}, mean ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2)}`;
  say(
    `Over ${texts.length} SciFact queries: Postgres ${summary(counts.pg)}; Neo4j ${summary(counts.neo4j)}; round trips one after another (the longest chain of statements each sent after the previous one answered) ${summary(counts.hops)}.`,
  );
  say('');
  say(`First query ("${texts[0]}"):`);
  say('');
  say('| sent at ms | result at ms | store | statement |');
  say('|---|---|---|---|');
  for (const s of example?.timeline ?? [])
    say(`| ${s.sent.toFixed(1)} | ${s.done?.toFixed(1) ?? '?'} | ${s.store} | \`${firstLine(s.text).slice(0, 80)}\` |`);

  say('');
  say('## EXPLAIN (ANALYZE, BUFFERS) of the retrieval statements (first query, warm cache)');
  for (const s of example?.pg ?? []) {
    if (!/^\s*(WITH|SELECT)/i.test(s.text) || /pg_advisory|knowledge_gaps/.test(s.text)) continue;
    await client.query('BEGIN READ ONLY');
    try {
      await client.query(`SET LOCAL hnsw.ef_search = ${services.config.hnswEfSearch}`);
      await client.query(s.text, s.values); // warm the same plan
      const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${s.text}`, s.values);
      say('');
      say(`\`${firstLine(s.text)}\``);
      say('```');
      for (const r of plan.rows) say(r['QUERY PLAN']);
      say('```');
    } finally {
      await client.query('ROLLBACK');
    }
  }

  say('');
  say(
    `## Every statement of the ${texts.length} queries again, by kind: Postgres execution time (EXPLAIN ANALYZE) and Neo4j db hits (PROFILE)`,
  );
  say('');
  say('| store | statement | count | mean ms (server side) | mean db hits |');
  say('|---|---|---|---|---|');
  const pgKinds = new Map<string, number[]>();
  for (const s of allPg) {
    if (!/^\s*(WITH|SELECT)/i.test(s.text) || /pg_advisory/.test(s.text)) continue;
    await client.query('BEGIN READ ONLY');
    try {
      await client.query(`SET LOCAL hnsw.ef_search = ${services.config.hnswEfSearch}`);
      const plan = await client.query<{ 'QUERY PLAN': { 'Execution Time': number; 'Planning Time': number }[] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${s.text}`,
        s.values,
      );
      const p = plan.rows[0]?.['QUERY PLAN'][0];
      const key = firstLine(s.text).slice(0, 60);
      pgKinds.set(key, [...(pgKinds.get(key) ?? []), (p?.['Execution Time'] ?? 0) + (p?.['Planning Time'] ?? 0)]);
    } finally {
      await client.query('ROLLBACK');
    }
  }
  for (const [k, ms] of pgKinds)
    say(`| Postgres | \`${k}\` | ${ms.length} | ${(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(2)} | |`);
  const neoKinds = new Map<string, { ms: number[]; hits: number[] }>();
  for (const s of allNeo4j) {
    const t = performance.now();
    const res = await driver.executeQuery(`PROFILE ${s.text}`, s.params, { routing: neo4j.routing.READ });
    const ms = performance.now() - t;
    const key = firstLine(s.text).slice(0, 60);
    const k = neoKinds.get(key) ?? { ms: [], hits: [] };
    k.ms.push(ms);
    k.hits.push(totalDbHits(res.summary.profile));
    neoKinds.set(key, k);
  }
  for (const [k, v] of neoKinds)
    say(
      `| Neo4j | \`${k}\` | ${v.ms.length} | ${(v.ms.reduce((a, b) => a + b, 0) / v.ms.length).toFixed(2)} (round trip, PROFILE) | ${(v.hits.reduce((a, b) => a + b, 0) / v.hits.length).toFixed(0)} |`,
    );

  say('');
  say('## Neo4j PROFILE of expandQuery(BOTH, untyped) on hub entities');
  const hubs = await driver.executeQuery(
    `MATCH (e:Entity) WHERE e.id STARTS WITH 'peerbench_'
     WITH e, COUNT { (e)--(:Entity) } AS degree, COUNT { (e)-[:MENTIONED_IN]->() } AS mentions
     ORDER BY degree DESC LIMIT 5 RETURN e.id AS id, e.name AS name, degree, mentions`,
  );
  for (const r of hubs.records)
    say(
      `- ${String(r.get('name'))} (${String(r.get('id'))}): ${String(r.get('degree'))} relationships, ${String(r.get('mentions'))} MENTIONED_IN`,
    );
  const ids = hubs.records.map((r) => String(r.get('id')));
  for (const [label, list] of [
    ['the top hub alone', ids.slice(0, 1)],
    ['the 5 top hubs', ids],
  ] as const) {
    const q = `PROFILE ${expandQuery('BOTH', '')}`;
    for (let i = 0; i < 3; i++) await driver.executeQuery(q, { ids: list, cap: neo4j.int(EXPANSION_CAP_PER_NODE) }); // warm the plan
    const t = performance.now();
    const res = await driver.executeQuery(q, { ids: list, cap: neo4j.int(EXPANSION_CAP_PER_NODE) });
    const ms = performance.now() - t;
    const profile = res.summary.profile;
    say('');
    say(`### ${label}: ${ms.toFixed(1)} ms round trip, ${totalDbHits(profile)} db hits`);
    say('```');
    printPlan(profile, 0);
    say('```');
  }

  say('');
  say(`## Node CPU profile of cairn serve, 8 clients, ${args['cpu-seconds']} s`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-cpu-'));
  const server = await startServerProcess(env, ['--cpu-prof', '--cpu-prof-dir', dir]);
  try {
    let n = 0;
    await runLoad(server.url, 8, 5, () => enrichBody(texts[n++ % texts.length] as string)); // warm
    const groups = { server: server.child.pid as number };
    const before = cpuSnapshot(groups);
    const r = await runLoad(server.url, 8, Number(args['cpu-seconds']), () =>
      enrichBody(texts[n++ % texts.length] as string),
    );
    const used = cpuBetween(before, cpuSnapshot(groups));
    say(
      `${r.requests} requests in ${r.seconds} s after 5 s of warm-up (startup and warm-up are in the profile too). The kernel counted ${((used.server ?? 0) / 1000).toFixed(1)} s of server CPU (utime + stime) in the measured ${r.seconds} s: ${((used.server ?? 0) / r.requests).toFixed(1)} ms per request.`,
    );
  } finally {
    await server.stop();
  }
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile in ${dir}`);
  summariseCpuProfile(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as CpuProfile);
  say('');
  say(`(profile: ${path.join(dir, file)})`);
} finally {
  await client.end();
  await driver.close();
  await services.close();
}
fs.writeFileSync(path.join(os.tmpdir(), 'cairn-peer-profile.md'), `${out.join('\n')}\n`);

interface PlanNode {
  operatorType: string;
  dbHits: number;
  rows: number;
  arguments: Record<string, unknown>;
  children: PlanNode[];
}

function totalDbHits(p: PlanNode | false): number {
  return p ? p.dbHits + p.children.reduce((s, c) => s + totalDbHits(c), 0) : 0;
}

function printPlan(p: PlanNode | false, depth: number): void {
  if (!p) return;
  const details = String(p.arguments.Details ?? '')
    .replace(/\s+/g, ' ')
    .slice(0, 90);
  say(
    `${'  '.repeat(depth)}${p.operatorType.replace(/@.*$/, '')}  rows ${p.rows}, db hits ${p.dbHits}${details ? `  ${details}` : ''}`,
  );
  for (const c of p.children) printPlan(c, depth + 1);
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time by function and by where the code lives (a package, Cairn's own files, Node internals, GC, idle). */
function summariseCpuProfile(profile: CpuProfile): void {
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const ms = self.get(node.id) ?? 0;
    if (ms === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const place = placeOf(functionName, url);
    if (place !== '(idle)') total += ms;
    byPlace.set(place, (byPlace.get(place) ?? 0) + ms);
    const key = `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/dist\//, 'dist/')}:${lineNumber + 1}` : ''}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + ms);
  }
  const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  say('');
  say(`Busy (non-idle) CPU in the profile: ${(total / 1000).toFixed(1)} s. Self time by place:`);
  say('');
  say('| place | self ms | share of busy |');
  say('|---|---|---|');
  for (const [place, ms] of top(byPlace, 20))
    say(`| ${place} | ${ms.toFixed(0)} | ${place === '(idle)' ? '' : `${((ms / total) * 100).toFixed(1)}%`} |`);
  say('');
  say('Top functions by self time:');
  say('');
  say('| function | self ms | share of busy |');
  say('|---|---|---|');
  for (const [fn, ms] of top(byFunction, 30))
    if (!fn.startsWith('(idle)')) say(`| \`${fn}\` | ${ms.toFixed(0)} | ${((ms / total) * 100).toFixed(1)}% |`);
}

function placeOf(functionName: string, url: string): string {
  if (functionName === '(idle)' || functionName === '(program)' || functionName === '(garbage collector)')
    return functionName;
  if (url === '') return '(native / V8 builtins)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  if (url.startsWith('node:')) return 'node: internals';
  const own = /\/dist\/(src\/[^/]+|importers)/.exec(url);
  return own ? `cairn ${own[1]}` : url;
}
