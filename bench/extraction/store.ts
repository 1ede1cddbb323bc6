import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import type { EnrichedContextRecord } from '../../src/enrichment/types.js';
import { createServices, type Services } from '../../src/services.js';
import { defaultEnrichRequest } from '../enrichRequest.js';

/**
 * A scratch store for the extraction benchmarks: in-memory PGlite (or the server), hashing embedder. `env` overrides
 * settings, e.g. `CAIRN_DATA_DIR` keeps PGlite's data in a folder so that a later run can ask again without ingesting.
 */
export async function extractionStore(
  extractors: string,
  databaseUrl?: string,
  env: Record<string, string> = {},
): Promise<Services> {
  const config = loadConfig({
    CAIRN_DATA_DIR: 'memory://',
    CAIRN_RAG_MAX_TOP_K: '100',
    CAIRN_EXTRACTION_EXTRACTORS: extractors,
    CAIRN_EXTRACTION_POLL_MS: '50',
    // No source schedules here: the bench's stores have no sources.
    CAIRN_SOURCES_TICK_MS: '0',
    // These parts score what enrichContext returns, not how fast: a loaded machine must not cut a lane short.
    CAIRN_ENRICH_LANE_TIMEOUT_MS: '120000',
    ...env,
    ...(databaseUrl ? { CAIRN_DATABASE_URL: databaseUrl } : {}),
  });
  return createServices(config, silentLogger(), { embedder: new HashingEmbeddingProvider({ dimensions: 1024 }) });
}

/**
 * Waits until the extraction queue is empty, as a user watching `knowledgeStats` would: the worker extracts in the
 * background and the figures come from what it wrote.
 */
export async function waitForExtraction(services: Services, timeoutMs = 30 * 60_000): Promise<void> {
  const started = performance.now();
  services.extraction.nudge();
  for (;;) {
    const counts = await services.extraction.statusCounts();
    // Extracted means the names' mentions in older chunks are found too (a deferred backfill pass).
    if (counts.pending + counts.running === 0 && (await services.graph.mentionBackfillBacklog()) === 0) return;
    if (performance.now() - started > timeoutMs)
      throw new Error(`extraction did not finish: ${JSON.stringify(counts)}`);
    // Every half second: each look counts every document's state, work the figure should not include.
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Whether `text` contains `phrase`, case-insensitively and with runs of white space folded. */
export function containsPhrase(text: string, phrase: string): boolean {
  const fold = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
  return fold(text).includes(fold(phrase));
}

/** The mean of a list (0 when empty). */
export function mean(values: readonly number[]): number {
  return values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

/** enrichContext at the configured defaults, with the graph lane on, or off (maxEntities 0 and graphShare 0). */
export function askEnrich(services: Services, query: string, graph: boolean): Promise<EnrichedContextRecord> {
  return services.enricher.enrich(
    defaultEnrichRequest(services, query, graph ? {} : { maxEntities: 0, graphShare: 0 }),
  );
}
