import type { RankedSearch } from '../retrieval/SearchService.js';
import type { FusedHit } from '../retrieval/fusion.js';
import type { SearchHitRecord } from '../retrieval/types.js';
import { layOutDocuments } from './expandContext.js';
import { passesFloor } from './relevanceFloor.js';
import type { EnrichRequest, EnrichedChunkRecord } from './types.js';

/**
 * Weaker hits beyond topK are read up to maxChars / this: half a chunk (500), since many passages are shorter than a
 * chunk (short documents, a document's last chunk), so that the budget, not the count read, ends the lane.
 */
const PASSAGE_CHARS = 250;

/**
 * The ranking to load for the context: the selected hits (`chosen`, topK), then the weaker hits of the fused pool that
 * could still fill the budget (score above 0 and minScore), each with `neighbors` chunks either side read in the same
 * batched query (see `loadNeighbors`).
 */
export function widenRanking(ranked: RankedSearch, maxChars: number, neighbors: number): RankedSearch {
  const chosen = new Set(ranked.chosen.map((h) => h.chunkId));
  const room = Math.ceil(maxChars / PASSAGE_CHARS);
  const weaker = ranked.pool
    .filter((h) => !chosen.has(h.chunkId) && h.score > 0 && h.score >= ranked.request.minScore)
    .slice(0, room);
  return {
    ...ranked,
    chosen: [...ranked.chosen, ...weaker],
    request: { ...ranked.request, expandNeighbors: neighbors },
  };
}

/**
 * The loaded hits as context records: the selected ones (all kept in `chunks`, those under the relevance floor with
 * `text: null` so they are never cited), and the weaker ones that pass the floor.
 */
export function splitHits(
  hits: readonly SearchHitRecord[],
  chosen: readonly FusedHit[],
  coverage: ReadonlyMap<string, number>,
  floor: number,
): { selected: EnrichedChunkRecord[]; weaker: EnrichedChunkRecord[] } {
  const isChosen = new Set(chosen.map((h) => h.chunkId));
  const passes = passesFloor(
    hits.map((h) => ({ chunkId: h.chunk.id, score: h.score })),
    coverage,
    floor,
  );
  const selected: EnrichedChunkRecord[] = [];
  const weaker: EnrichedChunkRecord[] = [];
  hits.forEach((hit, i) => {
    const pass = passes({ chunkId: hit.chunk.id, score: hit.score });
    const record: EnrichedChunkRecord = { hit, lane: 'DOCUMENTS', why: whyChunk(hit, i), citation: null };
    if (isChosen.has(hit.chunk.id)) {
      if (!pass) Object.assign(record, { text: null, why: `${record.why}; under the relevance floor` });
      selected.push(record);
    } else if (pass) weaker.push(record);
  });
  return { selected, weaker };
}

/**
 * Replaces the documents lane's records in `chunks` (in their order, after any reordering) by their layout: passages
 * of whole sentences grown with neighbouring chunks, then weaker hits, in rank order. The budget rule: the selected
 * hits' documents (their hits, neighbours and weaker hits) may use all of `maxChars`; weaker hits of other documents
 * only `maxChars` less what graph evidence is held (see othersLaneLimit). Graph evidence follows the selected hits'
 * documents and fills what the laid-out passages leave; weaker hits of other documents come after it. So graph
 * evidence displaces weaker documents, never the text of the documents the ranking chose.
 */
export function layOutLane(
  chunks: readonly EnrichedChunkRecord[],
  weaker: readonly EnrichedChunkRecord[],
  request: EnrichRequest,
  neighbors: number,
): EnrichedChunkRecord[] {
  const docs = chunks.filter((c) => c.lane === 'DOCUMENTS');
  const selected = docs.filter((c) => c.text !== null && c.hit.score > 0);
  const layOut = (othersLimit: number) =>
    layOutDocuments(selected, weaker, { neighbors, limit: request.maxChars, othersLimit, query: request.query });
  const held = othersLaneLimit(chunks, request.maxChars, request.graphShare);
  let laid = layOut(held);
  // Evidence the passages already show is cited there and needs no room of its own: lay out again with what is left.
  const freed = othersLaneLimit(chunks, request.maxChars, request.graphShare, shownChunks(laid));
  if (freed > held) laid = layOut(freed);
  // Documents only weaker hits brought come after graph evidence (formatContext keeps their room).
  const leading = new Set(selected.map((c) => c.hit.document.id));
  const head = [...laid.filter((c) => leading.has(c.hit.document.id)), ...docs.filter((c) => !selected.includes(c))];
  const tail = laid.filter((c) => !leading.has(c.hit.document.id));
  const first = chunks.findIndex((c) => c.lane === 'DOCUMENTS');
  if (first < 0) return [...chunks, ...tail];
  return [...chunks.slice(0, first), ...head, ...chunks.slice(first).filter((c) => c.lane !== 'DOCUMENTS'), ...tail];
}

/** Whether a chunk (document id, ordinal) is in the laid-out passages. */
type Shown = (documentId: string, ordinal: number) => boolean;

function shownChunks(laid: readonly EnrichedChunkRecord[]): Shown {
  const byDoc = new Map(laid.flatMap((c) => (c.shown ? [[c.hit.document.id, c.shown] as const] : [])));
  return (id, ordinal) => byDoc.get(id)?.some(([lo, hi]) => lo <= ordinal && ordinal <= hi) ?? false;
}

/**
 * Where weaker hits of documents no selected hit brought must stop: `maxChars` less what graph evidence is held
 * (graphShare of the budget, or what its chunks need if less; evidence `shown` in the passages needs none).
 */
export function othersLaneLimit(
  chunks: readonly EnrichedChunkRecord[],
  maxChars: number,
  graphShare: number,
  shown: Shown = () => false,
): number {
  const graphNeed = chunks
    .filter((c) => c.lane === 'GRAPH' && !shown(c.hit.document.id, c.hit.chunk.ordinal))
    .reduce((sum, c) => sum + c.hit.document.title.length + c.why.length + c.hit.chunk.content.length + 16, 0);
  return maxChars - Math.min(Math.floor(Math.max(0, Math.min(1, graphShare)) * maxChars), graphNeed);
}

/** The texts the context shows, one per cited record with text (documents-lane passages and graph evidence). */
export function contextPassages(chunks: readonly EnrichedChunkRecord[]): { title: string; text: string }[] {
  return chunks.flatMap((c) => {
    if (c.citation === null) return [];
    const text = c.lane === 'DOCUMENTS' ? c.text : c.hit.chunk.content;
    return text ? [{ title: c.hit.document.title, text }] : [];
  });
}

export function whyChunk(hit: SearchHitRecord, index: number): string {
  return `rank ${index + 1} for the query (score ${hit.score.toFixed(3)})`;
}
