import { AppError, ErrorCode, isAppError } from '../errors.js';
import type { GraphService } from '../graph/GraphService.js';
import { withEntitySpaces } from './entitySpaces.js';
import type { RelationshipRecord } from '../graph/types.js';
import type { Logger } from '../logger.js';
import type { LoadedChunk } from '../documents/hitLoader.js';
import type { RankedSearch, SearchService } from '../retrieval/SearchService.js';
import type { FusedHit } from '../retrieval/fusion.js';
import { documentsLaneChunks, documentsLaneSearch } from './documentsLaneOrder.js';
import { rankedDocuments } from './rankedDocuments.js';
import { describeEntities, relinkVia, whyEvidence } from './explain.js';
import { layOutLane, splitHits, widenRanking } from './documentsLane.js';
import { formatContext } from './formatContext.js';
import { GraphLane, type GraphStepResult } from './GraphLane.js';
import type { KnowledgeGapService } from './KnowledgeGapService.js';
import type { SeedEntity } from './graphRanking.js';
import { resolveEnrichRequest, type EnrichArgs, type EnrichDefaults } from './enrichRequest.js';
import type { EnrichRequest, EnrichedChunkRecord, EnrichedContextRecord, EnrichedEntityRecord } from './types.js';

/** Enricher settings from configuration: a request's defaults and caps (see resolveEnrichRequest), and tuning. */
export interface EnricherOptions extends EnrichDefaults {
  laneTimeoutMs: number;
  /** Share of the best hit's score under which a hit must match the query's words to stay (see relevanceFloor). */
  relevanceFloor: number;
}

/** A lane's outcome; a failure keeps the cause's error code (TIMEOUT when it ran out of time). */
type Lane<T> = { ok: true; value: T; ms: number } | { ok: false; error: string; code: ErrorCode; ms: number };

/** The graph step's outcome: its result and the rows of its evidence chunks, undefined when the graph is off. */
type GraphStep =
  | { ok: true; value: { result: GraphStepResult; rows: Map<string, LoadedChunk> } | undefined }
  | { ok: false; error: string; cause: string; code: ErrorCode };
/** A documents-lane chunk and its rank (1-based) in the context. */
type LaneRank = { chunk: EnrichedChunkRecord; rank: number };

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
    if (err === TIMED_OUT)
      return {
        ok: false,
        error: `${name} lane passed ${timeoutMs} ms (CAIRN_ENRICH_LANE_TIMEOUT_MS)`,
        code: ErrorCode.TIMEOUT,
        ms,
      };
    return {
      ok: false,
      error: `${name} lane failed: ${(err as Error).message}`,
      code: isAppError(err) ? err.code : ErrorCode.INTERNAL_SERVER_ERROR,
      ms,
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Builds cited context for an agent: hybrid document retrieval and the graph lane run concurrently; then the cheap
 * graph step (bridges from the top chunks, evidence, ranking; see GraphLane) adds graph-reached chunks and ranked
 * entities. One failed or slow lane degrades to a warning.
 */
export class ContextEnricher {
  private readonly graphLane: GraphLane;

  constructor(
    private readonly search: SearchService,
    private readonly graph: GraphService,
    private readonly gaps: KnowledgeGapService,
    private readonly options: EnricherOptions,
    private readonly logger: Logger,
  ) {
    this.graphLane = new GraphLane(graph);
  }

  /**
   * Checks the request's bounds and fills in the configured defaults (see resolveEnrichRequest), runs both lanes and
   * merges them within the character budget. Once the documents lane has ranked (ids and scores) and the graph lane
   * has its seeds, three things that need only those run together: loading the ranked chunks' rows, the graph step,
   * and the knowledge-gap check.
   */
  async enrich(args: EnrichArgs): Promise<EnrichedContextRecord> {
    const started = performance.now();
    const request = resolveEnrichRequest(args, this.options);
    const timeoutMs = this.options.laneTimeoutMs;
    const searchArgs = {
      query: request.query,
      topK: request.topK,
      filter: request.filter,
      minScore: request.minScore ?? null,
      ...(request.mode ? { mode: request.mode } : {}),
    };
    const [ranked, graph] = await Promise.all([
      lane('documents', timeoutMs, async () =>
        documentsLaneChunks(await this.search.rankWithPool(documentsLaneSearch(searchArgs))),
      ),
      lane('graph', timeoutMs, () => this.graphLane.seeds(request)),
    ]);
    if (!ranked.ok && !graph.ok) throw bothFailed(ranked, graph);
    const secondStep = performance.now();
    const neighbors = request.expandNeighbors ?? this.options.expandNeighbors;
    // The selected hits, the weaker ones that may fill the budget, and their neighbours, read together.
    const wide = ranked.ok ? widenRanking(ranked.value, request.maxChars, neighbors) : undefined;
    const [docs, step, coverage] = await Promise.all([
      ranked.ok
        ? lane('documents', Math.max(1, timeoutMs - ranked.ms), () => this.search.loadRanked(wide as RankedSearch))
        : ranked,
      this.graphStep(request, ranked.ok ? ranked.value : undefined, wide, graph.ok ? graph.value : []),
      this.hitCoverage(request.query, wide),
    ]);
    if (!docs.ok && !graph.ok) throw bothFailed(docs, graph);
    const warnings: string[] = [];
    if (!docs.ok) warnings.push(docs.error);
    if (!graph.ok) warnings.push(graph.error);
    const floor = this.options.relevanceFloor;
    const lanes = splitHits(docs.ok ? docs.value : [], ranked.ok ? ranked.value.chosen : [], coverage, floor);
    const chunks = lanes.selected;
    // The graph step counts the ranking's chunks by position; a chunk deleted before its row was read leaves a hole.
    const byChunkId = new Map(
      [...chunks, ...lanes.weaker].map((c, i) => [c.hit.chunk.id, { chunk: c, rank: i + 1 }] as const),
    );
    // Graph reasons count the hits, then the weaker hits, by position (see GraphLane.rank).
    const ranks = wide ? wide.chosen.map((h) => byChunkId.get(h.chunkId)) : [];

    let entities: EnrichedEntityRecord[] = [];
    let relationships: RelationshipRecord[] = [];
    let namedHomes: readonly string[] = [];
    if (step.ok && step.value) {
      const { result, rows } = step.value;
      entities = describeEntities(
        result,
        ranks.map((r) => r?.chunk.hit),
      );
      chunks.push(...graphChunks(result, rows, ranks, request.topK));
      promoteNamedHomes(chunks, result.namedHomes);
      namedHomes = result.namedHomes;
      // The traversal's relationships first (each explains a neighbour), then the others among everyone.
      const kept = new Set(entities.slice(0, request.maxEntities).map((e) => e.entity.id));
      const seeds = graph.ok ? graph.value : [];
      relationships = distinctById([
        ...seeds.flatMap((f) => (f.via && kept.has(f.id) ? [f.via] : [])),
        ...result.relationships,
      ]);
    } else if (!step.ok) {
      if (!docs.ok) throw bothFailed(docs, { ok: false, error: step.error, code: step.code, ms: 0 });
      warnings.push(graph.ok ? step.error : `entities mentioned by the chunks are missing: ${step.cause}`);
    }
    const graphMs = graph.ms + (performance.now() - secondStep);
    const timings = { retrievalMs: ranked.ms + (docs.ok && ranked.ok ? docs.ms : 0), graphMs };
    const laidOut = relinkVia(layOutLane(chunks, lanes.weaker, request, neighbors));
    const spaced = await withEntitySpaces(this.graph, entities);
    const result = assembleContext(request, laidOut, spaced, relationships, namedHomes, {
      timings: { ...timings, started },
      warnings,
    });
    if (ranked.ok) await this.gaps.recordIfUnanswered(request, ranked.value.chosen, result);
    return result;
  }

  /** Each loaded candidate's share of the query's words, for the relevance floor (empty if not needed or not read). */
  private async hitCoverage(query: string, wide: RankedSearch | undefined): Promise<Map<string, number>> {
    const top = Math.max(0, ...(wide?.chosen ?? []).map((h) => h.score));
    // Only hits under the score floor need their coverage read (see relevanceFloor).
    if (!wide || wide.chosen.every((h) => h.score >= this.options.relevanceFloor * top)) return new Map();
    return this.search
      .queryCoverage(
        query,
        wide.chosen.map((h) => h.chunkId),
      )
      .catch((err: unknown) => {
        this.logger.warn({ err }, "could not read the hits' query coverage; the relevance floor uses scores alone");
        return new Map<string, number>();
      });
  }

  /**
   * The graph step over the documents lane's ranking (see GraphLane.rank), with the rows of the evidence chunks it may
   * add (at most topK; none when graphShare is 0). Undefined when the graph is off; a failure is reported, not thrown.
   */
  private async graphStep(
    request: EnrichRequest,
    ranked: RankedSearch | undefined,
    wide: RankedSearch | undefined,
    seeds: readonly SeedEntity[],
  ): Promise<GraphStep> {
    if (request.maxEntities <= 0) return { ok: true, value: undefined };
    try {
      const laneChunk = (h: FusedHit) => ({
        chunkId: h.chunkId,
        documentId: h.documentId,
        score: h.score,
        similarity: h.vectorScore ?? null,
      });
      const selected = ranked?.chosen.length ?? 0;
      const view = {
        hits: (ranked?.chosen ?? []).map(laneChunk),
        weaker: (wide?.chosen ?? []).slice(selected).map(laneChunk),
        pool: ranked?.pool ?? [],
        queryVector: ranked?.queryVector,
      };
      const result = await this.graphLane.rank(request, seeds, view);
      const wanted = request.graphShare > 0 ? result.chunks.slice(0, request.topK).map((c) => c.chunkId) : [];
      return { ok: true, value: { result, rows: await this.search.loadChunks(wanted) } };
    } catch (err) {
      const cause = (err as Error).message;
      return {
        ok: false,
        error: `graph lane failed: ${cause}`,
        cause,
        code: isAppError(err) ? err.code : ErrorCode.INTERNAL_SERVER_ERROR,
      };
    }
  }
}

/** Formats the context within the budget (at most maxEntities entities) and reports what it had to leave out. */
function assembleContext(
  request: EnrichRequest,
  chunks: EnrichedChunkRecord[],
  allEntities: EnrichedEntityRecord[],
  relationships: RelationshipRecord[],
  namedHomes: readonly string[],
  { timings, warnings }: { timings: { retrievalMs: number; graphMs: number; started: number }; warnings: string[] },
): EnrichedContextRecord {
  const cut = allEntities.length > request.maxEntities ? allEntities.length - request.maxEntities : 0;
  const entities = allEntities.slice(0, request.maxEntities);
  const formatted = formatContext(chunks, entities, relationships, request.maxChars);
  const cited = chunks.filter((c) => c.citation !== null).sort((a, b) => (a.citation ?? 0) - (b.citation ?? 0));
  return {
    chunks,
    entities,
    relationships,
    documents: rankedDocuments(cited, namedHomes),
    context: formatted.context,
    citations: formatted.citations,
    truncated: formatted.omittedChunks + formatted.omittedEntities + formatted.omittedRelationships + cut > 0,
    omittedChunks: formatted.omittedChunks,
    omittedEntities: formatted.omittedEntities + cut,
    timings: {
      retrievalMs: timings.retrievalMs,
      graphMs: timings.graphMs,
      totalMs: performance.now() - timings.started,
    },
    warnings,
  };
}

/** The error of a request whose lanes both failed; the documents lane's cause is the one to report. */
function bothFailed(docs: Lane<unknown> & { ok: false }, graph: Lane<unknown> & { ok: false }): AppError {
  // e.g. EMBEDDING_UNAVAILABLE, DATABASE_UNAVAILABLE, TIMEOUT
  const code = docs.code !== ErrorCode.INTERNAL_SERVER_ERROR ? docs.code : graph.code;
  return new AppError(code, `enrichContext failed: ${docs.error}; ${graph.error}`, {
    lanes: { documents: docs.code, graph: graph.code },
  });
}

/**
 * Moves the chunks of documents that are home to an entity the query names exactly to the front, best-named first:
 * asking for `listPets` or "Shirley Temple" brings that operation's or that person's own document first.
 */
function promoteNamedHomes(chunks: EnrichedChunkRecord[], namedHomes: readonly string[]): void {
  if (namedHomes.length === 0) return;
  const order = new Map(namedHomes.map((d, i) => [d, i]));
  const front = chunks
    .filter((c) => order.has(c.hit.document.id))
    .sort((a, b) => (order.get(a.hit.document.id) ?? 0) - (order.get(b.hit.document.id) ?? 0));
  const rest = chunks.filter((c) => !order.has(c.hit.document.id));
  chunks.splice(0, chunks.length, ...front, ...rest);
}

/** The first of each id, in order. */
function distinctById<T extends { id: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((x) => (seen.has(x.id) ? false : (seen.add(x.id), true)));
}

/** The graph step's evidence as context chunks, at most topK of them, each with why it is there. */
function graphChunks(
  step: GraphStepResult,
  rows: ReadonlyMap<string, LoadedChunk>,
  ranks: readonly (LaneRank | undefined)[],
  topK: number,
): EnrichedChunkRecord[] {
  return step.chunks.slice(0, topK).flatMap((c) => {
    const row = rows.get(c.chunkId);
    if (!row) return [];
    const { why, viaIndex } = whyEvidence(c, step.records);
    const via = viaIndex === undefined ? undefined : ranks[viaIndex];
    const hit = {
      ...row,
      score: c.score,
      vectorScore: c.similarity,
      keywordScore: null,
      vectorRank: null,
      keywordRank: null,
      neighbors: [],
    };
    return [{ hit, lane: 'GRAPH' as const, why, citation: null, ...(via ? { via } : {}) }];
  });
}
