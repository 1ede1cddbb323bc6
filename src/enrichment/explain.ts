import type { EntityRecord } from '../graph/types.js';
import type { SearchHitRecord } from '../retrieval/types.js';
import type { GraphChunk, GraphReason } from './graphRanking.js';
import type { GraphStepResult } from './GraphLane.js';
import type { EnrichedChunkRecord, EnrichedEntityRecord } from './types.js';

/** The ranked entities that have a record, best first, each with why it is there and its depth. */
export function describeEntities(
  step: GraphStepResult,
  hits: readonly (SearchHitRecord | undefined)[],
): EnrichedEntityRecord[] {
  const top = Math.max(0, ...step.entities.map((e) => e.score));
  return step.entities.flatMap(({ id, score, reason }) => {
    const entity = step.records.get(id);
    if (!entity) return [];
    const depth = reason.kind === 'neighbour' ? reason.depth : 0;
    return [{ entity, why: whyEntity(reason, step.records, hits), depth, score: top > 0 ? score / top : 0 }];
  });
}

function whyEntity(
  reason: GraphReason,
  records: ReadonlyMap<string, EntityRecord>,
  hits: readonly (SearchHitRecord | undefined)[],
): string {
  switch (reason.kind) {
    case 'query':
      return reason.exact ? 'matched in the query' : 'name similar to the query';
    case 'chunk':
      return `mentioned by chunk ${reason.chunkIndex + 1} ("${hits[reason.chunkIndex]?.document.title ?? ''}")`;
    case 'neighbour':
      return `neighbour of ${records.get(reason.seedId)?.name ?? reason.seedId} through ${reason.relationship.type} at depth ${reason.depth}`;
  }
}

/**
 * Why a graph evidence chunk is in the context, naming the entity that led to it: "via entity X, named in the query",
 * "via entity X, mentioned in {cite}" (the documents-lane chunk that names X; `formatContext` fills in its citation), or
 * "via entity X, neighbour of Y through T". A home document ("the X page") says so.
 */
export function whyEvidence(
  chunk: GraphChunk,
  records: ReadonlyMap<string, EntityRecord>,
): { why: string; viaIndex?: number } {
  const reason = chunk.reason;
  const name = records.get(reason.entityId)?.name ?? reason.entityId;
  const what = chunk.home ? `the document of entity ${name}` : `via entity ${name}`;
  switch (reason.kind) {
    case 'query':
      return { why: `${what}, ${reason.exact ? 'named in the query' : 'whose name is similar to the query'}` };
    case 'chunk':
      return { why: `${what}, mentioned in {cite}`, viaIndex: reason.chunkIndex };
    case 'neighbour':
      return {
        why: `${what}, neighbour of ${records.get(reason.seedId)?.name ?? reason.seedId} via ${reason.relationship.type}`,
      };
  }
}

/**
 * Points each graph chunk's `via` at the laid-out passage of the same document (layout copies records), so that its
 * reason cites the passage that names its entity, a weaker hit's included.
 */
export function relinkVia(chunks: EnrichedChunkRecord[]): EnrichedChunkRecord[] {
  const passages = new Map<string, EnrichedChunkRecord>();
  for (const c of chunks)
    if (c.lane === 'DOCUMENTS' && !passages.has(c.hit.document.id)) passages.set(c.hit.document.id, c);
  for (const c of chunks) {
    const passage = c.via ? passages.get(c.via.chunk.hit.document.id) : undefined;
    if (c.via && passage) c.via = { ...c.via, chunk: passage };
  }
  return chunks;
}
