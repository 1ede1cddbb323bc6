import type { EnrichArgs } from '../src/enrichment/enrichRequest.js';
import type { Services } from '../src/services.js';

/** An enrichContext request at the configured defaults (the GraphQL resolver's), with `overrides` on top. */
export function defaultEnrichRequest(
  services: Services,
  query: string,
  overrides: Partial<EnrichArgs> = {},
): EnrichArgs {
  const { enrich, rag } = services.config;
  return {
    query,
    topK: rag.topK,
    maxEntities: enrich.maxEntities,
    graphDepth: 1,
    maxChars: enrich.maxChars,
    filter: {},
    mode: undefined,
    graphShare: enrich.graphShare,
    ...overrides,
  };
}
