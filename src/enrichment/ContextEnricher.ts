import { isEmptyFilter } from '../documents/filterSql.js';
import { AppError, ErrorCode, isAppError } from '../errors.js';
import type { GraphService } from '../graph/GraphService.js';
import { nearestNeighbors } from '../graph/traversal.js';
import type { EntityRecord, RelationshipRecord } from '../graph/types.js';
import type { Logger } from '../logger.js';
import type { SearchService } from '../retrieval/SearchService.js';
import type { SearchHitRecord } from '../retrieval/types.js';
import { formatContext } from './formatContext.js';
import type { KnowledgeGapRepository } from './knowledgeGapRepository.js';
import type { EnrichRequest, EnrichedChunkRecord, EnrichedContextRecord, EnrichedEntityRecord } from './types.js';

/** Enricher settings from configuration. */
export interface EnricherOptions {
  laneTimeoutMs: number;
  /** Best scores below this record a knowledge gap. */
  gapScoreThreshold: number;
}

/** A lane's outcome; a failure keeps the cause's error code (TIMEOUT when it ran out of time). */
type Lane<T> = { ok: true; value: T; ms: number } | { ok: false; error: string; code: ErrorCode; ms: number };

const TIMED_OUT = Symbol('timed out');

async function lane<T>(name: string, timeoutMs: number, work: () => Promise<T>): Promise<Lane<T>> {
  const start = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(TIMED_OUT), timeoutMs);
  });
  try {
    const value = await Promise.race([work(), timeout]);
    return { ok: true, value, ms: performance.now() - start };
  } catch (err) {
    const ms = performance.now() - start;
    if (err === TIMED_OUT) return { ok: false, error: `${name} lane passed ${timeoutMs} ms (CAIRN_ENRICH_LANE_TIMEOUT_MS)`, code: ErrorCode.TIMEOUT, ms };
    return { ok: false, error: `${name} lane failed: ${(err as Error).message}`, code: isAppError(err) ? err.code : ErrorCode.INTERNAL_SERVER_ERROR, ms };
  } finally {
    clearTimeout(timer);
  }
}

/** An entity the graph lane found from the query, before its record is read. */
interface FoundEntity {
  id: string;
  depth: number;
  /** Why it is there; `seedId` and `via` complete a neighbour's reason once the seed's name is known. */
  why: string;
  seedId?: string;
  via?: RelationshipRecord;
}

/**
 * Builds cited context for an agent: hybrid document retrieval and graph-neighbour traversal run concurrently, then the
 * entities the top chunks mention join in a second, cheap graph step. One failed or slow lane degrades to a warning.
 */
export class ContextEnricher {
  constructor(
    private readonly search: SearchService,
    private readonly graph: GraphService,
    private readonly gaps: KnowledgeGapRepository,
    private readonly options: EnricherOptions,
    private readonly logger: Logger,
  ) {}

  /** Runs both lanes and merges them within the character budget. */
  async enrich(request: EnrichRequest): Promise<EnrichedContextRecord> {
    const started = performance.now();
    const [docs, graph] = await Promise.all([
      lane('documents', this.options.laneTimeoutMs, () => this.search.search({ query: request.query, topK: request.topK, filter: request.filter, minScore: request.minScore ?? null, ...(request.mode ? { mode: request.mode } : {}) })),
      lane('graph', this.options.laneTimeoutMs, () => this.graphLane(request)),
    ]);
    if (!docs.ok && !graph.ok) throw bothFailed(docs, graph);
    const warnings: string[] = [];
    if (!docs.ok) warnings.push(docs.error);
    if (!graph.ok) warnings.push(graph.error);
    const hits = docs.ok ? docs.value : [];
    const chunks: EnrichedChunkRecord[] = hits.map((hit, i) => ({ hit, why: whyChunk(hit, i), citation: null }));

    // Second step: the entities the chunks mention, then every entity's record and the relationships among them all,
    // in one graph read (ids the store lacks have no record and no relationships, and are dropped).
    const secondStep = performance.now();
    const found = graph.ok ? graph.value : [];
    let entities: EnrichedEntityRecord[] = [];
    let relationships: RelationshipRecord[] = [];
    const reasons = await this.mentionReasons(hits, new Set(found.map((f) => f.id))).catch((err: unknown) => {
      warnings.push(`entities mentioned by the chunks are missing: ${(err as Error).message}`);
      return new Map<string, string>();
    });
    const ids = [...found.map((f) => f.id), ...reasons.keys()];
    if (ids.length > 0) {
      try {
        const read = await this.graph.store.entitiesAndRelationshipsAmong(ids);
        const byId = new Map(read.entities.map((e) => [e.id, e]));
        const fromQuery = withRecords(found, byId);
        const fromChunks = [...reasons.entries()].flatMap(([id, why]) => {
          const entity = byId.get(id);
          return entity ? [{ entity, why, depth: 0 }] : [];
        });
        entities = mergeEntities(fromQuery, fromChunks);
        // The traversal's relationships first (each explains a neighbour), then the others among everyone.
        const kept = new Set(entities.map((e) => e.entity.id));
        relationships = distinctById([...found.flatMap((f) => (f.via && kept.has(f.id) ? [f.via] : [])), ...read.relationships]);
      } catch (err) {
        const error = `graph lane failed: ${(err as Error).message}`;
        if (!docs.ok) throw bothFailed(docs, { ok: false, error, code: isAppError(err) ? err.code : ErrorCode.INTERNAL_SERVER_ERROR, ms: 0 });
        warnings.push(graph.ok ? error : `entities mentioned by the chunks are missing: ${(err as Error).message}`);
      }
    }
    const graphMs = graph.ms + (performance.now() - secondStep);
    const cut = entities.length > request.maxEntities ? entities.length - request.maxEntities : 0;
    entities = entities.slice(0, request.maxEntities);

    const formatted = formatContext(chunks, entities, relationships, request.maxChars);
    const documents = distinctById(chunks.filter((c) => c.citation !== null).map((c) => c.hit.document));
    if (docs.ok) await this.recordGap(request, hits).catch((err: unknown) => this.logger.warn({ err }, 'could not record a knowledge gap'));
    return {
      chunks,
      entities,
      relationships,
      documents,
      context: formatted.context,
      citations: formatted.citations,
      truncated: formatted.omittedChunks + formatted.omittedEntities + formatted.omittedRelationships + cut > 0,
      omittedChunks: formatted.omittedChunks,
      omittedEntities: formatted.omittedEntities + cut,
      timings: { retrievalMs: docs.ms, graphMs, totalMs: performance.now() - started },
      warnings,
    };
  }

  /**
   * Seeds from the query (names and aliases, then name similarity), expanded to neighbours up to graphDepth; ids only.
   * A filter scopes the graph too: only entities that a document passing it mentions take part (see `inScope`).
   */
  private async graphLane(request: EnrichRequest): Promise<FoundEntity[]> {
    if (request.maxEntities === 0) return [];
    const scoped = !isEmptyFilter(request.filter);
    const { exact, similar } = await this.graph.linker.entitiesInQuery(request.query);
    let candidates = [...new Set([...exact, ...similar])];
    if (scoped) candidates = await this.inScope(candidates, request);
    const seedIds = candidates.slice(0, request.maxEntities);
    if (seedIds.length === 0) return [];
    // Scoping drops neighbours after the traversal, so it reads more of them per seed.
    const limit = request.maxEntities * (scoped ? 8 : 2);
    const around = await nearestNeighbors(this.graph.store, seedIds, { depth: request.graphDepth, direction: 'BOTH', limit });
    const found: FoundEntity[] = seedIds.map((id) => ({ id, depth: 0, why: exact.includes(id) ? 'matched in the query' : 'name similar to the query' }));
    const all = [...around.entries()].flatMap(([seed, list]) => list.map((n) => ({ seed, n }))).sort((a, b) => a.n.depth - b.n.depth);
    // A neighbour stays only when it and both ends of the relationship that reached it are in scope, so that no
    // entity outside the filter shows, not even as a name in a relationship.
    const allowed = scoped ? new Set([...seedIds, ...(await this.inScope(all.flatMap(({ n }) => [n.id, n.relationship.fromId, n.relationship.toId]), request))]) : undefined;
    const seen = new Set(seedIds);
    for (const { seed, n } of all) {
      if (seen.has(n.id)) continue;
      if (allowed && !(allowed.has(n.id) && allowed.has(n.relationship.fromId) && allowed.has(n.relationship.toId))) continue;
      seen.add(n.id);
      found.push({ id: n.id, depth: n.depth, why: `through ${n.relationship.type} at depth ${n.depth}`, seedId: seed, via: n.relationship });
    }
    return found;
  }

  /** Those of `ids` that a live document passing the request's filter mentions, in their order. */
  private async inScope(ids: readonly string[], request: EnrichRequest): Promise<string[]> {
    const within = await this.graph.linker.mentions.entityIdsMentionedWithin(ids, request.filter);
    return [...new Set(ids)].filter((id) => within.has(id));
  }

  /** Entities the hits' chunks mention that the graph lane did not bring, each with the first chunk naming it. */
  private async mentionReasons(hits: SearchHitRecord[], known: ReadonlySet<string>): Promise<Map<string, string>> {
    if (hits.length === 0) return new Map();
    const byChunk = await this.graph.linker.mentions.entityIdsByChunk(hits.map((h) => h.chunk.id));
    const reason = new Map<string, string>();
    hits.forEach((h, i) => {
      for (const id of byChunk.get(h.chunk.id) ?? []) if (!known.has(id) && !reason.has(id)) reason.set(id, `mentioned by chunk ${i + 1} ("${h.document.title}")`);
    });
    return reason;
  }

  private async recordGap(request: EnrichRequest, hits: SearchHitRecord[]): Promise<void> {
    // Fused HYBRID scores are relative to the query's own hits; the lanes' own scores say how well anything matched.
    const best = Math.max(0, ...hits.map((h) => Math.max(h.vectorScore ?? 0, h.keywordScore ?? 0, h.vectorScore == null && h.keywordScore == null ? h.score : 0)));
    if (hits.length === 0 || best < this.options.gapScoreThreshold) await this.gaps.record(request.query, best, request.filter);
  }
}

/** The graph lane's entities that have a record, in order; a neighbour's reason names its seed. */
function withRecords(found: FoundEntity[], byId: Map<string, EntityRecord>): EnrichedEntityRecord[] {
  return found.flatMap((f) => {
    const entity = byId.get(f.id);
    if (!entity) return [];
    const why = f.seedId === undefined ? f.why : `neighbour of ${byId.get(f.seedId)?.name ?? f.seedId} ${f.why}`;
    return [{ entity, why, depth: f.depth }];
  });
}

/** The error of a request whose lanes both failed; the documents lane's cause is the one to report. */
function bothFailed(docs: Lane<unknown> & { ok: false }, graph: Lane<unknown> & { ok: false }): AppError {
  // e.g. EMBEDDING_UNAVAILABLE, DATABASE_UNAVAILABLE, TIMEOUT
  const code = docs.code !== ErrorCode.INTERNAL_SERVER_ERROR ? docs.code : graph.code;
  return new AppError(code, `enrichContext failed: ${docs.error}; ${graph.error}`, { lanes: { documents: docs.code, graph: graph.code } });
}

/** Query matches first, then entities named by chunks, then neighbours; the caller cuts to maxEntities. */
function mergeEntities(fromQuery: EnrichedEntityRecord[], fromChunks: EnrichedEntityRecord[]): EnrichedEntityRecord[] {
  return [...fromQuery.filter((e) => e.depth === 0), ...fromChunks, ...fromQuery.filter((e) => e.depth > 0)];
}

/** The first of each id, in order. */
function distinctById<T extends { id: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((x) => (seen.has(x.id) ? false : (seen.add(x.id), true)));
}

function whyChunk(hit: SearchHitRecord, index: number): string {
  return `rank ${index + 1} for the query (score ${hit.score.toFixed(3)})`;
}
