import type { EvidenceRow } from '../graph/mentions/MentionRepository.js';
import { specificity } from '../graph/mentions/queryEntities.js';
import type { RelationshipRecord } from '../graph/types.js';
import type { FusedHit } from '../retrieval/fusion.js';
import { RankGraph } from './RankGraph.js';
import {
  NAME_EVIDENCE,
  leadsSpecifically,
  mentionFactors,
  namesSpecifically,
  relationshipWeight,
  type EntityNames,
} from './nameEvidence.js';

/** An entity the graph lane reached from the query: named by it, or a neighbour of one that is. */
export interface SeedEntity {
  id: string;
  /** The query-match score (0 for neighbours). */
  score: number;
  depth: number;
  exact: boolean;
  /** For query entities: the folded form the query wrote, and how many entities that span names (1: only this one). */
  matched?: { form: string; sharedWith: number };
  /** For neighbours: the seed they were reached from and the relationship. */
  seedId?: string;
  via?: RelationshipRecord;
}

/** How an evidence chunk or an entity came to be in the context. */
export type GraphReason =
  | { kind: 'query'; entityId: string; exact: boolean }
  | { kind: 'chunk'; entityId: string; chunkIndex: number }
  | { kind: 'neighbour'; entityId: string; seedId: string; relationship: RelationshipRecord; depth: number };

/** A chunk the graph lane brings, with its score and the entity that led to it. */
export interface GraphChunk {
  chunkId: string;
  documentId: string;
  /** Graph relevance relative to the best graph chunk of this query, 0..1. */
  score: number;
  similarity: number;
  home: boolean;
  reason: GraphReason;
}

/** What the ranking needs: every piece the lanes and the bridge step gathered. */
export interface RankingInput {
  seeds: readonly SeedEntity[];
  /** The documents lane's chunks, in rank order, with the entities each mentions. */
  hits: readonly {
    chunkId: string;
    documentId: string;
    score: number;
    similarity: number | null;
    entityIds: readonly string[];
  }[];
  /**
   * The weaker hits that may fill the rest of the context's budget, in rank order, with the entities each mentions:
   * their entities are bridges too, and evidence from their documents adds nothing the context lacks.
   */
  weaker?: readonly { chunkId: string; documentId: string; entityIds: readonly string[] }[];
  /** The fused search ranking beyond the hits (relevance prior for evidence chunks). */
  pool: readonly FusedHit[];
  relationships: readonly RelationshipRecord[];
  evidence: readonly EvidenceRow[];
  mentionCounts: ReadonlyMap<string, number>;
  /** Entities that exist (records were read); others are ignored. */
  known: ReadonlySet<string>;
  /** The names of the known entities (to tell shared and generic names from specific ones). */
  names: ReadonlyMap<string, EntityNames>;
}

/** The ranking's outcome. */
export interface RankingResult {
  /** Evidence chunks outside the documents lane's documents, best first, one per document. */
  chunks: GraphChunk[];
  /** Entities by graph relevance, best first, each with why it is there. */
  entities: { id: string; score: number; reason: GraphReason }[];
  /** Home documents of the entities the query names exactly (the best NAMED_HOME_SEEDS), best-named first. */
  namedHomes: string[];
}

/** Entities named by the query whose home documents are brought first. */
const NAMED_HOME_SEEDS = 2;

/** Tuning of the ranking; chosen on the MuSiQue and API benchmarks (bench/RESULTS.md). */
export const GRAPH_RANKING = {
  /** PageRank's continuation probability (HippoRAG uses 0.5: relevance stays near the seeds). */
  damping: 0.5,
  iterations: 30,
  tolerance: 1e-6,
  /** Share of the restart mass on the query's entities; the rest goes to the documents lane's chunks. */
  seedShare: 0.5,
  /** Weight of an entity's home-document edge against a plain mention. */
  homeWeight: 2,
  /** Pool chunks (beyond the hits) that carry relevance into the graph. */
  poolPrior: 50,
  /** How much a chunk's similarity to the query scales its graph score: score · (1 − w + w · similarity). */
  similarityWeight: 0.5,
};

const E = (id: string) => `e\u0000${id}`;
const C = (id: string) => `c\u0000${id}`;

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

/** The ranking's graph: relationships, the hits' mentions and the evidence edges, with what each chunk is. */
function buildGraph(input: RankingInput, factors: ReadonlyMap<string, number>) {
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

/** The entity adjacent to a chunk that passed it the most relevance. */
function strongestEntity(graph: RankGraph, ranks: ReadonlyMap<string, number>, chunkNode: string): string | undefined {
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
function entityReasons(input: RankingInput, factors: ReadonlyMap<string, number>): Map<string, GraphReason> {
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
function sharedNameFactors(input: RankingInput): Map<string, number> {
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
function homeDocuments(input: RankingInput): Map<string, Set<string>> {
  const homes = new Map<string, Set<string>>();
  for (const row of input.evidence)
    if (row.home) homes.set(row.entityId, (homes.get(row.entityId) ?? new Set()).add(row.documentId));
  return homes;
}

/** The documents lane's hits, then the weaker hits: the chunks the context holds, whose entities are bridges. */
function contextChunks(input: RankingInput): readonly {
  chunkId: string;
  documentId: string;
  entityIds: readonly string[];
}[] {
  return [...input.hits, ...(input.weaker ?? [])];
}

function add(map: Map<string, number>, key: string, value: number): void {
  if (value > 0) map.set(key, (map.get(key) ?? 0) + value);
}
