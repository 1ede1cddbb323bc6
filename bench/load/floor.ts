// The work floor of one enrichContext: the same services the server builds, called in this process with no HTTP, no
// GraphQL and no import alongside, by `clients` concurrent loops. Whatever latency this shows at 32 clients, no server
// in front of these stores can beat on the same cores, so it says how far HTTP and GraphQL are from the target.
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/Db.js';
import { silentLogger } from '../../src/logger.js';
import { createServices } from '../../src/services.js';
import { percentile } from '../metrics.js';
import { cpuBetween, cpuSnapshot, type CpuUse } from './cpu.js';

/** What one floor run measured: throughput, latency and CPU per call (this process stands in for the server). */
export interface FloorResult {
  calls: number;
  seconds: number;
  p50: number;
  p95: number;
  cpu: CpuUse;
}

/** One request as the bench sends it. */
export interface FloorRequest {
  query: string;
  topK: number;
  graphDepth: number;
}

/** Runs `work` from `clients` concurrent loops for `seconds`, measuring latency and CPU (this process as the server). */
async function drive(
  clients: number,
  seconds: number,
  next: () => FloorRequest,
  work: (r: FloorRequest) => Promise<unknown>,
): Promise<FloorResult> {
  const ms: number[] = [];
  const cpu0 = cpuSnapshot(process.pid);
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await work(next());
        ms.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  return {
    calls: ms.length,
    seconds: elapsed,
    p50: percentile(ms, 50),
    p95: percentile(ms, 95),
    cpu: cpuBetween(cpu0, cpuSnapshot(process.pid)),
  };
}

/**
 * Each search mode alone (BM25, HNSW, both fused) and the whole enricher (both lanes, mentions, Neo4j reads), each for `seconds` at `clients` concurrent calls, against the database and graph the server under test uses.
 */
export async function measureFloor(
  env: Record<string, string>,
  clients: number,
  seconds: number,
  next: () => FloorRequest,
): Promise<FloorRows> {
  const config = loadConfig({ ...process.env, ...env });
  const services = await createServices(config, silentLogger(), { importQueue: false });
  try {
    const { rag, enrich } = config;
    const request = (r: FloorRequest) => ({
      query: r.query,
      topK: r.topK,
      maxEntities: enrich.maxEntities,
      graphDepth: r.graphDepth,
      maxChars: enrich.maxChars,
      filter: {},
      mode: undefined,
      graphShare: enrich.graphShare,
    });
    const search = (mode: string) => (r: FloorRequest) =>
      services.search.hits({ query: r.query, topK: Math.min(r.topK, rag.maxTopK), filter: {}, mode });
    // Warm both paths (prepared statements, the name cache, the JIT) before measuring.
    await drive(clients, 2, next, (r) => services.enricher.enrich(request(r)));
    const gapsBefore = await gapCount(services.db);
    const rows: FloorRows = {
      keyword: await drive(clients, seconds, next, search('KEYWORD')),
      vector: await drive(clients, seconds, next, search('VECTOR')),
      hybrid: await drive(clients, seconds, next, search('HYBRID')),
      enrich: await drive(clients, seconds, next, (r) => services.enricher.enrich(request(r))),
      gapsRecorded: 0,
    };
    rows.gapsRecorded = (await gapCount(services.db)) - gapsBefore;
    return rows;
  } finally {
    await services.close();
  }
}

/** The floor's rows: each search mode alone, then the whole enricher; how many of its calls recorded a knowledge gap. */
export interface FloorRows {
  keyword: FloorResult;
  vector: FloorResult;
  hybrid: FloorResult;
  enrich: FloorResult;
  gapsRecorded: number;
}

async function gapCount(db: Db): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM knowledge_gaps');
  return rows[0]?.n ?? 0;
}
