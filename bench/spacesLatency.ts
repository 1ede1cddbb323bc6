import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config.js';
import { DEFAULT_SPACE, runInSpace } from '../src/db/spaceScope.js';
import { HashingEmbeddingProvider } from '../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { createGraphStore } from '../src/graph/createGraphStore.js';
import { MentionLinker } from '../src/graph/mentions/MentionLinker.js';
import { silentLogger } from '../src/logger.js';
import { dropHnswIndex, ensureHnswIndex } from '../src/retrieval/vectorIndex.js';
import { createServices, type Services } from '../src/services.js';
import { createScratchDatabase } from '../test/helpers/databases.js';
import { loadSciFact } from './datasets.js';
import { defaultEnrichRequest } from './enrichRequest.js';
import { corpusEntityNames } from './graphData.js';
import { percentile } from './metrics.js';
import { machineLine, type Table } from './report.js';
import { namedGraph, perturbedCorpus, scaledDocumentInput, type ScaledCorpus } from './syntheticCorpus.js';

// Issue 31's benchmark: the latency-at-scale corpus (100,000 chunks, 10,000 entities) loaded twice on the Postgres
// server, once as a single-space install (everything in `default`) and once split across 10 spaces (documents and
// entities dealt round-robin in 10 parts, relationships within each part), and enrichContext timed on both in the same
// run, alternating per query: in `default` on the first, in the query's space on the second.

export interface SpacesLatencySizes {
  chunks: number;
  entities: number;
  relationships: number;
  queries: number;
  spaces: number;
}

export const DEFAULT_SPACES_SIZES: SpacesLatencySizes = {
  chunks: 100_000,
  entities: 10_000,
  relationships: 50_000,
  queries: 300,
  spaces: 10,
};
const WARMUP = 20;
const TOP_K = 10;
const INGEST_BATCH = 1_000;
const GRAPH_BATCH = 2_000;
/** The target: a space-scoped call at most this many times the single-space install's. */
const TARGET = 1.1;

const log = (m: string) => console.log(`[spaces ${new Date().toISOString().slice(11, 19)}] ${m}`);

/** One layout of the corpus: which space each document and entity goes to. */
interface Layout {
  name: string;
  spaces: string[];
  /** Only the first part (a tenth), for the install that holds one space's share alone. */
  firstPartOnly?: boolean;
}

/**
 * Loads the corpus into `services` as `layout` deals it: every part's entity names and graph first (so document writes
 * link the names, as in production), then its documents with the HNSW index dropped, which is rebuilt once at the end.
 * Returns the chunks written.
 */
async function load(
  services: Services,
  layout: Layout,
  corpus: ScaledCorpus,
  sizes: SpacesLatencySizes,
  names: ReturnType<typeof corpusEntityNames>,
  prefix: string,
): Promise<number> {
  for (const space of layout.spaces)
    if (space !== DEFAULT_SPACE && (await services.spaces.missing([space])).length)
      await services.spaces.create({ id: space });
  await dropHnswIndex(services.db);
  const store = await createGraphStore(services.config, services.db, services.logger);
  const t0 = performance.now();
  let chunks = 0;
  try {
    // The corpus in `sizes.spaces` parts on both installs; a part goes to its own space, or to default on one space.
    const parts = Array.from({ length: layout.firstPartOnly ? 1 : sizes.spaces }, (_, s) => ({
      space: layout.spaces[s % layout.spaces.length] ?? DEFAULT_SPACE,
      graph: namedGraph(
        names.filter((_, i) => i % sizes.spaces === s),
        Math.round(sizes.relationships / sizes.spaces),
        `${prefix}s${s}_`,
      ),
      docs: corpus.docs.filter((_, i) => i % sizes.spaces === s),
    }));
    // Every name before any document, so document writes link them and no backfill runs.
    for (const { space, graph } of parts)
      await runInSpace(space, async () => {
        await new MentionLinker(services.db, services.outbox !== undefined).entitiesChanged(
          graph.entities.map((e) => ({ entityId: e.id, name: e.name, aliases: e.aliases })),
        );
        for (let i = 0; i < graph.entities.length; i += GRAPH_BATCH)
          await store.upsertEntities(graph.entities.slice(i, i + GRAPH_BATCH));
        for (let i = 0; i < graph.relationships.length; i += GRAPH_BATCH)
          await store.upsertRelationships(graph.relationships.slice(i, i + GRAPH_BATCH));
      });
    for (const [s, { space, docs }] of parts.entries()) {
      await runInSpace(space, async () => {
        for (let i = 0; i < docs.length; i += INGEST_BATCH) {
          const batch = docs.slice(i, i + INGEST_BATCH).map(scaledDocumentInput);
          for (const r of await services.documents.upsertMany(batch)) chunks += r.chunkCount;
        }
      });
      log(`  ${layout.name}: part ${s + 1}/${parts.length} in ${space}, ${chunks} chunks so far`);
    }
  } finally {
    await store.close();
  }
  await ensureHnswIndex(services.db);
  await services.db.query('ANALYZE');
  log(`  ${layout.name}: ${chunks} chunks in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return chunks;
}

/** One enrichContext in `space`, as a GraphQL query runs it (its space's declarations read first): ms and lane ms. */
async function timeEnrich(services: Services, space: string, query: string): Promise<Timing> {
  return runInSpace(space, async () => {
    const t0 = performance.now();
    await services.spaceReads.widen();
    const { timings } = await services.enricher.enrich(defaultEnrichRequest(services, query, { topK: TOP_K }));
    return { ms: performance.now() - t0, retrievalMs: timings.retrievalMs, graphMs: timings.graphMs };
  });
}

/**
 * Latency of a space-scoped enrichContext against the same call on a single-space install, both holding the same
 * corpus on the Postgres server (scratch databases, dropped at the end).
 */
export async function benchSpacesLatency(options: {
  pgServerUrl: string;
  sizes?: SpacesLatencySizes;
}): Promise<Table[]> {
  const sizes = options.sizes ?? DEFAULT_SPACES_SIZES;
  const data = loadSciFact();
  const queries = data.queries.slice(0, sizes.queries).map((q) => q.text);
  const prefix = `spbench${randomBytes(4).toString('hex')}_`;
  const names = corpusEntityNames(data.corpus, sizes.entities);
  const layouts: Layout[] = [
    { name: 'single space', spaces: [DEFAULT_SPACE] },
    { name: `${sizes.spaces} spaces`, spaces: Array.from({ length: sizes.spaces }, (_, i) => `tenant-${i}`) },
    { name: 'one tenth alone', spaces: [DEFAULT_SPACE], firstPartOnly: true },
  ];
  const opened: { services: Services; drop: () => Promise<void> }[] = [];
  try {
    const chunks: number[] = [];
    for (const layout of layouts) {
      const db = await createScratchDatabase(options.pgServerUrl);
      const config = loadConfig({
        CAIRN_DATA_DIR: 'memory://',
        CAIRN_DATABASE_URL: db.url,
        CAIRN_RAG_MAX_TOP_K: '100',
      });
      const services = await createServices(config, silentLogger(), {
        embedder: new HashingEmbeddingProvider({ dimensions: 1024 }),
        importQueue: false,
      });
      opened.push({ services, drop: () => db.drop() });
      const corpus = perturbedCorpus(data.corpus, sizes.chunks, services.config.chunking, prefix);
      log(`loading ${layout.name} …`);
      chunks.push(await load(services, layout, corpus, sizes, names, prefix));
    }
    const [single, spaced, tenth] = opened.map((o) => o.services) as [Services, Services, Services];
    const firstSpace = layouts[1]?.spaces[0] ?? DEFAULT_SPACE;
    const spaceOf = (i: number) => layouts[1]?.spaces[i % sizes.spaces] ?? DEFAULT_SPACE;
    /** Each measure: the services and the space query i runs in. */
    const measures: Record<keyof Times, [Services, (i: number) => string]> = {
      single: [single, () => DEFAULT_SPACE],
      spaced: [spaced, spaceOf],
      tenth: [tenth, () => DEFAULT_SPACE],
      firstSpace: [spaced, () => firstSpace],
    };
    const names4 = Object.keys(measures) as (keyof Times)[];
    for (const [i, q] of queries.slice(0, WARMUP).entries())
      for (const which of names4) await timeEnrich(measures[which][0], measures[which][1](i), q);
    const times: Times = { single: [], spaced: [], tenth: [], firstSpace: [] };
    for (const [i, q] of queries.entries()) {
      // Rotate which goes first, so none always meets a cache another warmed.
      for (let k = 0; k < names4.length; k++) {
        const which = names4[(i + k) % names4.length] as keyof Times;
        times[which].push(await timeEnrich(measures[which][0], measures[which][1](i), q));
      }
      if ((i + 1) % 50 === 0) log(`${i + 1}/${queries.length} queries`);
    }
    return [table(times, chunks, sizes, queries.length)];
  } finally {
    for (const o of opened) await o.services.close().catch(() => undefined);
    for (const o of opened) await o.drop().catch((err: unknown) => log(`could not drop: ${(err as Error).message}`));
  }
}

/** One call: its round trip in process, and the enricher's own lane timings. */
interface Timing {
  ms: number;
  retrievalMs: number;
  graphMs: number;
}

/** Each measure's calls, one per query. */
interface Times {
  /** The single-space install, in default. */
  single: Timing[];
  /** The install of 10 spaces, in the query's space. */
  spaced: Timing[];
  /** An install holding one tenth alone, in default. */
  tenth: Timing[];
  /** The install of 10 spaces, in the space holding that tenth. */
  firstSpace: Timing[];
}

function table(times: Times, chunks: number[], sizes: SpacesLatencySizes, queries: number): Table {
  const mean = (t: number[]) => t.reduce((a, b) => a + b, 0) / t.length;
  const ms = (t: Timing[]) => t.map((x) => x.ms);
  const row = (name: string, t: Timing[]) => [
    name,
    percentile(ms(t), 50),
    percentile(ms(t), 95),
    mean(ms(t)),
    mean(t.map((x) => x.retrievalMs)),
    mean(t.map((x) => x.graphMs)),
  ];
  const ratio = (name: string, a: Timing[], b: Timing[]) => [
    name,
    `${(percentile(ms(a), 50) / percentile(ms(b), 50)).toFixed(2)}×`,
    `${(percentile(ms(a), 95) / percentile(ms(b), 95)).toFixed(2)}×`,
    `${(mean(ms(a)) / mean(ms(b))).toFixed(2)}×`,
    `${(mean(a.map((x) => x.retrievalMs)) / mean(b.map((x) => x.retrievalMs))).toFixed(2)}×`,
    `${(mean(a.map((x) => x.graphMs)) / mean(b.map((x) => x.graphMs))).toFixed(2)}×`,
  ];
  const [all = 0, , tenth = 0] = chunks;
  return {
    title: `Spaces: enrichContext in one of ${sizes.spaces} spaces against a single-space install (${all.toLocaleString('en')} chunks, ${sizes.entities.toLocaleString('en')} entities)`,
    headers: ['install', 'p50 ms', 'p95 ms', 'mean ms', 'retrieval lane mean ms', 'graph lane mean ms'],
    rows: [
      row(`single space: all ${all.toLocaleString('en')} chunks in default`, times.single),
      row(`${sizes.spaces} spaces: the query's space (about a tenth each)`, times.spaced),
      ratio(`ratio ${sizes.spaces} spaces ÷ single space (issue's target ≤ ${TARGET})`, times.spaced, times.single),
      row(`single space holding the first tenth alone (${tenth.toLocaleString('en')} chunks)`, times.tenth),
      row(`${sizes.spaces} spaces: that tenth's space, every query`, times.firstSpace),
      ratio('ratio that space ÷ that tenth alone (the cost of sharing the tables)', times.firstSpace, times.tenth),
    ],
    notes: [
      `Machine: ${machineLine()}; Postgres 16 server (pgvector HNSW), the Postgres graph store; the three installs are scratch databases of the same server, open at once.`,
      `Corpus: the latency-at-scale corpus (SciFact copies perturbed until ${sizes.chunks.toLocaleString('en')} chunks, hashing embedder 1024-d) and its ${sizes.entities.toLocaleString('en')} most frequent distinctive terms as entities, dealt round-robin into ${sizes.spaces} parts, each with ${Math.round(sizes.relationships / sizes.spaces).toLocaleString('en')} relationships among its entities. The spaced install puts part i in its own space; the single install holds every part in default (so its documents also link the names of the other parts); the third holds part 0 alone in default.`,
      `enrichContext at the configuration defaults (topK ${TOP_K}, graphDepth 1), in process inside the request's space as the server runs it (the space's declarations read first, as every GraphQL query does); query i goes to space i mod ${sizes.spaces} in the first comparison, to part 0's space in the second; ${queries} SciFact queries after ${WARMUP} warm-up queries, the four measures rotating per query which goes first. The lane columns are the enricher's own timings (retrievalMs, graphMs; they overlap), whose ratios say which lane a difference comes from.`,
    ],
  };
}
