import { AppError, ErrorCode, isAppError } from '../errors.js';
import type { GraphService } from '../graph/GraphService.js';
import { neighborsAndSeeds } from '../graph/traversal.js';
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

/** Graph lane output: entities found from the query itself. */
interface GraphLaneResult {
  entities: EnrichedEntityRecord[];
  relationships: RelationshipRecord[];
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
      lane('documents', this.options.laneTimeoutMs, () => this.search.search({ query: request.query, topK: request.topK, filter: request.filter, ...(request.mode ? { mode: request.mode } : {}) })),
      lane('graph', this.options.laneTimeoutMs, () => this.graphLane(request)),
    ]);
    if (!docs.ok && !graph.ok) {
      // The documents lane's cause is the one to report (e.g. EMBEDDING_UNAVAILABLE, DATABASE_UNAVAILABLE, TIMEOUT).
      const code = docs.code !== ErrorCode.INTERNAL_SERVER_ERROR ? docs.code : graph.code;
      throw new AppError(code, `enrichContext failed: ${docs.error}; ${graph.error}`, { lanes: { documents: docs.code, graph: graph.code } });
    }
    const warnings: string[] = [];
    if (!docs.ok) warnings.push(docs.error);
    if (!graph.ok) warnings.push(graph.error);
    const hits = docs.ok ? docs.value : [];
    const chunks: EnrichedChunkRecord[] = hits.map((hit, i) => ({ hit, why: whyChunk(hit, i), citation: null }));

    let entities = graph.ok ? graph.value.entities : [];
    let relationships = graph.ok ? graph.value.relationships : [];
    const secondStep = performance.now();
    if (hits.length > 0) {
      try {
        const known = entities.map((e) => e.entity.id);
        const reasons = await this.mentionReasons(hits, new Set(known));
        // The mentioned entities' records and the relationships among everyone are read at once (ids the store lacks
        // simply have no relationships).
        const found = await this.graph.store.entitiesAndRelationshipsAmong([...reasons.keys()], [...known, ...reasons.keys()]);
        entities = mergeEntities(entities, withReasons(reasons, found.entities));
        relationships = distinctById([...relationships, ...found.relationships]);
      } catch (err) {
        warnings.push(`entities mentioned by the chunks are missing: ${(err as Error).message}`);
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
      truncated: formatted.omittedChunks + formatted.omittedEntities + cut > 0,
      omittedChunks: formatted.omittedChunks,
      omittedEntities: formatted.omittedEntities + cut,
      timings: { retrievalMs: docs.ms, graphMs, totalMs: performance.now() - started },
      warnings,
    };
  }

  /** Seeds from the query (names and aliases, then name similarity), expanded to neighbours up to graphDepth. */
  private async graphLane(request: EnrichRequest): Promise<GraphLaneResult> {
    if (request.maxEntities === 0) return { entities: [], relationships: [] };
    const { exact, similar } = await this.graph.linker.entitiesInQuery(request.query);
    const seedIds = [...exact, ...similar].slice(0, request.maxEntities);
    if (seedIds.length === 0) return { entities: [], relationships: [] };
    const { seeds: byId, neighbors: around } = await neighborsAndSeeds(this.graph.store, seedIds, {
      depth: request.graphDepth,
      direction: 'BOTH',
      limit: request.maxEntities * 2,
    });
    const entities: EnrichedEntityRecord[] = seedIds
      .map((id) => byId.get(id))
      .filter((e): e is EntityRecord => e !== undefined)
      .map((entity) => ({ entity, depth: 0, why: exact.includes(entity.id) ? 'matched in the query' : 'name similar to the query' }));
    const relationships: RelationshipRecord[] = [];
    const all = [...around.entries()].flatMap(([seed, list]) => list.map((n) => ({ seed, n }))).sort((a, b) => a.n.depth - b.n.depth);
    for (const { seed, n } of all) {
      if (entities.some((e) => e.entity.id === n.entity.id)) continue;
      entities.push({ entity: n.entity, depth: n.depth, why: `neighbour of ${byId.get(seed)?.name ?? seed} through ${n.relationship.type} at depth ${n.depth}` });
      relationships.push(n.relationship);
    }
    return { entities, relationships };
  }

  /** Entities the hits' chunks mention that the graph lane did not bring, each with the first chunk naming it. */
  private async mentionReasons(hits: SearchHitRecord[], known: ReadonlySet<string>): Promise<Map<string, string>> {
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

/** The mentioned entities that exist, in the order of `reasons`, each with its reason. */
function withReasons(reasons: Map<string, string>, found: EntityRecord[]): EnrichedEntityRecord[] {
  const byId = new Map(found.map((e) => [e.id, e]));
  return [...reasons.entries()].flatMap(([id, why]) => {
    const entity = byId.get(id);
    return entity ? [{ entity, why, depth: 0 }] : [];
  });
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
