import type { FusedHit } from '../retrieval/fusion.js';
import type { RankedSearch } from '../retrieval/SearchService.js';
import type { SearchArgs } from '../retrieval/searchRequest.js';

/**
 * The search the documents lane runs: grouped by document, so it ranks pages exactly as `search` with
 * `groupByDocument` does (each page by its best chunk, the lanes ranked as deep as grouping needs).
 */
export function documentsLaneSearch(args: SearchArgs): SearchArgs {
  return { ...args, groupByDocument: true };
}

/**
 * The documents lane's chunks, from a grouped ranking (see `documentsLaneSearch`): first the best chunk of each of the
 * `topK` best documents, in the grouped order, then the other chunks among the `topK` best chunks overall (all of them
 * belong to those documents), best first. So the lane's documents, in order, are grouped search's, however many of the
 * best chunks one page holds, and the lane still carries every chunk an ungrouped search would have returned.
 * `chosen` of the result is this list; the rest of the ranking is unchanged.
 */
export function documentsLaneChunks(ranked: RankedSearch): RankedSearch {
  const { topK, minScore } = ranked.request;
  const leaders = ranked.chosen;
  const taken = new Set(leaders.map((h) => h.chunkId));
  const documents = new Set(leaders.map((h) => h.documentId));
  const followers: FusedHit[] = [];
  for (const h of ranked.pool.slice(0, topK)) {
    if (h.score < minScore) break;
    if (!taken.has(h.chunkId) && documents.has(h.documentId)) followers.push(h);
  }
  return { ...ranked, chosen: [...leaders, ...followers] };
}
