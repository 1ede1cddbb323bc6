import type { Resolvers } from '../generated/types.js';
import { toConnection } from '../connection.js';
import { knowledgeGapPage, toEnrichRequest } from '../inputs.js';

/** enrichContext and knowledgeGaps. */
export const enrichmentResolvers: Resolvers = {
  Query: {
    enrichContext: (_, { input }, { services }) => services.enricher.enrich(toEnrichRequest(input, services.config)),
    knowledgeGaps: async (_, { first, after }, { services }) => {
      const { edges, ...pageInfo } = await knowledgeGapPage(services.enricher, first, after);
      return toConnection(edges, pageInfo);
    },
  },
  EnrichedChunk: {
    chunk: (c) => c.hit.chunk,
    document: (c) => c.hit.document,
    score: (c) => c.hit.score,
    vectorScore: (c) => c.hit.vectorScore ?? null,
    keywordRank: (c) => c.hit.keywordRank ?? null,
    lane: (c) => c.lane,
  },
};
