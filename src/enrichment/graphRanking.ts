import { NAME_EVIDENCE, leadsSpecifically, namesSpecifically } from './nameEvidence.js';
import { buildGraph, C, E, add, entityReasons, sharedNameFactors, strongestEntity } from './rankingGraph.js';
import {
  GRAPH_RANKING,
  type GraphChunk,
  type GraphReason,
  type RankingInput,
  type RankingResult,
  type SeedEntity,
} from './rankingTypes.js';

export {
  GRAPH_RANKING,
  type GraphChunk,
  type GraphReason,
  type RankingInput,
  type RankingResult,
  type SeedEntity,
} from './rankingTypes.js';

/** Entities named by the query whose home documents are brought first. */
const NAMED_HOME_SEEDS = 2;

/**
 * Ranks entities and evidence chunks by personalized PageRank over a bounded graph of entities and chunks, the way
 * HippoRAG does without an LLM: the walk restarts at the entities the query names (by their match score) and at the
 * chunks the documents lane found (by their search score), and spreads over relationships and mentions. Chunk→entity
 * edges weigh by the entity's specificity, so a name mentioned everywhere passes little relevance on. The chunks of a
 * bridge entity (named by a top chunk, not by the query) are how the second hop of a question is reached.
 */
export function rankGraph(input: RankingInput): RankingResult {
  const known = (id: string) => input.known.has(id);
  const factors = sharedNameFactors(input);
  const { graph, similarity, home, documentOf } = buildGraph(input, factors);

  const personalization = new Map<string, number>();
  const seeds = input.seeds.filter((s) => s.depth === 0 && known(s.id));
  const seedTotal = seeds.reduce((sum, s) => sum + s.score, 0);
  const chunkPrior = [
    ...input.hits.map((h) => ({ chunkId: h.chunkId, score: h.score })),
    ...input.pool.slice(0, GRAPH_RANKING.poolPrior),
  ];
  const chunkTotal = chunkPrior.reduce((sum, h) => sum + h.score, 0);
  const seedShare = seedTotal > 0 ? (chunkTotal > 0 ? GRAPH_RANKING.seedShare : 1) : 0;
  for (const s of seeds) add(personalization, E(s.id), (seedShare * s.score) / seedTotal);
  const seen = new Set<string>();
  for (const h of chunkPrior) {
    if (seen.has(h.chunkId)) continue;
    seen.add(h.chunkId);
    graph.node(C(h.chunkId));
    add(personalization, C(h.chunkId), ((1 - seedShare) * h.score) / chunkTotal);
  }
  const ranks = graph.personalizedPageRank(personalization, GRAPH_RANKING);

  const reasons = entityReasons(input, factors);
  // A weaker hit's names are bridges to evidence, not the context's entities: those stay the query's and the hits'.
  const listed = (id: string) => {
    const r = reasons.get(id);
    return !(r?.kind === 'chunk' && r.chunkIndex >= input.hits.length);
  };
  const entities = [...reasons.keys()]
    .filter((id) => known(id) && listed(id))
    .map((id) => ({ id, score: ranks.get(E(id)) ?? 0, reason: reasons.get(id) as GraphReason }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));

  const laneDocuments = new Set(input.hits.map((h) => h.documentId));
  // A chunk that merely mentions an entity must be as close to the query as the documents lane's weakest chunk, or it
  // would only displace what search ranked next; an entity's home document needs no such proof.
  const laneSimilarities = input.hits.flatMap((h) => (h.similarity === null ? [] : [h.similarity]));
  const mentionFloor = laneSimilarities.length > 0 ? Math.min(...laneSimilarities) : Infinity;
  const specific = specificSeeds(input);
  // A generic term ("cells", "patients") reaches arbitrary documents: evidence it leads to must be among those search
  // itself ranks right after the lane's.
  const nextDocuments = searchNextDocuments(input, laneDocuments);
  const candidates: GraphChunk[] = [];
  for (const [chunkId, documentId] of documentOf) {
    if (laneDocuments.has(documentId) || !similarity.has(chunkId)) continue;
    const via = strongestEntity(graph, ranks, C(chunkId));
    const reason = via ? reasons.get(via) : undefined;
    if (!via || !reason) continue;
    const sim = similarity.get(chunkId) ?? 0;
    if (!nextDocuments.has(documentId)) {
      if (!queryEntityLeads(input, via)) continue;
      // A neighbour is as specific as the query entity it was reached from: a generic one ("long-term", a name the
      // query shares only some words with) neighbours arbitrary pages (every paper that defines it).
      if (reason.kind === 'neighbour' && !queryEntityLeads(input, reason.seedId)) continue;
      const isHome =
        home.has(`${via}\u0000${chunkId}`) ||
        [...graph.neighbors(C(chunkId))].some(([node]) => home.has(`${node.slice(2)}\u0000${chunkId}`));
      if (!isHome && sim < mentionFloor && !rareBridge(input, reason)) continue;
    }
    const score =
      (ranks.get(C(chunkId)) ?? 0) *
      (1 - GRAPH_RANKING.similarityWeight + GRAPH_RANKING.similarityWeight * Math.max(0, sim));
    candidates.push({
      chunkId,
      documentId,
      score,
      similarity: sim,
      home: home.has(`${via}\u0000${chunkId}`),
      reason: { ...reason, entityId: via } as GraphReason,
    });
  }
  candidates.sort((a, b) => b.score - a.score || b.similarity - a.similarity || (a.chunkId < b.chunkId ? -1 : 1));
  const top = candidates[0]?.score ?? 0;
  const namedHomes = homesOfNamed(input, specific);
  const named = new Map(namedHomes.map((d, i) => [d, i]));
  // Home chunks of named entities go first, so that the topK cut keeps them; then documents the context does not hold
  // yet (a weaker hit's document is in it already: its evidence only moves it up).
  const held = new Set((input.weaker ?? []).map((h) => h.documentId));
  candidates.sort(
    (a, b) =>
      (named.get(a.documentId) ?? Infinity) - (named.get(b.documentId) ?? Infinity) ||
      Number(held.has(a.documentId)) - Number(held.has(b.documentId)),
  );
  const byDocument = new Set<string>();
  const chunks = candidates.filter((c) =>
    byDocument.has(c.documentId) ? false : (byDocument.add(c.documentId), true),
  );
  for (const c of chunks) c.score = top > 0 ? Math.min(1, c.score / top) : 0;
  return { chunks, entities, namedHomes };
}

/**
 * Whether an entity is a rare name the context's chunks hold (see NAME_EVIDENCE.rareBridgeMentions): the few other
 * chunks naming it are where a question's second hop is written, however little they share with its words.
 */
function rareBridge(input: RankingInput, reason: GraphReason): boolean {
  return reason.kind === 'chunk' && (input.mentionCounts.get(reason.entityId) ?? 0) <= NAME_EVIDENCE.rareBridgeMentions;
}

/** Whether an entity leads evidence specifically (see `leadsSpecifically`), as the query named it if it did. */
function queryEntityLeads(input: RankingInput, id: string): boolean {
  const seed = input.seeds.find((s) => s.id === id && s.depth === 0);
  return leadsSpecifically(input.names.get(id), input.mentionCounts.get(id) ?? 0, seed);
}

/**
 * The exact query entities the query names specifically (see `namesSpecifically`), in seed order: a generic or shared
 * name is weak evidence of what the query is about.
 */
function specificSeeds(input: RankingInput): SeedEntity[] {
  return input.seeds
    .filter((s) => s.depth === 0 && s.exact && input.known.has(s.id))
    .filter(
      (s) => !s.matched || namesSpecifically(s.matched, input.names.get(s.id), input.mentionCounts.get(s.id) ?? 0),
    );
}

/**
 * The documents search ranks right after the lane's (as many as the lane has chunks), from the fused pool: the ones
 * graph evidence would stand in for.
 */
function searchNextDocuments(input: RankingInput, laneDocuments: ReadonlySet<string>): Set<string> {
  const next = new Set<string>();
  const wanted = Math.max(1, input.hits.length);
  for (const h of input.pool) {
    if (next.size >= wanted) break;
    if (!laneDocuments.has(h.documentId)) next.add(h.documentId);
  }
  return next;
}

/** The home documents of the best specific query entities, in seed order, each document once. */
function homesOfNamed(input: RankingInput, specific: readonly SeedEntity[]): string[] {
  const seeds = specific.slice(0, NAMED_HOME_SEEDS);
  const out: string[] = [];
  for (const s of seeds)
    for (const row of input.evidence)
      if (row.entityId === s.id && row.home && !out.includes(row.documentId)) out.push(row.documentId);
  return out;
}
