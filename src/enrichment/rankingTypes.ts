import type { EvidenceRow } from '../graph/mentions/MentionRepository.js';
import type { RelationshipRecord } from '../graph/types.js';
import type { FusedHit } from '../retrieval/fusion.js';
import type { EntityNames } from './nameEvidence.js';

// What rankGraph (graphRanking.ts) takes and returns, and its tuning, apart so the graph it builds (rankingGraph.ts)
// and its callers share them without a cycle.

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
