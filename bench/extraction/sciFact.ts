import fs from 'node:fs';
import path from 'node:path';
import type { Services } from '../../src/services.js';
import { sciFactDocument, type BeirDataset } from '../datasets.js';
import { distinct, ndcgAt, percentile } from '../metrics.js';
import { machineLine, type Table } from '../report.js';
import { askEnrich, extractionStore, mean, waitForExtraction } from './store.js';

/**
 * SciFact with the graph extracted from its abstracts: the cost of extraction on ingest (time until every document is
 * searchable and extracted ÷ ingest time with extraction off, in the same run), nDCG@10 of enrichContext against
 * search on the extracted store, and enrichContext's latency with the extracted graph against the graph lane off.
 */
export async function benchSciFactExtracted(data: BeirDataset, databaseUrl?: string): Promise<Table[]> {
  const kept = process.env.CAIRN_BENCH_SCIFACT_STORE;
  if (kept && !databaseUrl && fs.existsSync(path.resolve(kept))) return askKeptStore(path.resolve(kept), data);
  // A kept folder named but not there yet: the measured ingest writes it, for later runs that only ask. The store
  // with extraction off then lives in a folder as well (and is deleted), so that both pay the same for the disk.
  const folder = kept && !databaseUrl ? path.resolve(kept) : undefined;
  // CAIRN_BENCH_SCIFACT_DOCS=<n>: the first n abstracts only; CAIRN_BENCH_EXTRACT_ROUNDS=<r>: r rounds of the two
  // arms, interleaved (off, on, off, on …), each in a fresh store, the ratio of their sums (a prefix, for iterating).
  const docs = Number(process.env.CAIRN_BENCH_SCIFACT_DOCS ?? data.corpus.length);
  const corpus = { ...data, corpus: data.corpus.slice(0, docs) };
  const rounds = folder ? 1 : Math.max(1, Number(process.env.CAIRN_BENCH_EXTRACT_ROUNDS ?? 1));
  if (rounds > 1 && databaseUrl)
    throw new Error('CAIRN_BENCH_EXTRACT_ROUNDS > 1 needs PGlite (a fresh store per round)');
  const arms = { off: 0, searchable: 0, extracted: 0 };
  let on: Services | undefined;
  try {
    for (let round = 0; round < rounds; round++) {
      arms.off += await ingestOff(corpus, databaseUrl, folder);
      await on?.close();
      on = undefined;
      on = await extractionStore('structural,offline', databaseUrl, folder ? { CAIRN_DATA_DIR: folder } : {});
      const t0 = performance.now();
      arms.searchable += await ingest(on, corpus);
      await waitForExtraction(on);
      arms.extracted += (performance.now() - t0) / 1000;
    }
    const stats = await on!.graph.stats(0);
    const store = databaseUrl ? 'Postgres server' : 'PGlite';
    const ingestTable: Table = {
      title: 'SciFact with extraction: ingest until searchable and extracted, against ingest with extraction off',
      headers: ['store', 'ingest, extraction off (s)', 'searchable (s)', 'searchable and extracted (s)', 'ratio'],
      rows: [[store, arms.off / rounds, arms.searchable / rounds, arms.extracted / rounds, arms.extracted / arms.off]],
      notes: [
        `Machine: ${machineLine()}. Hashing embedder, 1024-d; ${corpus.corpus.length} abstracts in batches of 250 through DocumentService.upsertMany; extractors structural + offline, the background worker at its default concurrency${rounds > 1 ? `; ${rounds} rounds of both arms interleaved, mean seconds per round` : ''}.`,
        `Extracted graph: ${stats.entityCount} entities, ${stats.relationshipCount} relationships.`,
      ],
    };
    // CAIRN_BENCH_EXTRACT_INGEST_ONLY=1: the ingest table alone (the queries take as long again).
    if (process.env.CAIRN_BENCH_EXTRACT_INGEST_ONLY === '1') return [ingestTable];
    return [ingestTable, await queryTable(on!, data, store)];
  } finally {
    await on?.close();
  }
}

/** Ingest time with extraction off, in a fresh store (a folder beside `folder`, deleted after, when one is kept). */
async function ingestOff(data: BeirDataset, databaseUrl?: string, folder?: string): Promise<number> {
  const offFolder = folder ? `${folder}.extraction-off` : undefined;
  const off = await extractionStore('none', databaseUrl, offFolder ? { CAIRN_DATA_DIR: offFolder } : {});
  try {
    return await ingest(off, data);
  } finally {
    await off.close();
    if (offFolder) fs.rmSync(offFolder, { recursive: true, force: true });
  }
}

/**
 * For iterating on enrichment (CAIRN_BENCH_SCIFACT_STORE=<folder>): the first run measures the ingest as a full run
 * does, into that PGlite folder; later runs only ask (CAIRN_BENCH_SCIFACT_QUERIES=<n>: the first n queries) and
 * produce the query table alone.
 */
async function askKeptStore(folder: string, data: BeirDataset): Promise<Table[]> {
  const services = await extractionStore('structural,offline', undefined, { CAIRN_DATA_DIR: folder });
  try {
    // A run stopped before the queue emptied left jobs that the worker goes on with.
    await waitForExtraction(services, 4 * 3600_000);
    const n = Number(process.env.CAIRN_BENCH_SCIFACT_QUERIES ?? data.queries.length);
    return [await queryTable(services, { ...data, queries: data.queries.slice(0, n) }, 'PGlite (kept folder)')];
  } finally {
    await services.close();
  }
}

async function queryTable(services: Services, data: BeirDataset, store: string): Promise<Table> {
  const q = await measureQueries(services, data);
  return {
    title: `SciFact with the extracted graph: enrichContext against search (${q.n} queries)`,
    headers: ['measure', 'enrichContext', 'search / graph lane off', 'difference or ratio'],
    rows: [
      ['nDCG@10 (search: as many documents, grouped)', q.enrich, q.search, q.enrich - q.search],
      [
        'enrichContext p50 ms: extracted graph / graph lane off',
        percentile(q.onMs, 50),
        percentile(q.offMs, 50),
        percentile(q.onMs, 50) / percentile(q.offMs, 50),
      ],
      [
        'enrichContext p95 ms: extracted graph / graph lane off',
        percentile(q.onMs, 95),
        percentile(q.offMs, 95),
        percentile(q.onMs, 95) / percentile(q.offMs, 95),
      ],
    ],
    notes: [
      `Machine: ${machineLine()}; ${store}, Postgres graph store. The two latencies are interleaved query by query, alternating which goes first; other work shared the cores, so the ratio is the measure.`,
      'enrichContext at its defaults; graph lane off: maxEntities 0 and graphShare 0.',
    ],
  };
}

async function ingest(services: Services, data: BeirDataset): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < data.corpus.length; i += 250)
    await services.documents.upsertMany(data.corpus.slice(i, i + 250).map(sciFactDocument));
  return (performance.now() - t0) / 1000;
}

async function measureQueries(services: Services, data: BeirDataset) {
  const enrichScores: number[] = [];
  const searchScores: number[] = [];
  const onMs: number[] = [];
  const offMs: number[] = [];
  const timed = async (query: string, graph: boolean) => {
    const t0 = performance.now();
    const result = await askEnrich(services, query, graph);
    (graph ? onMs : offMs).push(performance.now() - t0);
    return result;
  };
  for (const [i, query] of data.queries.entries()) {
    const rel = data.qrels.get(query.id);
    if (!rel) continue;
    // Which arm goes first alternates, so neither gains from the other having warmed the same query's reads.
    const [first, second] = i % 2 === 0 ? [true, false] : [false, true];
    const firstResult = await timed(query.text, first);
    const secondResult = await timed(query.text, second);
    const result = first ? firstResult : secondResult;
    const docs = result.documents.map((d) => d.id);
    const grouped = distinct(
      (await services.search.hits({ query: query.text, topK: 100, filter: {}, groupByDocument: true })).map(
        (h) => h.document.id,
      ),
    );
    enrichScores.push(ndcgAt(docs, rel, 10));
    searchScores.push(ndcgAt(grouped.slice(0, docs.length), rel, 10));
  }
  return { n: enrichScores.length, enrich: mean(enrichScores), search: mean(searchScores), onMs, offMs };
}
