import { decodeGapCursor, encodeGapCursor } from '../../enrichment/knowledgeGapRepository.js';
import { validateMinScore, validateQueryText } from '../../retrieval/SearchService.js';
import type { Resolvers } from '../generated/types.js';
import { toConnection } from '../connection.js';
import { intIn, toFilterSpec, toPage } from '../inputs.js';
import { badInput } from '../../errors.js';

function shareIn(value: number, field: string): number {
  if (!Number.isFinite(value) || value < 0 || value > 1) throw badInput(field, 'must be between 0 and 1');
  return value;
}

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
        graphShare: input.graphShare == null ? enrich.graphShare : shareIn(input.graphShare, 'input.graphShare'),
      });
    },
    knowledgeGaps: async (_, { first, after }, { services }) => {
      const page = toPage(first, null);
      const from = after ? decodeGapCursor(after) : { asOf: new Date(), position: undefined };
      const { gaps, totalCount } = await services.gaps.list(page.first + 1, from.asOf, from.position);
      const edges = gaps.slice(0, page.first).map((node) => ({ cursor: encodeGapCursor(from.asOf, node.position), node }));
      return toConnection(edges, { hasNextPage: gaps.length > page.first, hasPreviousPage: after != null, totalCount });
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
