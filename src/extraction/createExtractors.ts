import type { ExtractionConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { LlmExtractor } from './llm/index.js';
import { OfflineExtractor } from './offline/offlineExtractor.js';
import { StructuralExtractor } from './structural/index.js';
import type { Extractor, ExtractorName } from './types.js';

/** What extractors may need to be built. */
export interface ExtractorDeps {
  logger: Logger;
}

/** Builds one extractor from the configuration (undefined: not available in this build). */
type ExtractorFactory = (config: ExtractionConfig, deps: ExtractorDeps) => Extractor | undefined;

/**
 * The registry of extractors, in the order they run.
 */
const FACTORIES: Record<ExtractorName, ExtractorFactory> = {
  structural: () => new StructuralExtractor(),
  offline: () => new OfflineExtractor(),
  // Only with a model: without one an extractGraph request naming llm is refused (CAIRN_EXTRACTION_LLM_MODEL).
  llm: (config, deps) => (config.llm.model ? new LlmExtractor({ config: config.llm, logger: deps.logger }) : undefined),
};

/**
 * Every extractor this build can run, whether configured or not (an extractGraph request may name any of them);
 * `config.extractors` decides which run on every document write.
 */
export function createExtractors(config: ExtractionConfig, deps: ExtractorDeps): Extractor[] {
  return (Object.keys(FACTORIES) as ExtractorName[]).flatMap((name) => {
    const extractor = FACTORIES[name](config, deps);
    return extractor ? [extractor] : [];
  });
}
