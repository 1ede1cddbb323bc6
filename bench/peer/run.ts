// `npm run bench:peer [-- --queries=300 --window=8 --rounds=3 --no-publish --keep]`: Cairn's enrichContext side by
// side with neo4j-graphrag's VectorCypherRetriever and HybridCypherRetriever on the same SciFact chunks, vectors,
// entities and mentions, in the same Neo4j. See bench/peer/README.md.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import neo4j from 'neo4j-driver';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import { createServices } from '../../src/services.js';
import { createScratchDatabase } from '../../test/helpers/databases.js';
import { loadSciFact } from '../datasets.js';
import { deleteNeo4jNodes } from '../latencyLoad.js';
import { publish, toMarkdown } from '../report.js';
import { startServerProcess } from '../load/server.js';
import { pidFromFile, type ProcessGroups } from './cpu.js';
import { dropPeer, FULLTEXT_INDEX, loadCairn, loadPeer, VECTOR_INDEX } from './load.js';
import {
  httpSide,
  httpWindow,
  inProcessSide,
  peerSide,
  peerWindow,
  sequential,
  vectorRecall,
  type Window,
} from './measure.js';
import { ensurePeerVenv, PeerProcess, type PeerRetriever } from './PeerProcess.js';
import { peerTables } from './tables.js';
import { projectPath } from '../../src/paths.js';
import { requireBenchServers } from '../servers.js';

const { values: args } = parseArgs({
  options: {
    queries: { type: 'string', default: '300' },
    window: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    clients: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '20' },
    'no-publish': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const WINDOW_S = Number(args.window);
const ROUNDS = Number(args.rounds);
const CLIENTS = Number(args.clients);
const WARMUP = Number(args.warmup);

const { databaseUrl, neo4j: target } = requireBenchServers('bench:peer');
const started = performance.now();
const log = (m: string) =>
  console.log(`[peer ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${m}`);

/** The local Neo4j JVM's pid: scripts/neo4j-server.sh's pid file, when that server listens on our port. */
function neo4jPid(): number {
  const port = new URL(target.uri.replace(/^bolt/, 'http')).port;
  const file = projectPath('.cairn', 'neo4j', 'neo4j.pid');
  const running = projectPath('.cairn', 'neo4j', 'port');
  const pid = pidFromFile(file);
  if (pidFromFile(running) !== Number(port))
    throw new Error(`the Neo4j of ${file} does not listen on port ${port}: start it with scripts/neo4j-server.sh`);
  return pid;
}

/** The Neo4j JVM's heap (-Xmx) and page cache (neo4j.conf), for the notes. */
function neo4jMemory(pid: number): string {
  const heap = /-Xmx(\S+)/.exec(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '))?.[1] ?? '?';
  const conf = projectPath('.cairn', 'neo4j', 'home', 'conf', 'neo4j.conf');
  const pageCache = fs.existsSync(conf)
    ? (/^server\.memory\.pagecache\.size=(\S+)/m.exec(fs.readFileSync(conf, 'utf8'))?.[1] ?? '?')
    : '?';
  return `heap ${heap}, page cache ${pageCache}`;
}

const python = ensurePeerVenv(log);
const data = loadSciFact();
const queries = data.queries.slice(0, Number(args.queries));
const texts = queries.map((q) => q.text);
// Fixed, so that a run that crashed is cleaned up by the next; the peer's nodes have their own labels.
const prefix = 'peerbench_';
await deleteNeo4jNodes(target, prefix);
const scratch = await createScratchDatabase(databaseUrl);
const serverEnv = {
  CAIRN_DATABASE_URL: scratch.url,
  CAIRN_NEO4J_URI: target.uri,
  CAIRN_NEO4J_USER: target.user,
  CAIRN_NEO4J_PASSWORD: target.password,
  CAIRN_EMBEDDING_PROVIDER: 'hashing',
  CAIRN_EMBEDDING_DIMENSIONS: '1024',
  CAIRN_RATE_LIMIT_PER_SECOND: '0', // the bench is one client address: the per-address limit would measure itself
};
const services = await createServices(loadConfig({ CAIRN_DATA_DIR: 'memory://', ...serverEnv }), silentLogger(), {
  importQueue: false,
});
const driver = neo4j.driver(target.uri, neo4j.auth.basic(target.user, target.password));
const exactClient = new pg.Client({ connectionString: scratch.url });
let server: Awaited<ReturnType<typeof startServerProcess>> | undefined;
let peer: PeerProcess | undefined;
try {
  log(`loading SciFact (${data.corpus.length} documents) into Cairn …`);
  const cairn = await loadCairn(services, data, prefix, log);
  log(`Cairn loaded in ${cairn.seconds.toFixed(0)} s; the peer's copy …`);
  const peerLoad = await loadPeer(services, target, cairn.graph, log);
  log(`peer loaded in ${peerLoad.seconds.toFixed(0)} s`);
  const vectors = (await services.embedder.embed(texts)).map((v) => Array.from(v));

  server = await startServerProcess(serverEnv);
  for (let backlog = 1; backlog > 0;) {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ graphStats { outboxBacklog } }' }),
    });
    backlog = ((await res.json()) as { data: { graphStats: { outboxBacklog: number } } }).data.graphStats.outboxBacklog;
    if (backlog > 0) await new Promise((r) => setTimeout(r, 500));
  }
  peer = await PeerProcess.start(python, {
    ...target,
    queries: texts.map((text, i) => ({ text, vector: vectors[i] as number[] })),
    vectorIndex: VECTOR_INDEX,
    fulltextIndex: FULLTEXT_INDEX,
  });
  await exactClient.connect();
  const backend = (await exactClient.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid as number;
  const postmaster = Number(fs.readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
  const groups: ProcessGroups = {
    server: server.child.pid as number,
    postgres: postmaster,
    neo4j: neo4jPid(),
    python: peer.pid,
  };

  const sides = [
    httpSide(server.url, texts),
    inProcessSide(services, texts),
    peerSide(peer, 'vector', 'VectorCypherRetriever, top 10 + 1-hop mentions/neighbours in Cypher'),
    peerSide(peer, 'hybrid', 'HybridCypherRetriever, linear, α 0.2, same retrieval query'),
  ];
  log(
    `${queries.length} queries on each of ${sides.length} sides, interleaved, after ${WARMUP} warm-up queries each …`,
  );
  const seq = await sequential(sides, queries.length, WARMUP, (i) => data.qrels.get(queries[i]?.id ?? '') ?? new Map());

  log(`throughput: ${ROUNDS} rounds of adjacent ${WINDOW_S} s windows at ${CLIENTS} clients …`);
  const windows: Window[][] = [[], [], []];
  for (let round = 0; round < ROUNDS; round++) {
    const offset = round * 997;
    windows[0]?.push(await httpWindow(server.url, texts, CLIENTS, WINDOW_S, groups, offset));
    for (const [k, retriever] of (['vector', 'hybrid'] as PeerRetriever[]).entries())
      windows[k + 1]?.push(await peerWindow(peer, retriever, CLIENTS, WINDOW_S, groups, offset));
    log(
      `  round ${round + 1}: ${windows
        .map((w) => (w.at(-1) as Window).requests / (w.at(-1) as Window).seconds)
        .map((v) => v.toFixed(0))
        .join(' / ')} requests/s`,
    );
  }

  log('vector recall@10 against exact …');
  const recall = await vectorRecall(services, exactClient, driver, vectors, texts);
  const tables = peerTables({
    sides: sides.map((s) => s.name),
    seq,
    windows,
    recall,
    clients: CLIENTS,
    windowSeconds: WINDOW_S,
    warmup: WARMUP,
    queries: queries.length,
    loaded: {
      documents: data.corpus.length,
      chunks: cairn.chunks,
      entities: cairn.graph.entities.length,
      relationships: cairn.graph.relationships.length,
      mentions: peerLoad.mentions,
    },
    efSearch: services.config.hnswEfSearch,
    neo4jMemory: neo4jMemory(groups.neo4j as number),
  });
  log(`done in ${((performance.now() - started) / 60_000).toFixed(1)} min`);
  if (args['no-publish']) console.log(`\n${tables.map(toMarkdown).join('\n\n')}\n`);
  else publish(tables);
} catch (err) {
  console.error(
    `bench:peer failed: ${(err as Error).stack ?? String(err)}${server ? `\nserver output:\n${server.logs()}` : ''}`,
  );
  process.exitCode = 1;
} finally {
  await peer?.close();
  await server?.stop();
  await exactClient.end().catch(() => undefined);
  await services.close();
  if (args.keep) {
    console.log(`kept: CAIRN_DATABASE_URL=${scratch.url}; Neo4j keeps the ${prefix}* graph and the Peer* nodes`);
  } else {
    await deleteNeo4jNodes(target, prefix);
    await dropPeer(driver);
    await scratch.drop();
  }
  await driver.close();
}
