import type { Db } from '../db/Db.js';
import {
  chunksWithoutEmbedding,
  clearChunkEmbeddings,
  countChunksByEmbedding,
  writeChunkEmbeddings,
} from '../documents/chunkEmbeddings.js';
import { embeddingText } from '../documents/embeddingText.js';
import type { EmbeddingProvider } from '../embeddings/EmbeddingProvider.js';
import {
  dropHnswIndex,
  ensureHnswIndex,
  readRecordedEmbedder,
  sameEmbedder,
  setEmbeddingColumn,
} from './vectorIndex.js';

/** Progress of a re-embed. */
export interface ReindexProgress {
  done: number;
  total: number;
}

/** Options for `reindex`. */
export interface ReindexOptions {
  batchSize?: number;
  /** Re-embed every chunk even when the recorded embedder already matches. */
  force?: boolean;
  onProgress?: (p: ReindexProgress) => void;
}

/**
 * Re-embeds chunks with `embedder` in batches. Switching embedders clears every vector first; an interrupted run
 * resumes where it stopped (chunks without a vector), so it is safe to run again.
 */
export async function reindex(
  db: Db,
  embedder: EmbeddingProvider,
  options: ReindexOptions = {},
): Promise<ReindexProgress> {
  const batchSize = options.batchSize ?? 256;
  const recorded = await readRecordedEmbedder(db);
  if (!recorded || !sameEmbedder(recorded, embedder.info)) {
    await setEmbeddingColumn(db, embedder.info);
  } else if (options.force) {
    await clearChunkEmbeddings(db);
  }
  // Building HNSW once after the load is much cheaper than maintaining it row by row.
  await dropHnswIndex(db);
  const total = await countChunksByEmbedding(db, false);
  let done = 0;
  options.onProgress?.({ done, total });
  let lastId = '0';
  for (;;) {
    const rows = await chunksWithoutEmbedding(db, lastId, batchSize);
    if (rows.length === 0) break;
    const vectors = await embedder.embed(rows.map((r) => embeddingText(r.title, r.content)));
    await writeChunkEmbeddings(
      db,
      rows.map((r) => r.id),
      vectors,
    );
    done += rows.length;
    lastId = rows.at(-1)?.id ?? lastId;
    options.onProgress?.({ done, total });
  }
  await ensureHnswIndex(db);
  return { done, total };
}
