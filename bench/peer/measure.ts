import type pg from 'pg';
import type { Driver } from 'neo4j-driver';
import { toVectorSql } from '../../src/db/vector.js';
import type { Services } from '../../src/services.js';
import { distinct, ndcgAt, percentile } from '../metrics.js';
import { latencyOf, runLoad } from '../load/load.js';
import { cpuBetween, cpuSnapshot, type ProcessGroups } from './cpu.js';
import { sciFactId, VECTOR_INDEX } from './load.js';
import type { PeerProcess, PeerRetriever } from './PeerProcess.js';
import { defaultEnrichRequest } from '../enrichRequest.js';

export const TOP_K = 10;

/** One answer of a side: how long it took and its documents (SciFact ids), best first. */
export interface Answer {
  ms: number;
  documents: string[];
}

/** A side of the comparison: answers query `i` (an index into the bench's query list). */
export interface Side {
  name: string;
  ask(i: number): Promise<Answer>;
}

/** Latencies and nDCG@10 of each side over the same queries. */
export interface Sequential {
  ms: number[];
  ndcg: number[];
}

const ENRICH = `query($q: String!, $k: Int) { enrichContext(input: { query: $q, topK: $k }) {
  context citations { number documentId } chunks { score document { id } } entities { entity { id name } why } warnings } }`;

/** The GraphQL body of query `text`, as an agent would send it (topK 10, every other input at its default). */
export function enrichBody(text: string): string {
  return JSON.stringify({ query: ENRICH, variables: { q: text, k: TOP_K } });
}

/** Cairn's enrichContext over HTTP; the time is the whole round trip, as the client sees it. */
export function httpSide(url: string, queries: readonly string[]): Side {
  return {
    name: 'Cairn enrichContext over HTTP (HYBRID)',
    async ask(i) {
      const start = performance.now();
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: enrichBody(queries[i % queries.length] as string),
      });
      const body = (await res.json()) as {
        data?: { enrichContext: { chunks: { document: { id: string } }[] } };
        errors?: unknown;
      };
      const ms = performance.now() - start;
      if (!body.data) throw new Error(`enrichContext failed: ${JSON.stringify(body.errors).slice(0, 500)}`);
      return { ms, documents: distinct(body.data.enrichContext.chunks.map((c) => sciFactId(c.document.id))) };
    },
  };
}

/** Cairn's ContextEnricher called in this process with the server's configuration. */
export function inProcessSide(services: Services, queries: readonly string[]): Side {
  return {
    name: 'Cairn ContextEnricher in process',
    async ask(i) {
      const start = performance.now();
      const query = queries[i % queries.length] as string;
      const result = await services.enricher.enrich(defaultEnrichRequest(services, query, { topK: TOP_K }));
      return {
        ms: performance.now() - start,
        documents: distinct(result.chunks.map((c) => sciFactId(c.hit.document.id))),
      };
    },
  };
}

/** A neo4j-graphrag retriever in the Python process; the time is measured there, around `retriever.search`. */
export function peerSide(peer: PeerProcess, retriever: PeerRetriever, name: string): Side {
  return {
    name,
    async ask(i) {
      const { ms, documents } = await peer.search(retriever, i);
      return { ms, documents: distinct(documents) };
    },
  };
}

/**
 * Every side answers every query after `warmup` queries each; the sides take turns per query, the first one rotating,
 * so that drift in the machine's load falls on all alike.
 */
export async function sequential(
  sides: readonly Side[],
  count: number,
  warmup: number,
  relevance: (i: number) => ReadonlyMap<string, number>,
): Promise<Sequential[]> {
  for (let i = 0; i < warmup; i++) for (const side of sides) await side.ask(i);
  const out = sides.map(() => ({ ms: [] as number[], ndcg: [] as number[] }));
  for (let i = 0; i < count; i++) {
    for (let k = 0; k < sides.length; k++) {
      const s = (i + k) % sides.length;
      const answer = await (sides[s] as Side).ask(i);
      out[s]?.ms.push(answer.ms);
      out[s]?.ndcg.push(ndcgAt(answer.documents, relevance(i), 10));
    }
  }
  return out;
}

/** A throughput window: requests per second, latency and CPU ms per request of each process group. */
export interface Window {
  requests: number;
  seconds: number;
  p50: number;
  p95: number;
  errors: number;
  cpuPerRequest: Record<string, number>;
}

/** `clients` concurrent enrichContext calls over HTTP (autocannon in this process) for `seconds`. */
export async function httpWindow(
  url: string,
  queries: readonly string[],
  clients: number,
  seconds: number,
  groups: ProcessGroups,
  offset: number,
): Promise<Window> {
  let n = offset;
  const before = cpuSnapshot(groups);
  const r = await runLoad(url, clients, seconds, () => enrichBody(queries[n++ % queries.length] as string));
  const cpu = cpuBetween(before, cpuSnapshot(groups));
  const latency = latencyOf(r.samples);
  if (r.errorExamples.length > 0) console.log('enrichContext errors under load:', r.errorExamples);
  return {
    requests: r.requests,
    seconds: r.seconds,
    p50: latency.p50,
    p95: latency.p95,
    errors: r.non2xx + r.graphqlErrors + r.transportErrors,
    cpuPerRequest: perRequest(cpu, r.requests),
  };
}

/** `clients` Python threads calling a retriever for `seconds`. */
export async function peerWindow(
  peer: PeerProcess,
  retriever: PeerRetriever,
  clients: number,
  seconds: number,
  groups: ProcessGroups,
  offset: number,
): Promise<Window> {
  const before = cpuSnapshot(groups);
  const r = await peer.load(retriever, clients, seconds, offset);
  const cpu = cpuBetween(before, cpuSnapshot(groups));
  if (r.errorExamples.length > 0) console.log(`${retriever} errors under load:`, r.errorExamples);
  return {
    requests: r.ms.length,
    seconds: r.seconds,
    p50: percentile(r.ms, 50),
    p95: percentile(r.ms, 95),
    errors: r.errors,
    cpuPerRequest: perRequest(cpu, r.ms.length),
  };
}

function perRequest(cpu: Record<string, number>, requests: number): Record<string, number> {
  return Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, v / Math.max(1, requests)]));
}

type Nearest = { id: string; distance: number }[];

/** Share of the exact k nearest found; ties at the k-th distance make the exact set ambiguous, so any hit as near counts. */
function recallAgainst(exact: Nearest, found: Nearest): number {
  if (exact.length === 0) return 1;
  const kth = exact.at(-1)?.distance ?? Number.POSITIVE_INFINITY;
  const ids = new Set(exact.map((x) => x.id));
  return Math.min(exact.length, found.filter((h) => ids.has(h.id) || h.distance <= kth + 1e-6).length) / exact.length;
}

/**
 * Vector recall@10 of both sides against the exact 10 nearest chunks (a full scan in Postgres by the full-precision
 * distance; both sides hold the same vectors): Cairn's VECTOR search (HNSW at its defaults) and the peer's vector index
 * (db.index.vector.queryNodes, what VectorCypherRetriever runs).
 */
export async function vectorRecall(
  services: Services,
  client: pg.Client,
  driver: Driver,
  vectors: readonly number[][],
  texts: readonly string[],
): Promise<{ cairn: number[]; peer: number[] }> {
  const out = { cairn: [] as number[], peer: [] as number[] };
  for (const [i, vector] of vectors.entries()) {
    const literal = toVectorSql(Float32Array.from(vector));
    const { rows } = await client.query<{ id: string; distance: number | string }>(
      `SELECT id::text AS id, (embedding <=> $1::vector) AS distance FROM chunks WHERE embedding IS NOT NULL ORDER BY embedding <=> $1::vector LIMIT ${TOP_K}`,
      [literal],
    );
    const exact = rows.map((r) => ({ id: r.id, distance: Number(r.distance) }));
    const hits = await services.search.hits({ query: texts[i] as string, topK: TOP_K, filter: {}, mode: 'VECTOR' });
    out.cairn.push(
      recallAgainst(
        exact,
        hits.map((h) => ({ id: h.chunk.id, distance: 1 - (h.vectorScore ?? 0) })),
      ),
    );
    const res = await driver.executeQuery(
      `CALL db.index.vector.queryNodes('${VECTOR_INDEX}', ${TOP_K}, $v) YIELD node, score RETURN node.id AS id, score`,
      { v: vector },
    );
    // Neo4j's cosine score is (1 + cosine) / 2.
    out.peer.push(
      recallAgainst(
        exact,
        res.records.map((r) => ({ id: String(r.get('id')), distance: 2 * (1 - Number(r.get('score'))) })),
      ),
    );
  }
  return out;
}
