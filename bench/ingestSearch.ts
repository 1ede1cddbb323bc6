import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chunkText } from '../src/chunking/chunkText.js';
import { loadConfig } from '../src/config.js';
import { embeddingText } from '../src/documents/embeddingText.js';
import { HashingEmbeddingProvider } from '../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../src/logger.js';
import { createServices } from '../src/services.js';
import type { BeirDataset } from './datasets.js';
import { distinct, ndcgAt, percentile, recallAt, rssSampler } from './metrics.js';

/** Figures of one ingest + search run. */
export interface IngestSearchResult {
  target: string;
  documents: number;
  chunks: number;
  ingestSeconds: number;
  embedSeconds: number;
  docsPerSecond: number;
  chunksPerSecond: number;
  /** Total ingest time divided by embedding time alone. */
  overheadRatio: number;
  peakRssMb: number;
  searchP50Ms: number;
  searchP95Ms: number;
  ndcg10: number;
  recall100: number;
}

const DIMENSIONS = 1024;
const BATCH = 250;

/** Ingests a BEIR corpus through DocumentService and evaluates `search` on its queries. */
export async function benchIngestSearch(target: string, databaseUrl: string | undefined, data: BeirDataset): Promise<IngestSearchResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-'));
  const config = loadConfig({ CAIRN_DATA_DIR: dataDir, CAIRN_RAG_MAX_TOP_K: '100', ...(databaseUrl ? { CAIRN_DATABASE_URL: databaseUrl } : {}) });

  // Embedding alone: the same chunk texts through the same embedder, with no storage.
  const texts = data.corpus.flatMap((d) => chunkText(d.text, config.chunking).map((c) => embeddingText(d.title, c.content)));
  const probe = new HashingEmbeddingProvider({ dimensions: DIMENSIONS });
  let t0 = performance.now();
  for (let i = 0; i < texts.length; i += BATCH * 4) await probe.embed(texts.slice(i, i + BATCH * 4));
  const embedSeconds = (performance.now() - t0) / 1000;

  const services = await createServices(config, silentLogger(), { embedder: new HashingEmbeddingProvider({ dimensions: DIMENSIONS }) });
  try {
    const rss = rssSampler();
    t0 = performance.now();
    let chunks = 0;
    for (let i = 0; i < data.corpus.length; i += BATCH) {
      const batch = data.corpus.slice(i, i + BATCH).map((d) => ({
        id: d.id, title: d.title, content: d.text, documentType: 'reference' as const, source: 'scifact', tags: [], metadata: {}, expiresAt: null,
      }));
      for (const r of await services.documents.upsertMany(batch)) chunks += r.chunkCount;
    }
    const ingestSeconds = (performance.now() - t0) / 1000;
    const peakRssMb = rss.stop() / 1024 / 1024;

    const latencies: number[] = [];
    let ndcg = 0;
    let recall = 0;
    for (const q of data.queries) {
      const s = performance.now();
      const hits = await services.search.search({ query: q.text, topK: 100, filter: {} });
      latencies.push(performance.now() - s);
      const ranked = distinct(hits.map((h) => h.document.id));
      const rel = data.qrels.get(q.id) ?? new Map<string, number>();
      ndcg += ndcgAt(ranked, rel, 10);
      recall += recallAt(ranked, rel, 100);
    }
    return {
      target,
      documents: data.corpus.length,
      chunks,
      ingestSeconds,
      embedSeconds,
      docsPerSecond: data.corpus.length / ingestSeconds,
      chunksPerSecond: chunks / ingestSeconds,
      overheadRatio: ingestSeconds / embedSeconds,
      peakRssMb,
      searchP50Ms: percentile(latencies, 50),
      searchP95Ms: percentile(latencies, 95),
      ndcg10: ndcg / data.queries.length,
      recall100: recall / data.queries.length,
    };
  } finally {
    await services.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
