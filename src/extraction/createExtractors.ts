import type { ExtractionConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { Extractor, ExtractorName } from './types.js';

/** What extractors may need to be built. */
export interface ExtractorDeps {
  logger: Logger;
}

/** Builds one extractor from the configuration (undefined: not available in this build). */
type ExtractorFactory = (config: ExtractionConfig, deps: ExtractorDeps) => Extractor | undefined;

/**
 * The registry of extractors, in the order they run. Each slot is filled by the extractor's own module.
 */
const FACTORIES: Record<ExtractorName, ExtractorFactory> = {
  // SLOT(structural): return new StructuralExtractor(...) — headings, links, code identifiers, glossary, front matter.
  structural: () => undefined,
  // SLOT(offline): return new OfflineExtractor(...) — named entities and key terms from prose (pure JS NLP).
  offline: () => undefined,
  // SLOT(llm): return new LlmExtractor(config.llm, ...) — only when the llm extractor is configured.
  llm: () => undefined,
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
