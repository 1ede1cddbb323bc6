import { decodePair, encodePair } from '../../documents/cursor.js';
import { badInput } from '../../errors.js';
import { validateMinScore, validateQueryText } from '../../retrieval/SearchService.js';
import type { Resolvers } from '../generated/types.js';
import { toConnection } from '../connection.js';
import { intIn, toFilterSpec, toPage } from '../inputs.js';

/** enrichContext and knowledgeGaps. */
export const enrichmentResolvers: Resolvers = {
  Query: {
    enrichContext: (_, { input }, { services }) => {
      const { rag, enrich } = services.config;
      return services.enricher.enrich({
        query: validateQueryText(input.query),
        topK: Math.min(intIn(input.topK, rag.topK, 1, 1000, 'input.topK'), rag.maxTopK),
        maxEntities: intIn(input.maxEntities, enrich.maxEntities, 0, 100, 'input.maxEntities'),
        graphDepth: intIn(input.graphDepth, 1, 1, 3, 'input.graphDepth'),
        maxChars: intIn(input.maxChars, enrich.maxChars, 200, 1_000_000, 'input.maxChars'),
        filter: toFilterSpec(input.filter, 'input.filter'),
        mode: input.mode ?? undefined,
        minScore: input.minScore == null ? undefined : validateMinScore(input.minScore),
      });
    },
    knowledgeGaps: async (_, { first, after }, { services }) => {
      const page = toPage(first, null);
      const offset = after ? Number(decodePair(after)[1]) : 0;
      if (!Number.isInteger(offset) || offset < 0) throw badInput('after', 'not a cursor returned by this API');
      const { gaps, totalCount } = await services.gaps.list(page.first, offset);
      const edges = gaps.map((node, i) => ({ cursor: encodePair('gap', String(offset + i + 1)), node }));
      return toConnection(edges, { hasNextPage: offset + gaps.length < totalCount, hasPreviousPage: offset > 0, totalCount });
    },
  },
  EnrichedChunk: {
    chunk: (c) => c.hit.chunk,
    document: (c) => c.hit.document,
    score: (c) => c.hit.score,
    vectorScore: (c) => c.hit.vectorScore ?? null,
    keywordRank: (c) => c.hit.keywordRank ?? null,
  },
};
