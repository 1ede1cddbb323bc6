import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chunkText } from '../src/chunking/chunkText.js';
import { loadConfig } from '../src/config.js';
import { embeddingText } from '../src/documents/embeddingText.js';
import type { EmbeddingProvider, EmbeddingProviderName } from '../src/embeddings/EmbeddingProvider.js';
import { silentLogger } from '../src/logger.js';
import { withBulkLoad } from '../src/retrieval/BulkLoad.js';
import { hnswExpression, usesHnsw } from '../src/retrieval/vectorIndex.js';
import type { Db } from '../src/db/Db.js';
import { createServices } from '../src/services.js';
import { sciFactDocument, type BeirDataset } from './datasets.js';
import { rssSampler } from './metrics.js';
import { evaluateModes, type ModeResult } from './modes.js';

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
  /** Seconds the database alone needs to store the same rows again (see `storageFloorSeconds`). */
  floorSeconds: number;
  peakRssMb: number;
  /** Search latency of the default mode at topK 10. */
  searchP50Ms: number;
  searchP95Ms: number;
  /** Quality of the default mode at topK 100. */
  ndcg10: number;
  recall100: number;
  /** Every mode evaluated on the same ingested store. */
  modes: ModeResult[];
}

const BATCH = 250;

/** An embedder the SciFact tables are measured with; each table names its embedder by `label`. */
export interface BenchEmbedder {
  label: string;
  /** Its provider, which picks the default HYBRID weights (`defaultVectorWeight`). */
  provider: EmbeddingProviderName;
  create(): EmbeddingProvider;
}

/** Seconds to embed every chunk text of the corpus (as ingest chunks it) with no storage; model loading is not counted. */
export async function embedOnlySeconds(embedder: BenchEmbedder, data: BeirDataset): Promise<number> {
  const { chunking } = loadConfig({});
  const texts = data.corpus.flatMap((d) => chunkText(d.text, chunking).map((c) => embeddingText(d.title, c.content)));
  const provider = embedder.create();
  try {
    await provider.ready();
    const t0 = performance.now();
    for (let i = 0; i < texts.length; i += BATCH * 4) await provider.embed(texts.slice(i, i + BATCH * 4));
    return (performance.now() - t0) / 1000;
  } finally {
    await provider.close?.();
  }
}

/**
 * Ingests a BEIR corpus through DocumentService once, then evaluates `search` in every mode on its queries;
 * `embedSeconds` (from `embedOnlySeconds`) is the denominator of the ingest/embed ratio.
 */
export async function benchIngestSearch(
  target: string,
  databaseUrl: string | undefined,
  data: BeirDataset,
  embedder: BenchEmbedder,
  embedSeconds: number,
): Promise<IngestSearchResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-'));
  const config = loadConfig({
    CAIRN_DATA_DIR: dataDir,
    CAIRN_RAG_MAX_TOP_K: '100',
    ...(databaseUrl ? { CAIRN_DATABASE_URL: databaseUrl } : {}),
  });
  const services = await createServices(config, silentLogger(), { embedder: embedder.create() });
  try {
    const rss = rssSampler();
    const t0 = performance.now();
    let chunks = 0;
    // As an import job does: one bulk session, which on a server drops HNSW for the load and rebuilds it at the end.
    await withBulkLoad(services.db, async (bulk) => {
      for (let i = 0; i < data.corpus.length; i += BATCH) {
        const batch = data.corpus.slice(i, i + BATCH).map(sciFactDocument);
        for (const r of await services.documents.upsertMany(batch)) chunks += r.embeddedChunkCount;
        await bulk.progress(chunks, Math.min(1, (i + BATCH) / data.corpus.length));
      }
    });
    const ingestSeconds = (performance.now() - t0) / 1000;
    const peakRssMb = rss.stop() / 1024 / 1024;
    const floorSeconds = await storageFloorSeconds(services.db, embedder.create().dimensions);

    const modes = await evaluateModes(services.search, data);
    const byDefault = modes.find((m) => m.isDefault);
    if (!byDefault) throw new Error('no evaluated mode is the default one');
    return {
      target,
      documents: data.corpus.length,
      chunks,
      ingestSeconds,
      embedSeconds,
      docsPerSecond: data.corpus.length / ingestSeconds,
      chunksPerSecond: chunks / ingestSeconds,
      overheadRatio: ingestSeconds / embedSeconds,
      floorSeconds,
      peakRssMb,
      searchP50Ms: byDefault.p50Ms,
      searchP95Ms: byDefault.p95Ms,
      ndcg10: byDefault.ndcg10,
      recall100: byDefault.recall100,
      modes,
    };
  } finally {
    await services.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * A lower bound for any store of these chunks: seconds for the database itself to copy the stored rows (content,
 * vectors and the content's tsvector, which issue #2 asks for) into a new unlogged table with no constraint, trigger
 * or other index, plus, where search uses one, building the HNSW index #2 asks for over them. No client transfer, no
 * WAL, no keyword index: nothing an ingest could skip.
 */
async function storageFloorSeconds(db: Db, dimensions: number): Promise<number> {
  await db.exec('DROP TABLE IF EXISTS bench_storage_floor');
  const t0 = performance.now();
  await db.exec(`CREATE UNLOGGED TABLE bench_storage_floor AS
                   SELECT document_id, ordinal, content, embedding, to_tsvector('english', content) AS keywords FROM chunks`);
  const index = usesHnsw(db) ? hnswExpression(dimensions) : undefined;
  if (index)
    await db.exec(`CREATE INDEX ON bench_storage_floor USING hnsw (${index.of('embedding')} ${index.opclass})`);
  const seconds = (performance.now() - t0) / 1000;
  await db.exec('DROP TABLE bench_storage_floor');
  return seconds;
}
