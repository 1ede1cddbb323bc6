import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { loadConfig } from '../src/config.js';
import { HashingEmbeddingProvider } from '../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { MAX_GRAPH_BATCH } from '../src/graph/GraphService.js';
import { DELTA_CAPS, NameCache } from '../src/graph/mentions/NameCache.js';
import { silentLogger } from '../src/logger.js';
import { createServices, type Services } from '../src/services.js';
import { createScratchDatabase } from '../test/helpers/databases.js';
import { percentile } from './metrics.js';
import { generatedEntities, typicalDocument, type GeneratedEntity } from './nameScaleData.js';
import { machineLine, type Table } from './report.js';

// Entity-name scale: what a document write costs with many entities, against few, and what the name cache (the
// Aho-Corasick automaton and the word index) costs to hold, build and update at that scale.

const SMALL = 1_000;
const LARGE = 100_000;
const WARMUP_WRITES = 5;
const WRITES = 100;
const WRITES_AFTER_CHANGE = 15;

/** Opens services over a fresh database: PGlite in a temp folder, or a scratch database on the server. */
async function openStore(serverUrl: string | undefined): Promise<{ services: Services; close(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-names-bench-'));
  const scratch = serverUrl ? await createScratchDatabase(serverUrl) : undefined;
  const config = loadConfig({
    CAIRN_DATA_DIR: dataDir,
    CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
    ...(scratch ? { CAIRN_DATABASE_URL: scratch.url } : {}),
  });
  const services = await createServices(config, silentLogger(), {
    embedder: new HashingEmbeddingProvider({ dimensions: 256 }),
  });
  return {
    services,
    async close() {
      await services.close();
      await scratch?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Records entities through the public API, in batches of `MAX_GRAPH_BATCH`. */
async function loadEntities(services: Services, entities: readonly GeneratedEntity[]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < entities.length; i += MAX_GRAPH_BATCH)
    await services.graph.upsertGraph(entities.slice(i, i + MAX_GRAPH_BATCH), []);
  return (performance.now() - started) / 1000;
}

/** Milliseconds of one `upsertDocuments` of one typical document. */
async function timedWrite(services: Services, id: string, entities: readonly GeneratedEntity[], seed: number) {
  const doc = typicalDocument(id, entities, seed);
  const started = performance.now();
  await services.documents.upsertMany([doc]);
  return performance.now() - started;
}

interface WriteFigures {
  loadSeconds: number;
  small: number[];
  large: number[];
  afterChange: number[];
}

/**
 * Write latency with LARGE entities against SMALL, on two databases of one kind open side by side; writes alternate
 * between them (and which goes first) so that load from other work falls on both alike.
 */
async function measureWrites(serverUrl: string | undefined, entities: readonly GeneratedEntity[]) {
  const small = await openStore(serverUrl);
  const large = await openStore(serverUrl);
  try {
    await loadEntities(small.services, entities.slice(0, SMALL));
    const loadSeconds = await loadEntities(large.services, entities);
    const figures: WriteFigures = { loadSeconds, small: [], large: [], afterChange: [] };
    const few = entities.slice(0, SMALL);
    for (let i = 0; i < WARMUP_WRITES + WRITES; i++) {
      const order = i % 2 === 0 ? ([small, large] as const) : ([large, small] as const);
      for (const store of order) {
        const ms = await timedWrite(store.services, `doc:${i}`, store === small ? few : entities, i);
        if (i >= WARMUP_WRITES) (store === small ? figures.small : figures.large).push(ms);
      }
    }
    // A write right after a name changed reads only the changed name and updates the cached automaton.
    for (let i = 0; i < WRITES_AFTER_CHANGE; i++) {
      const e = entities[i] as GeneratedEntity;
      await large.services.graph.upsertGraph([{ ...e, aliases: [...e.aliases, `${e.name} Group`] }], []);
      figures.afterChange.push(await timedWrite(large.services, `doc:changed:${i}`, entities, 1000 + i));
    }
    return figures;
  } finally {
    await small.close();
    await large.close();
  }
}

const gc = (() => {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
})();
const heapBytes = () => {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};

/** Median milliseconds of `fn` over `runs` runs. */
function medianMs(runs: number, fn: (run: number) => void): number {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    fn(run);
    times.push(performance.now() - started);
  }
  return percentile(times, 50);
}

/** Memory and build time of the name cache over every name, and the cost of applying changes to it. */
export function measureNameCache(entities: readonly GeneratedEntity[]): Table {
  const names = entities.map((e) => ({ entityId: e.id, name: e.name, aliases: e.aliases }));
  const before = heapBytes();
  let cache = new NameCache(names);
  const bytes = heapBytes() - before;
  const buildMs = medianMs(3, () => {
    cache = new NameCache(names);
  });
  const renamed = (i: number) => {
    const n = names[i] as (typeof names)[number];
    return { entityId: n.entityId, name: { ...n, aliases: [...n.aliases, `${n.name} Trust`] } };
  };
  // One change at a time, as name writes come: the newest delta is rebuilt each time, the older one now and then,
  // and the change that overflows the oldest builds the main automaton again (the merge).
  const single: number[] = [];
  let mergeMs = Number.NaN;
  const limit = DELTA_CAPS.reduce((a, b) => a + b, 0) + 2;
  for (let i = 0; i < limit && Number.isNaN(mergeMs); i++) {
    const builds = cache.stats().builds;
    const started = performance.now();
    cache.apply([renamed(i)]);
    const ms = performance.now() - started;
    if (cache.stats().builds > builds) mergeMs = ms;
    else single.push(ms);
  }
  const deletions = names.slice(50_000, 50_100).map((n) => ({ entityId: n.entityId, name: undefined }));
  const deleteMs = medianMs(1, () => cache.apply(deletions));
  const text = typicalDocument('d', entities, 7).content;
  const matchMs = medianMs(200, () => cache.matchesIn(text));
  return {
    title: 'Entity names at scale: the name cache',
    headers: [
      'names',
      'memory MB',
      'full build ms',
      'apply 1 change ms p50',
      'p95',
      'apply 100 deletions ms',
      'merge into main ms',
      'match a 2 KB text ms (p50)',
    ],
    rows: [
      [
        names.length,
        bytes / 2 ** 20,
        buildMs,
        percentile(single, 50),
        percentile(single, 95),
        deleteMs,
        mergeMs,
        matchMs,
      ],
    ],
    notes: [
      machineLine(),
      'The cache: the Aho-Corasick automaton over every name, alias and bare form plus the word index for partial query matches. Memory: heap + external after GC.',
      `Changes go to delta automata (caps ${DELTA_CAPS.join(', ')}, oldest first); apply 1 change: ${single.length} single changes in a row (renames); merge: the next one, past the caps, which builds the main automaton again; then 100 deletions in one batch.`,
    ],
  };
}

/** Write latency at LARGE entities ÷ at SMALL per database, and the name cache's costs at LARGE. */
export async function benchNameScale(options: { serverUrl?: string }): Promise<Table[]> {
  const entities = generatedEntities(LARGE);
  const rows: (string | number)[][] = [];
  const stores: [string, string | undefined][] = [['PGlite', undefined]];
  if (options.serverUrl) stores.push(['Postgres', options.serverUrl]);
  for (const [name, url] of stores) {
    console.log(`  ${name}: ${SMALL} and ${LARGE} entities …`);
    const f = await measureWrites(url, entities);
    const p50 = (xs: number[]) => percentile(xs, 50);
    const p95 = (xs: number[]) => percentile(xs, 95);
    rows.push([
      name,
      f.loadSeconds,
      p50(f.small),
      p95(f.small),
      p50(f.large),
      p95(f.large),
      p50(f.large) / p50(f.small),
      p95(f.large) / p95(f.small),
      p50(f.afterChange),
    ]);
  }
  return [
    {
      title: 'Entity names at scale: document write latency',
      headers: [
        'database',
        `load ${LARGE} entities s`,
        `p50 ms @${SMALL}`,
        `p95 ms @${SMALL}`,
        `p50 ms @${LARGE}`,
        `p95 ms @${LARGE}`,
        'p50 ratio (target ≤ 1.2)',
        'p95 ratio',
        `p50 ms @${LARGE} after a name change`,
      ],
      rows,
      notes: [
        machineLine(),
        `One upsertDocuments of a ~2 KB document naming 6 entities (hashing embedder 256-d), ${WRITES} writes per size after ${WARMUP_WRITES} warm-up, the two databases alternating. Entities: generated multi-word names through upsertGraph in batches of ${MAX_GRAPH_BATCH}.`,
        'After a name change: another entity gets an alias through upsertGraph, then one write (which reads the changed name and updates the cached automaton).',
      ],
    },
    measureNameCache(entities),
  ];
}
