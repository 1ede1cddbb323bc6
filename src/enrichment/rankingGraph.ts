import { specificity } from '../graph/mentions/queryEntities.js';
import { RankGraph } from './RankGraph.js';
import { mentionFactors, relationshipWeight } from './nameEvidence.js';
import { GRAPH_RANKING, type GraphReason, type RankingInput } from './rankingTypes.js';

// The graph rankGraph walks (entities and chunks, weighted edges) and why each entity is in it.

/** A graph node's key: entities and chunks apart. */
export const E = (id: string) => `e\u0000${id}`;
export const C = (id: string) => `c\u0000${id}`;

/** The ranking's graph: relationships, the hits' mentions and the evidence edges, with what each chunk is. */
export function buildGraph(input: RankingInput, factors: ReadonlyMap<string, number>) {
  const graph = new RankGraph();
  const known = (id: string) => input.known.has(id);
  // A mention's weight: the entity's specificity, split or dropped where a name form it shares says another entity.
  const mentionWeight = (id: string, chunkId: string) =>
    specificity(input.mentionCounts.get(id)) * (factors.get(`${id}\u0000${chunkId}`) ?? 1);
  for (const r of input.relationships)
    if (known(r.fromId) && known(r.toId)) graph.link(E(r.fromId), E(r.toId), relationshipWeight(r));
  for (const h of contextChunks(input))
    for (const id of h.entityIds) if (known(id)) graph.link(C(h.chunkId), E(id), mentionWeight(id, h.chunkId));
  const similarity = new Map<string, number>();
  const home = new Set<string>();
  const documentOf = new Map<string, string>(contextChunks(input).map((h) => [h.chunkId, h.documentId]));
  for (const row of input.evidence) {
    if (!known(row.entityId)) continue;
    const weight = (row.home ? GRAPH_RANKING.homeWeight : 1) * mentionWeight(row.entityId, row.chunkId);
    graph.link(C(row.chunkId), E(row.entityId), weight);
    similarity.set(row.chunkId, row.similarity);
    documentOf.set(row.chunkId, row.documentId);
    if (row.home) home.add(`${row.entityId}\u0000${row.chunkId}`);
  }
  return { graph, similarity, home, documentOf };
}

/** The entity adjacent to a chunk that passed it the most relevance. */
export function strongestEntity(
  graph: RankGraph,
  ranks: ReadonlyMap<string, number>,
  chunkNode: string,
): string | undefined {
  let best: string | undefined;
  let bestFlow = 0;
  for (const [node, weight] of graph.neighbors(chunkNode)) {
    if (!node.startsWith('e\u0000')) continue;
    const flow = (ranks.get(node) ?? 0) * weight;
    if (flow > bestFlow) {
      bestFlow = flow;
      best = node.slice(2);
    }
  }
  return best;
}

/**
 * Why each entity is in the graph: named by the query first, then by a top chunk (not through a name form that
 * chunk's document uses for another entity, see `mentionFactors`), then as a neighbour.
 */
export function entityReasons(input: RankingInput, factors: ReadonlyMap<string, number>): Map<string, GraphReason> {
  const reasons = new Map<string, GraphReason>();
  for (const s of input.seeds) if (s.depth === 0) reasons.set(s.id, { kind: 'query', entityId: s.id, exact: s.exact });
  // A weaker hit's own page entity is no bridge: it would lead back to the page search ranked there.
  const homes = homeDocuments(input);
  const byChunks = (from: number, to: number) =>
    contextChunks(input)
      .slice(from, to)
      .forEach((h, j) => {
        for (const id of h.entityIds) {
          if (reasons.has(id) || factors.get(`${id}\u0000${h.chunkId}`) === 0) continue;
          if (from === 0 || !homes.get(id)?.has(h.documentId))
            reasons.set(id, { kind: 'chunk', entityId: id, chunkIndex: from + j });
        }
      });
  byChunks(0, input.hits.length);
  for (const s of input.seeds) {
    if (s.depth > 0 && s.seedId !== undefined && s.via && !reasons.has(s.id))
      reasons.set(s.id, { kind: 'neighbour', entityId: s.id, seedId: s.seedId, relationship: s.via, depth: s.depth });
  }
  // The weaker hits' names last: a neighbour keeps its reason (and its place among the context's entities).
  byChunks(input.hits.length, Infinity);
  return reasons;
}

/** `mentionFactors` over every chunk the ranking links to an entity, with homes read from the evidence. */
export function sharedNameFactors(input: RankingInput): Map<string, number> {
  const homes = homeDocuments(input);
  const mentions = [
    ...contextChunks(input).flatMap((h) =>
      h.entityIds.map((entityId) => ({ entityId, chunkId: h.chunkId, documentId: h.documentId })),
    ),
    ...input.evidence,
  ];
  return mentionFactors(mentions, input.names, homes);
}

/** Each entity's home documents, as the evidence read them. */
export function homeDocuments(input: RankingInput): Map<string, Set<string>> {
  const homes = new Map<string, Set<string>>();
  for (const row of input.evidence)
    if (row.home) homes.set(row.entityId, (homes.get(row.entityId) ?? new Set()).add(row.documentId));
  return homes;
}

/** The documents lane's hits, then the weaker hits: the chunks the context holds, whose entities are bridges. */
export function contextChunks(input: RankingInput): readonly {
  chunkId: string;
  documentId: string;
  entityIds: readonly string[];
}[] {
  return [...input.hits, ...(input.weaker ?? [])];
}

export function add(map: Map<string, number>, key: string, value: number): void {
  if (value > 0) map.set(key, (map.get(key) ?? 0) + value);
}
