import type { Resolvers } from '../generated/types.js';
import { toFilterSpec } from '../inputs.js';

/** Search and statistics. */
export const searchResolvers: Resolvers = {
  Query: {
    search: (_, { input }, { services }) => {
      const request = {
        query: input.query,
        topK: input.topK,
        minScore: input.minScore,
        filter: toFilterSpec(input.filter, 'input.filter'),
        mode: input.mode,
        fusion: input.fusion,
        vectorWeight: input.vectorWeight,
        groupByDocument: input.groupByDocument,
        expandNeighbors: input.expandNeighbors,
      };
      return services.reads.run(() => services.search.hits(request));
    },
    knowledgeStats: async (_, __, { services }) => ({
      ...(await services.documents.stats()),
      embedder: services.embedder.info,
      extraction: await services.extraction.statusCounts(),
    }),
  },
};
