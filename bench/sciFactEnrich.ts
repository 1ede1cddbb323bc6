import { loadConfig, type Config } from '../src/config.js';
import { HashingEmbeddingProvider } from '../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../src/logger.js';
import { createServices, type Services } from '../src/services.js';
import { corpusEntityNames } from './graphData.js';
import { sciFactDocument, type BeirDataset } from './datasets.js';
import { distinct, ndcgAt, percentile } from './metrics.js';
import { machineLine, type Table } from './report.js';
import { namedGraph } from './syntheticCorpus.js';

/**
 * Single-hop questions the graph cannot help: SciFact with 2,000 corpus terms as entities (linked by mentions) and
 * 10,000 relationships among them. nDCG@10 of what enrichContext returns (its `documents`, in order) against search's
 * documents, with a budget large enough for every chunk and with the default budget (search then given as many
 * documents as enrichContext returned).
 */
export async function benchSciFactEnrich(data: BeirDataset, databaseUrl?: string): Promise<Table[]> {
  const config = loadConfig({
    CAIRN_DATA_DIR: 'memory://',
    CAIRN_RAG_MAX_TOP_K: '100',
    ...(databaseUrl ? { CAIRN_DATABASE_URL: databaseUrl } : {}),
  });
  const services = await createServices(config, silentLogger(), {
    embedder: new HashingEmbeddingProvider({ dimensions: 1024 }),
  });
  try {
    await loadCorpusAndGraph(services, data);
    const { timings, sums } = await measureQueries(services, data);
    return [latencyTable(timings), qualityTable(sums, config.enrich, databaseUrl)];
  } finally {
    await services.close();
  }
}

/** The 2,000 term entities and 10,000 relationships first, then the documents, so each write links its mentions. */
async function loadCorpusAndGraph(services: Services, data: BeirDataset): Promise<void> {
  const graph = namedGraph(corpusEntityNames(data.corpus, 2_000), 10_000, 'sf:');
  await services.graph.upsertGraph(graph.entities, []);
  for (let i = 0; i < graph.relationships.length; i += 5000)
    await services.graph.upsertGraph([], graph.relationships.slice(i, i + 5000));
  for (let i = 0; i < data.corpus.length; i += 250) {
    await services.documents.upsertMany(data.corpus.slice(i, i + 250).map(sciFactDocument));
  }
}

interface Timings {
  full: number[];
  noEvidence: number[];
}

interface Sums {
  enrichWide: number;
  searchSame: number;
  searchWide: number;
  enrichDefault: number;
  searchDefault: number;
  graphDocs: number;
  n: number;
}

/** Per judged query: enrichContext with a wide and the default budget (timed with and without evidence), and search. */
async function measureQueries(services: Services, data: BeirDataset): Promise<{ timings: Timings; sums: Sums }> {
  const { enrich } = services.config;
  const timings: Timings = { full: [], noEvidence: [] };
  const sums: Sums = {
    enrichWide: 0,
    searchSame: 0,
    searchWide: 0,
    enrichDefault: 0,
    searchDefault: 0,
    graphDocs: 0,
    n: 0,
  };
  for (const q of data.queries) {
    const rel = data.qrels.get(q.id);
    if (!rel) continue;
    const ask = (maxChars: number, graphShare = enrich.graphShare) =>
      services.enricher.enrich({
        query: q.text,
        topK: 10,
        maxEntities: enrich.maxEntities,
        graphDepth: 1,
        maxChars,
        filter: {},
        mode: undefined,
        graphShare,
      });
    const wide = (await ask(1_000_000)).documents.map((d) => d.id);
    const t0 = performance.now();
    const byDefault = await ask(enrich.maxChars);
    const t1 = performance.now();
    await ask(enrich.maxChars, 0);
    timings.full.push(t1 - t0);
    timings.noEvidence.push(performance.now() - t1);
    const defaultDocs = byDefault.documents.map((d) => d.id);
    const sameRequest = distinct(
      (await services.search.hits({ query: q.text, topK: 10, filter: {} })).map((h) => h.document.id),
    );
    const searched = distinct(
      (await services.search.hits({ query: q.text, topK: 100, filter: {}, groupByDocument: true })).map(
        (h) => h.document.id,
      ),
    );
    sums.enrichWide += ndcgAt(wide, rel, 10);
    sums.searchSame += ndcgAt(sameRequest, rel, 10);
    sums.searchWide += ndcgAt(searched.slice(0, wide.length), rel, 10);
    sums.enrichDefault += ndcgAt(defaultDocs, rel, 10);
    sums.searchDefault += ndcgAt(searched.slice(0, defaultDocs.length), rel, 10);
    sums.graphDocs += byDefault.chunks.filter((c) => c.lane === 'GRAPH' && c.citation !== null).length;
    sums.n++;
  }
  return { timings, sums };
}

function latencyTable(timings: Timings): Table {
  return {
    title: 'SciFact through enrichContext: what graph evidence costs (in process, the same queries interleaved)',
    headers: ['enrichContext', 'p50 ms', 'p95 ms', 'mean ms'],
    rows: [
      ['default (graph evidence on)', percentile(timings.full, 50), percentile(timings.full, 95), mean(timings.full)],
      [
        'graphShare 0 (no evidence read)',
        percentile(timings.noEvidence, 50),
        percentile(timings.noEvidence, 95),
        mean(timings.noEvidence),
      ],
      [
        'ratio',
        percentile(timings.full, 50) / percentile(timings.noEvidence, 50),
        percentile(timings.full, 95) / percentile(timings.noEvidence, 95),
        mean(timings.full) / mean(timings.noEvidence),
      ],
    ],
    notes: [
      `Machine: ${machineLine()}; other work shared the cores, so absolute times are noisy and the ratio is the measure.`,
    ],
  };
}

function qualityTable(sums: Sums, enrich: Config['enrich'], databaseUrl: string | undefined): Table {
  const n = Math.max(1, sums.n);
  return {
    title: `SciFact through enrichContext: nDCG@10 of its documents against search (${sums.n} queries, 2,000 term entities, 10,000 relationships)`,
    headers: ['budget', 'enrichContext', 'search', 'enrichContext − search', 'graph documents per query'],
    rows: [
      [
        'maxChars 1,000,000 (search: the same request, topK 10 chunks)',
        sums.enrichWide / n,
        sums.searchSame / n,
        (sums.enrichWide - sums.searchSame) / n,
        '',
      ],
      [
        'maxChars 1,000,000 (search: as many documents, grouped)',
        sums.enrichWide / n,
        sums.searchWide / n,
        (sums.enrichWide - sums.searchWide) / n,
        '',
      ],
      [
        `default maxChars ${enrich.maxChars} (search: as many documents)`,
        sums.enrichDefault / n,
        sums.searchDefault / n,
        (sums.enrichDefault - sums.searchDefault) / n,
        sums.graphDocs / n,
      ],
    ],
    notes: [
      "Grouped search ranks documents, while enrichContext's documents lane (like search without grouping) ranks topK chunks, several of which may share a document; the graph only adds documents after that lane.",
      `Machine: ${machineLine()}. Hashing embedder, 1024-d, HYBRID; ${databaseUrl ? 'Postgres server' : 'PGlite'}, Postgres graph store; graphShare ${enrich.graphShare}.`,
    ],
  };
}

function mean(values: readonly number[]): number {
  return values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}
