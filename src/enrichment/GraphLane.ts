import { isEmptyFilter } from '../documents/filterSql.js';
import type { GraphService } from '../graph/GraphService.js';
import type { ChunkEntity } from '../graph/mentions/ChunkEntityReader.js';
import { MENTION_COUNT_CAP } from '../graph/mentions/queryEntities.js';
import type { EntityRecord, RelationshipRecord } from '../graph/types.js';
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

/** A documents-lane chunk as the graph step sees it. */
type LaneChunk = { chunkId: string; documentId: string; score: number; similarity: number | null };

/**
 * The documents lane's part in the graph step: its chunks in rank order, the weaker hits that may fill the rest of the
 * budget (in rank order), the fused pool and the query embedding.
 */
export interface DocumentsLaneView {
  hits: readonly LaneChunk[];
  weaker: readonly LaneChunk[];
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
    const context = [...docs.hits, ...docs.weaker];
    const byChunk =
      context.length > 0
        ? await this.graph.chunkEntities(
            context.map((h) => h.chunkId),
            // Only "no more than anyNameMentions" matters for a bridge: counting further costs without telling more.
            NAME_EVIDENCE.anyNameMentions + 1,
          )
        : new Map<string, ChunkEntity[]>();
    const withEntities = <T extends { chunkId: string }>(h: T) => ({
      ...h,
      entityIds: (byChunk.get(h.chunkId) ?? []).map((e) => e.entityId),
    });
    const hits = docs.hits.map(withEntities);
    const weaker = docs.weaker.map(withEntities);
    const ids = evidenceEntities(seeds, context, byChunk);
    if (ids.length === 0) return { chunks: [], entities: [], namedHomes: [], records: new Map(), relationships: [] };
    const [evidence, read] = await Promise.all([
      request.graphShare > 0
        ? this.graph.mentionEvidence(ids, {
            filter: request.filter,
            queryVector: docs.queryVector ?? null,
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
      weaker,
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

/**
 * The entities whose evidence is read, at most MAX_EVIDENCE_ENTITIES: the query's, then the bridges the context's
 * chunks name (see `bridgeOrder`), then neighbours.
 */
function evidenceEntities(
  seeds: readonly SeedEntity[],
  context: readonly { chunkId: string; documentId: string }[],
  byChunk: ReadonlyMap<string, readonly ChunkEntity[]>,
): string[] {
  const bridges = bridgeOrder(context, byChunk);
  const ordered = [
    ...seeds.filter((s) => s.depth === 0 && s.exact).map((s) => s.id),
    ...bridges.withHome,
    // A name only similar to the query's words is a weaker lead than a page the context's chunks name.
    ...seeds.filter((s) => s.depth === 0 && !s.exact).map((s) => s.id),
    ...bridges.others,
    ...seeds.filter((s) => s.depth > 0).map((s) => s.id),
  ];
  return [...new Set(ordered)].slice(0, MAX_EVIDENCE_ENTITIES);
}

/**
 * The entities the context's chunks name, as bridges to a second hop: those with a page of their own outside the
 * context's documents (where a second hop's answer is written), and the others; each by the rank of the first chunk
 * naming them, rarer names first. A name no other chunk mentions leads nowhere, and one past
 * NAME_EVIDENCE.anyNameMentions gets no evidence read: each comes after its chunk's other names (it still shows as
 * an entity of the context, with its relationships).
 */
export function bridgeOrder(
  context: readonly { chunkId: string; documentId: string }[],
  byChunk: ReadonlyMap<string, readonly ChunkEntity[]>,
): { withHome: string[]; others: string[] } {
  const documents = new Set(context.map((h) => h.documentId));
  const best = new Map<string, { rank: number; home: boolean; leads: boolean; mentions: number }>();
  context.forEach((h, rank) => {
    for (const e of byChunk.get(h.chunkId) ?? []) {
      if (best.has(e.entityId)) continue;
      const home = e.mentions <= NAME_EVIDENCE.anyNameMentions && e.homeDocumentIds.some((d) => !documents.has(d));
      // A name no other chunk mentions, or one found everywhere, leads nowhere new: it comes after its chunk's others.
      const leads = e.mentions > 1 && e.mentions <= NAME_EVIDENCE.anyNameMentions;
      best.set(e.entityId, { rank, home, leads, mentions: e.mentions });
    }
  });
  const ordered = [...best].sort(
    ([a, x], [b, y]) =>
      x.rank - y.rank || Number(y.leads) - Number(x.leads) || x.mentions - y.mentions || (a < b ? -1 : 1),
  );
  return {
    withHome: ordered.filter(([, x]) => x.home).map(([id]) => id),
    others: ordered.filter(([, x]) => !x.home).map(([id]) => id),
  };
}
