import type { Resolvers } from '../generated/types.js';
import { toConnection } from '../connection.js';
import { badInput } from '../../errors.js';
import { validateQueryText } from '../../retrieval/searchRequest.js';
import { toEnrichArgs } from '../inputs.js';

/** enrichContext and knowledgeGaps. */
export const enrichmentResolvers: Resolvers = {
  Query: {
    enrichContext: (_, { input }, { services }) => {
      const args = toEnrichArgs(input);
      return services.reads.run(() => services.enricher.enrich(args));
    },
    knowledgeGaps: async (_, { first, after }, { services }) => {
      const { edges, hasNextPage, totalCount } = await services.gaps.list(first, after);
      return toConnection(edges, { hasNextPage, hasPreviousPage: after != null, totalCount });
    },
  },
  Mutation: {
    recordKnowledgeGap: async (_, { query, bestScore }, { services }) => {
      const score = bestScore ?? 0;
      if (!Number.isFinite(score) || score < 0 || score > 1) throw badInput('bestScore', 'must be from 0 to 1');
      await services.gaps.recordReported(validateQueryText(query), score);
      return true;
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
