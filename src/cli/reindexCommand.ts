import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { describeEmbedder } from '../embeddings/EmbeddingProvider.js';
import { createEmbeddingProvider } from '../embeddings/createEmbeddingProvider.js';
import { reindex } from '../retrieval/reindex.js';
import { readRecordedEmbedder } from '../retrieval/vectorIndex.js';
import { createServices } from '../services.js';
import { progressReporter } from './progress.js';

/** `cairn reindex`: re-embeds every chunk with the configured embedder, in batches, showing progress. */
export async function reindexCommand(
  config: Config,
  logger: Logger,
  opts: { force: boolean; batchSize: number; json: boolean },
): Promise<number> {
  // The configured embedder must win here, so build it without the recorded one.
  const embedder = await createEmbeddingProvider(config.embedding, logger);
  const services = await createServices(config, logger, { allowEmbedderMismatch: true, embedder });
  try {
    await embedder.ready();
    const before = await readRecordedEmbedder(services.db);
    process.stderr.write(
      `Re-embedding with ${describeEmbedder(embedder.info)}${before ? ` (was ${describeEmbedder(before)})` : ''}\n`,
    );
    const report = progressReporter('chunks', opts.json);
    const result = await reindex(services.db, embedder, {
      force: opts.force,
      batchSize: opts.batchSize,
      onProgress: report,
    });
    process.stderr.write(`\nDone: ${result.done} chunks embedded.\n`);
    return 0;
  } finally {
    await services.close();
  }
}
