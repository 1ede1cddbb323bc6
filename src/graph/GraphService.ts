import { runInSpace } from '../db/spaceScope.js';
import type { KeyedLock } from '../db/KeyedLock.js';
import type { GraphAudit } from './GraphAudit.js';
import { GraphWriter } from './GraphWriter.js';
import { badInput, notFound } from '../errors.js';
import { intIn } from '../shared/intIn.js';
import type { PageArgs } from '../shared/pageSize.js';
import { entityPage, type EntityFilterArgs } from './entityPage.js';
import type { EntitiesAndRelationships, GraphStore } from './GraphStore.js';
import type { ChunkEntity, ChunkEntityReader } from './mentions/ChunkEntityReader.js';
import type { EntityNameRepository } from './mentions/EntityNameRepository.js';
import type { MentionLinker } from './mentions/MentionLinker.js';
import type { Evidence, EvidenceRequest, MentionRepository } from './mentions/MentionRepository.js';
import type { QueryEntity } from './mentions/queryEntities.js';
import type { NameCacheStats } from './mentions/NameCache.js';
import type { OutboxWorker } from './mentions/OutboxWorker.js';
import {
  MAX_SUBGRAPH_SEEDS,
  toEntityDocumentsFirst,
  toNeighborOptions,
  toPathDepth,
  type NeighborArgs,
} from './readLimits.js';
import {
  nearestNeighbors,
  neighbors,
  shortestPath,
  subgraph,
  type NeighborOptions,
  type NeighborRef,
  type PathRecord,
  type SubgraphRecord,
} from './traversal.js';
import type { DocumentFilterSpec } from '../documents/types.js';
import type {
  Direction,
  EntityRecord,
  EntityWrite,
  GraphCounts,
  NeighborRecord,
  Origin,
  RelationshipRecord,
  RelationshipWrite,
} from './types.js';
import {
  validateEntityId,
  validateRelationshipType,
  type RawEntityInput,
  type RawRelationshipInput,
} from './validateGraphInput.js';

export { MAX_GRAPH_BATCH } from './GraphWriter.js';

/** Counts for graphStats, including the Neo4j outbox backlog. */
export interface GraphStatsRecord extends GraphCounts {
  outboxBacklog: number;
}

/** What the graph reads of mentions and names, beside the store (the linker writes them). */
export interface MentionReads {
  mentions: MentionRepository;
  names: EntityNameRepository;
  chunkEntities: ChunkEntityReader;
}

/** Graph use cases: reads and traversals here, writes delegated to GraphWriter. */
export class GraphService {
  readonly #writer: GraphWriter;

  constructor(
    private readonly store: GraphStore,
    private readonly linker: MentionLinker,
    private readonly reads: MentionReads,
    /** Serialises creates of one id, so that of concurrent creators exactly one succeeds. */
    createLock: KeyedLock,
    private readonly outbox?: OutboxWorker,
    audit?: GraphAudit,
  ) {
    this.#writer = new GraphWriter(store, linker, createLock, outbox, audit);
  }

  /** Creates an entity; CONFLICT when the given id exists. */
  createEntity(raw: RawEntityInput): Promise<EntityRecord> {
    return this.#writer.createEntity(raw);
  }

  /** Changes fields of an entity; omitted fields keep their values. */
  updateEntity(id: string, patch: RawEntityInput, options: { origin?: Origin } = {}): Promise<EntityRecord> {
    return this.#writer.updateEntity(id, patch, options);
  }

  /** Deletes up to `limit` entities of a space being deleted (with their relationships and mentions); how many went. */
  purgeSpace(space: string, limit = 100): Promise<number> {
    return runInSpace(space, async () => {
      let deleted = 0;
      for (const { node } of (await this.findEntities({}, { first: limit })).edges)
        if (await this.deleteEntity(node.id)) deleted += 1;
      return deleted;
    });
  }

  /** Deletes an entity, its relationships and its mentions. */
  deleteEntity(id: string): Promise<boolean> {
    return this.#writer.deleteEntity(id);
  }

  /** Bulk upsert keyed by id (see GraphWriter.upsertGraph). */
  upsertGraph(
    rawEntities: readonly RawEntityInput[],
    rawRelationships: readonly RawRelationshipInput[],
    options: { origin?: Origin } = {},
  ): Promise<{ entities: EntityRecord[]; relationships: RelationshipRecord[] }> {
    return this.#writer.upsertGraph(rawEntities, rawRelationships, options);
  }

  /** Creates (or updates the properties of) one relationship. */
  createRelationship(raw: RawRelationshipInput, options: { origin?: Origin } = {}): Promise<RelationshipRecord> {
    return this.#writer.createRelationship(raw, options);
  }

  /** Deletes one relationship. */
  deleteRelationship(id: string): Promise<boolean> {
    return this.#writer.deleteRelationship(id);
  }

  /** Links a document explicitly to entities. */
  linkDocumentEntities(documentId: string, entityIds: readonly string[]): Promise<void> {
    return this.#writer.linkDocumentEntities(documentId, entityIds);
  }

  /** Writes facts extraction found support for, as EXTRACTED (see GraphWriter.applyExtractedFacts). */
  applyExtractedFacts(
    entities: readonly EntityWrite[],
    relationships: readonly RelationshipWrite[],
    homes: readonly { documentId: string; entityId: string }[] = [],
  ): Promise<void> {
    return this.#writer.applyExtractedFacts(entities, relationships, homes);
  }

  /** Deletes extracted facts that lost their support (relationships first). */
  removeExtractedFacts(entityIds: readonly string[], relationshipIds: readonly string[]): Promise<void> {
    return this.#writer.removeExtractedFacts(entityIds, relationshipIds);
  }

  /** Entities by id; missing ids are absent. */
  entitiesByIds(ids: readonly string[]): Promise<EntityRecord[]> {
    return this.store.getEntities(ids);
  }

  /** Counts, plus the number of mention changes still waiting for Neo4j. */
  async stats(topDegree = 10): Promise<GraphStatsRecord> {
    const [counts, outboxBacklog] = await Promise.all([this.store.counts(topDegree), this.outboxBacklog()]);
    return { ...counts, outboxBacklog };
  }

  /**
   * Finds the mentions of extracted names in the chunks stored before them (requested by applyExtractedFacts), all
   * pending names in one pass; then nudges the Neo4j outbox.
   */
  async backfillMentions(): Promise<void> {
    await this.linker.runBackfill();
    this.outbox?.nudge();
  }

  /** Extracted entities whose mention backfill is still to run. */
  mentionBackfillBacklog(): Promise<number> {
    return this.linker.backfillBacklog();
  }

  /** Mention changes still waiting for Neo4j (0 on the Postgres store). */
  outboxBacklog(): Promise<number> {
    return this.linker.outboxBacklog();
  }

  /** How the cached entity names were built and checked (diagnostics), or undefined before the first build. */
  nameCacheStats(): NameCacheStats | undefined {
    return this.linker.nameCacheStats();
  }

  /** Entities by id, in no particular order; missing ids are absent. */
  getEntities(ids: readonly string[]): Promise<EntityRecord[]> {
    return this.store.getEntities(ids);
  }

  /** Relationships by id, in no particular order; missing ids are absent. */
  getRelationships(ids: readonly string[]): Promise<RelationshipRecord[]> {
    return this.store.getRelationships(ids);
  }

  /** One page of the entities a filter selects, by (name, id) (see entityPage: `first` 0 to 100, cursors checked). */
  findEntities(filter: EntityFilterArgs | null | undefined, page: PageArgs, filterField?: string) {
    return entityPage(this.store, filter, page, filterField);
  }

  /** Relationships touching an entity; `types` are checked as relationship types (field `types[i]`). */
  relationshipsOf(entityId: string, direction: Direction, types?: readonly string[]): Promise<RelationshipRecord[]> {
    return this.store.relationshipsOf(
      [entityId],
      direction,
      types?.map((t, i) => validateRelationshipType(t, `types[${i}]`)),
    );
  }

  /**
   * Entities around one entity (depth 1–3, limit 1–500; see readLimits.ts), nearest first. With `mustExist`, an unknown
   * entity is NOT_FOUND (checked after the arguments) rather than an empty list.
   */
  async neighbors(
    entityId: string,
    args: NeighborArgs,
    options: { mustExist?: boolean } = {},
  ): Promise<NeighborRecord[]> {
    const validated = toNeighborOptions(args);
    if (options.mustExist) await this.requireEntities([{ id: entityId, field: 'id' }]);
    return (await neighbors(this.store, [entityId], validated)).get(entityId) ?? [];
  }

  /**
   * The subgraph around 1 to 100 seed entities: depth 1–3 (default 1), at most 1–2000 entities (default 200); with
   * `origins`, only neighbours of those origins (the seeds always).
   */
  async subgraph(
    entityIds: readonly string[],
    depth: number | null | undefined,
    limit: number | null | undefined,
    field = 'input',
    origins?: readonly Origin[] | null,
  ): Promise<SubgraphRecord> {
    if (entityIds.length === 0 || entityIds.length > MAX_SUBGRAPH_SEEDS)
      throw badInput(`${field}.entityIds`, `give 1 to ${MAX_SUBGRAPH_SEEDS} ids`);
    return subgraph(
      this.store,
      entityIds,
      intIn(depth, 1, 1, 3, `${field}.depth`),
      intIn(limit, 200, 1, 2000, `${field}.limit`),
      origins?.length ? (e) => origins.includes(e.origin) : undefined,
    );
  }

  /**
   * A shortest path of at most `maxDepth` hops (1–6, default 4), or null. With `mustExist`, both ends are validated and
   * an unknown one is NOT_FOUND.
   */
  async shortestPath(
    fromId: string,
    toId: string,
    maxDepth: number | null | undefined,
    options: { mustExist?: boolean } = {},
  ): Promise<PathRecord | null> {
    const depth = toPathDepth(maxDepth);
    if (options.mustExist) {
      await this.requireEntities([
        { id: fromId, field: 'fromId' },
        { id: toId, field: 'toId' },
      ]);
    }
    return shortestPath(this.store, fromId, toId, depth);
  }

  /** Distinct live documents mentioning each entity, newest mention first, `first` each (default 20, at most 100). */
  async documentIdsByEntity(entityIds: readonly string[], first?: number | null): Promise<Map<string, string[]>> {
    return this.reads.mentions.documentIdsByEntity(entityIds, toEntityDocumentsFirst(first));
  }

  /** Distinct entities mentioned by each document. */
  entityIdsByDocument(documentIds: readonly string[]): Promise<Map<string, string[]>> {
    return this.reads.mentions.entityIdsByDocument(documentIds);
  }

  /** The entities whose names the query text holds, best first (enrichContext's seeds). */
  entitiesInQuery(query: string): Promise<QueryEntity[]> {
    return this.linker.entitiesInQuery(query);
  }

  /** Entities around each seed, nearest first, by options the caller has already bounded (no argument checks). */
  nearestNeighbors(seedIds: readonly string[], options: NeighborOptions): Promise<Map<string, NeighborRef[]>> {
    return nearestNeighbors(this.store, seedIds, options);
  }

  /** Entities and the relationships among them, in one read. */
  entitiesAndRelationshipsAmong(ids: readonly string[]): Promise<EntitiesAndRelationships> {
    return this.store.entitiesAndRelationshipsAmong(ids);
  }

  /** The relationships whose both ends are among `ids`. */
  relationshipsAmong(ids: readonly string[]): Promise<RelationshipRecord[]> {
    return this.store.relationshipsAmong(ids);
  }

  /** Distinct entities mentioned by each chunk. */
  entityIdsByChunk(chunkIds: readonly string[]): Promise<Map<string, string[]>> {
    return this.reads.mentions.entityIdsByChunk(chunkIds);
  }

  /** The entities each chunk mentions, with their mention counts (up to `countCap`) and home documents. */
  chunkEntities(chunkIds: readonly string[], countCap: number): Promise<Map<string, ChunkEntity[]>> {
    return this.reads.chunkEntities.read(chunkIds, countCap);
  }

  /** Those of `entityIds` that a live document passing `filter` mentions. */
  entityIdsMentionedWithin(entityIds: readonly string[], filter: DocumentFilterSpec): Promise<Set<string>> {
    return this.reads.mentions.entityIdsMentionedWithin(entityIds, filter);
  }

  /** The space of each of these entities (those the request reads; others are absent). */
  entitySpaces(entityIds: readonly string[]): Promise<Map<string, string>> {
    return this.reads.names.spacesOf(entityIds);
  }

  /** Entities whose ids start with one of `prefixes` (an import's own ids). */
  entityIdsWithPrefix(prefixes: readonly string[]): Promise<string[]> {
    return this.reads.names.entityIdsWithPrefix(prefixes);
  }

  /** The chunks that are evidence for each entity, with its mention counts (see MentionRepository.evidence). */
  mentionEvidence(entityIds: readonly string[], request: EvidenceRequest): Promise<Evidence> {
    return this.reads.mentions.evidence(entityIds, request);
  }

  /** How many chunks mention each entity, counted up to `cap`. */
  mentionCounts(entityIds: readonly string[], cap: number): Promise<Map<string, number>> {
    return this.reads.mentions.mentionCounts(entityIds, cap);
  }

  /** Lets the outbox know a write queued work. */
  documentsWritten(): void {
    this.outbox?.nudge();
  }

  /** NOT_FOUND naming the first of `ids` that does not exist (each id validated under its field first). */
  private async requireEntities(ids: readonly { id: string; field: string }[]): Promise<void> {
    const found = new Set(
      (await this.store.getEntities(ids.map((x) => validateEntityId(x.id, x.field)))).map((e) => e.id),
    );
    const missing = ids.find((x) => !found.has(x.id));
    if (missing) throw notFound('Entity', missing.id);
  }
}
