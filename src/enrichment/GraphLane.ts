import { isEmptyFilter } from '../documents/filterSql.js';
import type { GraphService } from '../graph/GraphService.js';
import { MENTION_COUNT_CAP } from '../graph/mentions/queryEntities.js';
import type { EntityRecord, RelationshipRecord } from '../graph/types.js';
import { toVectorSql } from '../db/vector.js';
import { rankGraph, type RankingResult, type SeedEntity } from './graphRanking.js';
import { NAME_EVIDENCE } from './nameEvidence.js';
import type { EnrichRequest } from './types.js';

/** Home chunks read per entity (a long home document offers its chunks closest to the query). */
const HOME_CHUNKS = 3;
/** Mentioning chunks kept per entity, the closest to the query among those sampled. */
const MENTIONS_PER_ENTITY = 4;
/** Mentions sampled per entity before ranking by similarity. */
const MENTION_SCAN = 32;
/** Entities whose evidence is read: the query's, then the top chunks', then neighbours. */
const MAX_EVIDENCE_ENTITIES = 24;

/** The documents lane's part in the graph step: its chunks in rank order, the fused pool and the query embedding. */
export interface DocumentsLaneView {
  hits: readonly { chunkId: string; documentId: string; score: number; similarity: number | null }[];
  pool: RankingInput['pool'];
  queryVector: Float32Array | undefined;
}
type RankingInput = Parameters<typeof rankGraph>[0];

/** What the graph step produced: ranked evidence and entities, plus the records and relationships read. */
export interface GraphStepResult extends RankingResult {
  records: Map<string, EntityRecord>;
  relationships: RelationshipRecord[];
}

/**
 * The graph lane of enrichContext. `seeds` runs beside the documents lane: the entities the query names and their
 * neighbours (ids only). `rank` is the cheap step that waits for the documents lane: entities its top chunks mention
 * (bridges to a second hop) join the seeds, their evidence chunks and relationships are read in parallel, and
 * personalized PageRank orders them (see graphRanking.ts).
 */
export class GraphLane {
  constructor(private readonly graph: GraphService) {}

  /** Query entities (best first, at most maxEntities) and their neighbours up to graphDepth, scoped by the filter. */
  async seeds(request: EnrichRequest): Promise<SeedEntity[]> {
    if (request.maxEntities === 0) return [];
    const scoped = !isEmptyFilter(request.filter);
    let named = await this.graph.entitiesInQuery(request.query);
    if (scoped) {
      const within = await this.inScope(
        named.map((n) => n.entityId),
        request,
      );
      named = named.filter((n) => within.has(n.entityId));
    }
    named = named.slice(0, request.maxEntities);
    if (named.length === 0) return [];
    const seedIds = named.map((n) => n.entityId);
    // Scoping drops neighbours after the traversal, so it reads more of them per seed.
    const limit = request.maxEntities * (scoped ? 8 : 2);
    const around = await this.graph.nearestNeighbors(seedIds, {
      depth: request.graphDepth,
      direction: 'BOTH',
      limit,
    });
    const found: SeedEntity[] = named.map((n) => ({
      id: n.entityId,
      score: n.score,
      depth: 0,
      exact: n.exact,
      matched: { form: n.matched, sharedWith: n.sharedWith },
    }));
    const all = [...around.entries()]
      .flatMap(([seed, list]) => list.map((n) => ({ seed, n })))
      .sort((a, b) => a.n.depth - b.n.depth);
    // A neighbour stays only when it and both ends of the relationship that reached it are in scope, so that no
    // entity outside the filter shows, not even as a name in a relationship.
    const allowed = scoped
      ? new Set([
          ...seedIds,
          ...(await this.inScope(
            all.flatMap(({ n }) => [n.id, n.relationship.fromId, n.relationship.toId]),
            request,
          )),
        ])
      : undefined;
    const seen = new Set(seedIds);
    for (const { seed, n } of all) {
      if (seen.has(n.id)) continue;
      if (allowed && !(allowed.has(n.id) && allowed.has(n.relationship.fromId) && allowed.has(n.relationship.toId)))
        continue;
      seen.add(n.id);
      found.push({ id: n.id, score: 0, depth: n.depth, exact: false, seedId: seed, via: n.relationship });
    }
    return found;
  }

  /** Bridges, evidence, relationships and the ranking (see the class comment). */
  async rank(request: EnrichRequest, seeds: readonly SeedEntity[], docs: DocumentsLaneView): Promise<GraphStepResult> {
    const byChunk =
      docs.hits.length > 0
        ? await this.graph.entityIdsByChunk(docs.hits.map((h) => h.chunkId))
        : new Map<string, string[]>();
    const hits = docs.hits.map((h) => ({ ...h, entityIds: byChunk.get(h.chunkId) ?? [] }));
    const ids = evidenceEntities(seeds, hits);
    if (ids.length === 0) return { chunks: [], entities: [], namedHomes: [], records: new Map(), relationships: [] };
    const [evidence, read] = await Promise.all([
      request.graphShare > 0
        ? this.graph.mentionEvidence(ids, {
            filter: request.filter,
            queryVector: docs.queryVector ? toVectorSql(docs.queryVector) : null,
            homeChunks: HOME_CHUNKS,
            perEntity: MENTIONS_PER_ENTITY,
            scanPerEntity: MENTION_SCAN,
            countCap: MENTION_COUNT_CAP,
            // A name more chunks mention never leads evidence on its own (see graphRanking.ts): its chunks go unread.
            chunksUpToMentions: NAME_EVIDENCE.anyNameMentions,
          })
        : this.graph.mentionCounts(ids, MENTION_COUNT_CAP).then((mentionCounts) => ({ rows: [], mentionCounts })),
      this.graph.entitiesAndRelationshipsAmong(ids),
    ]);
    const records = new Map(read.entities.map((e) => [e.id, e]));
    const ranked = rankGraph({
      seeds,
      hits,
      pool: docs.pool,
      relationships: read.relationships,
      evidence: evidence.rows,
      mentionCounts: evidence.mentionCounts,
      known: new Set(records.keys()),
      names: records,
    });
    return { ...ranked, records, relationships: read.relationships };
  }

  /** Those of `ids` that a live document passing the request's filter mentions. */
  private async inScope(ids: readonly string[], request: EnrichRequest): Promise<Set<string>> {
    return this.graph.entityIdsMentionedWithin(ids, request.filter);
  }
}

/** The entities whose evidence is read: query entities, then those the top chunks name (by rank), then neighbours. */
function evidenceEntities(seeds: readonly SeedEntity[], hits: readonly { entityIds: readonly string[] }[]): string[] {
  const ordered = [
    ...seeds.filter((s) => s.depth === 0).map((s) => s.id),
    ...hits.flatMap((h) => h.entityIds),
    ...seeds.filter((s) => s.depth > 0).map((s) => s.id),
  ];
  return [...new Set(ordered)].slice(0, MAX_EVIDENCE_ENTITIES);
}
