import type { EnrichedChunkRecord } from './types.js';

/**
 * The cited documents as a ranking: the homes of entities the query names first, then the documents lane's documents
 * in grouped search's order (its weaker hits too), then the documents graph evidence brought, each group in citation
 * order. The context may cite graph evidence before weaker hits (next to the chunk it came through); as a ranking,
 * evidence reached through the graph follows what the query matched directly.
 */
export function rankedDocuments(
  cited: readonly EnrichedChunkRecord[],
  namedHomes: readonly string[],
): EnrichedChunkRecord['hit']['document'][] {
  const homes = new Set(namedHomes);
  const group = (c: EnrichedChunkRecord) => (homes.has(c.hit.document.id) ? 0 : c.lane === 'DOCUMENTS' ? 1 : 2);
  const ranked = cited.map((c, i) => ({ c, i })).sort((a, b) => group(a.c) - group(b.c) || a.i - b.i);
  const seen = new Set<string>();
  return ranked.flatMap(({ c }) =>
    seen.has(c.hit.document.id) ? [] : (seen.add(c.hit.document.id), [c.hit.document]),
  );
}
