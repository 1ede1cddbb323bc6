import type { KeyedLock } from '../db/KeyedLock.js';
import type { GraphAudit } from './GraphAudit.js';
import { AppError, ErrorCode, badInput, notFound } from '../errors.js';
import { intIn } from '../shared/intIn.js';
import type { EntitiesAndRelationships, GraphStore } from './GraphStore.js';
import type { MentionLinker } from './mentions/MentionLinker.js';
import type { Evidence, EvidenceRequest } from './mentions/MentionRepository.js';
import type { QueryEntity } from './mentions/queryEntities.js';
import type { NameCacheStats } from './mentions/NameCache.js';
import type { OutboxWorker } from './mentions/OutboxWorker.js';
import { MAX_SUBGRAPH_SEEDS, toNeighborOptions, toPathDepth, type NeighborArgs } from './readLimits.js';
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
  EntityFilterSpec,
  EntityPage,
  EntityRecord,
  EntityWrite,
  GraphCounts,
  NeighborRecord,
  Origin,
  RelationshipRecord,
  RelationshipWrite,
} from './types.js';
import { assertStorableText } from '../storableText.js';
import {
  assertDistinctIds,
  validateAliases,
  validateEntityId,
  validateEntityInput,
  validateEntityType,
  validateRelationshipInput,
  validateRelationshipType,
  type RawEntityInput,
  type RawRelationshipInput,
} from './validateGraphInput.js';

/** Largest `upsertGraph` batch. */
export const MAX_GRAPH_BATCH = 5000;

/** Counts for graphStats, including the Neo4j outbox backlog. */
export interface GraphStatsRecord extends GraphCounts {
  outboxBacklog: number;
}

/** Graph use cases: validation, writes to the store, and keeping mention links in step. */
export class GraphService {
  constructor(
    private readonly store: GraphStore,
    private readonly linker: MentionLinker,
    /** Serialises creates of one id, so that of concurrent creators exactly one succeeds. */
    private readonly createLock: KeyedLock,
    private readonly outbox?: OutboxWorker,
    private readonly audit?: GraphAudit,
  ) {}

  /** Creates an entity; CONFLICT when the given id exists. */
  async createEntity(raw: RawEntityInput): Promise<EntityRecord> {
    const write = validateEntityInput(raw);
    return this.createLock.run(write.id, async () => {
      if ((await this.store.getEntities([write.id])).length > 0) {
        throw new AppError(ErrorCode.CONFLICT, `entity "${write.id}" already exists; use updateEntity or upsertGraph`, {
          id: write.id,
        });
      }
      const [entity] = (await this.writeEntities([write])) as [EntityRecord];
      await this.audit?.entityCreated(entity);
      return entity;
    });
  }

  /** Changes fields of an entity; omitted fields keep their values. */
  async updateEntity(id: string, patch: RawEntityInput): Promise<EntityRecord> {
    assertStorableText(patch, 'input');
    const [current] = await this.store.getEntities([validateEntityId(id)]);
    if (!current) throw notFound('Entity', id);
    const write: EntityWrite = {
      id,
      type: patch.type !== undefined ? validateEntityType(patch.type, 'input.type') : current.type,
      name:
        patch.name !== undefined ? validateEntityInput({ type: current.type, name: patch.name }).name : current.name,
      aliases: patch.aliases !== undefined ? validateAliases(patch.aliases, 'input.aliases') : current.aliases,
      description: patch.description !== undefined ? patch.description?.trim() || null : current.description,
      properties:
        patch.properties !== undefined
          ? validateEntityInput({ type: current.type, name: current.name, properties: patch.properties }).properties
          : current.properties,
    };
    const [entity] = (await this.writeEntities([write])) as [EntityRecord];
    await this.audit?.entityUpdated(current, entity);
    return entity;
  }

  /** Deletes an entity, its relationships and its mentions. */
  async deleteEntity(id: string): Promise<boolean> {
    const before = this.audit ? await this.beforeDelete(id) : undefined;
    const existed = await this.store.deleteEntity(id);
    await this.linker.entityDeleted(id);
    if (existed && before) await this.audit?.entityDeleted(before.entity, before.relationships);
    return existed;
  }

  /** An entity and its relationships as they are, for the audit log, before a delete. */
  private async beforeDelete(
    id: string,
  ): Promise<{ entity: EntityRecord; relationships: RelationshipRecord[] } | undefined> {
    const [entity] = await this.store.getEntities([id]);
    if (!entity) return undefined;
    return { entity, relationships: await this.store.relationshipsOf([id], 'BOTH') };
  }

  /**
   * Bulk upsert keyed by id; repeatable with the same result. Endpoints are checked before anything is written.
   * `origin`: IMPORTED for importers; absent for people (see EntityWrite.origin).
   */
  async upsertGraph(
    rawEntities: readonly RawEntityInput[],
    rawRelationships: readonly RawRelationshipInput[],
    options: { origin?: Origin } = {},
  ): Promise<{ entities: EntityRecord[]; relationships: RelationshipRecord[] }> {
    if (rawEntities.length + rawRelationships.length > MAX_GRAPH_BATCH)
      throw badInput('input', `at most ${MAX_GRAPH_BATCH} entities and relationships per call`);
    const origin = options.origin ? { origin: options.origin } : {};
    const entities = rawEntities.map((e, i) => ({ ...validateEntityInput(e, `input.entities[${i}]`), ...origin }));
    const relationships = rawRelationships.map((r, i) => ({
      ...validateRelationshipInput(r, `input.relationships[${i}]`),
      ...origin,
    }));
    assertDistinctIds(entities, 'input.entities', (e) => `entity "${e.id}"`);
    assertDistinctIds(relationships, 'input.relationships', (r) => `relationship ${r.fromId} -[${r.type}]-> ${r.toId}`);
    await this.requireEndpoints(relationships, new Set(entities.map((e) => e.id)));
    const written = await this.writeEntities(entities);
    const rels = await this.store.upsertRelationships(relationships);
    await this.audit?.graphUpserted(written, rels, options.origin);
    return { entities: written, relationships: rels };
  }

  /** Creates (or updates the properties of) one relationship. */
  async createRelationship(raw: RawRelationshipInput): Promise<RelationshipRecord> {
    const write = validateRelationshipInput(raw);
    const before = this.audit
      ? (await this.store.relationshipsOf([write.fromId], 'OUT', [write.type])).find((r) => r.toId === write.toId)
      : undefined;
    const [rel] = (await this.store.upsertRelationships([write])) as [RelationshipRecord];
    await this.audit?.relationshipWritten(rel, before);
    return rel;
  }

  /** Deletes one relationship. */
  async deleteRelationship(id: string): Promise<boolean> {
    const [before] = this.audit ? await this.store.getRelationships([id]) : [];
    const existed = await this.store.deleteRelationship(id);
    if (existed && before) await this.audit?.relationshipDeleted(before);
    return existed;
  }

  /** Entities by id; missing ids are absent. */
  entitiesByIds(ids: readonly string[]): Promise<EntityRecord[]> {
    return this.store.getEntities(ids);
  }

  /** Links a document explicitly to entities. */
  async linkDocumentEntities(documentId: string, entityIds: readonly string[]): Promise<void> {
    await this.linker.linkExplicit(documentId, [...new Set(entityIds.map((id) => validateEntityId(id, 'entityIds')))]);
    this.outbox?.nudge();
  }

  /** Counts, plus the number of mention changes still waiting for Neo4j. */
  async stats(topDegree = 10): Promise<GraphStatsRecord> {
    const [counts, outboxBacklog] = await Promise.all([this.store.counts(topDegree), this.outboxBacklog()]);
    return { ...counts, outboxBacklog };
  }

  /** Mention changes still waiting for Neo4j (0 on the Postgres store). */
  outboxBacklog(): Promise<number> {
    return this.linker.mentions.backlog();
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

  /** Entities matching a validated filter, by (name, id), after a keyset position. */
  findEntities(filter: EntityFilterSpec, first: number, after?: { name: string; id: string }): Promise<EntityPage> {
    return this.store.findEntities(filter, first, after);
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

  /** Distinct live documents mentioning each entity, newest mention first, at most `first` each. */
  documentIdsByEntity(entityIds: readonly string[], first: number): Promise<Map<string, string[]>> {
    return this.linker.mentions.documentIdsByEntity(entityIds, first);
  }

  /** Distinct entities mentioned by each document. */
  entityIdsByDocument(documentIds: readonly string[]): Promise<Map<string, string[]>> {
    return this.linker.mentions.entityIdsByDocument(documentIds);
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
    return this.linker.mentions.entityIdsByChunk(chunkIds);
  }

  /** Those of `entityIds` that a live document passing `filter` mentions. */
  entityIdsMentionedWithin(entityIds: readonly string[], filter: DocumentFilterSpec): Promise<Set<string>> {
    return this.linker.mentions.entityIdsMentionedWithin(entityIds, filter);
  }

  /** Entities whose ids start with one of `prefixes` (an import's own ids). */
  entityIdsWithPrefix(prefixes: readonly string[]): Promise<string[]> {
    return this.linker.mentions.entityIdsWithPrefix(prefixes);
  }

  /** The chunks that are evidence for each entity, with its mention counts (see MentionRepository.evidence). */
  mentionEvidence(entityIds: readonly string[], request: EvidenceRequest): Promise<Evidence> {
    return this.linker.mentions.evidence(entityIds, request);
  }

  /** How many chunks mention each entity, counted up to `cap`. */
  mentionCounts(entityIds: readonly string[], cap: number): Promise<Map<string, number>> {
    return this.linker.mentions.mentionCounts(entityIds, cap);
  }

  /**
   * Writes facts extraction found support for, as EXTRACTED, and links page entities explicitly to their home
   * documents (a home deleted meanwhile is skipped). Callers never pass a MANUAL or IMPORTED fact (see FactReconciler).
   */
  async applyExtractedFacts(
    entities: readonly EntityWrite[],
    relationships: readonly RelationshipWrite[],
    homes: readonly { documentId: string; entityId: string }[] = [],
  ): Promise<void> {
    await this.writeEntities(entities.map((e) => ({ ...e, origin: 'EXTRACTED' as const })));
    for (let i = 0; i < relationships.length; i += MAX_GRAPH_BATCH)
      await this.store.upsertRelationships(
        relationships.slice(i, i + MAX_GRAPH_BATCH).map((r) => ({ ...r, origin: 'EXTRACTED' as const })),
      );
    await this.linker.linkExplicitWhereLive(homes);
    this.outbox?.nudge();
  }

  /** Deletes extracted facts that lost their support (relationships first), as deleteRelationship and deleteEntity do. */
  async removeExtractedFacts(entityIds: readonly string[], relationshipIds: readonly string[]): Promise<void> {
    for (const id of relationshipIds) await this.store.deleteRelationship(id);
    for (const id of entityIds) await this.deleteEntity(id);
    this.outbox?.nudge();
  }

  /** Lets the outbox know a write queued work. */
  documentsWritten(): void {
    this.outbox?.nudge();
  }

  private async writeEntities(writes: readonly EntityWrite[]): Promise<EntityRecord[]> {
    if (writes.length === 0) return [];
    const entities = await this.store.upsertEntities(writes);
    const choice = new Map(writes.map((w) => [w.id, w.linkByName]));
    const origins = new Map(writes.map((w) => [w.id, w.origin]));
    await this.linker.entitiesChanged(
      entities.map((e) => ({
        entityId: e.id,
        name: e.name,
        aliases: e.aliases,
        linkByName: choice.get(e.id),
        type: e.type,
        origin: origins.get(e.id) ?? 'MANUAL',
      })),
    );
    this.outbox?.nudge();
    return entities;
  }

  /** NOT_FOUND naming the first of `ids` that does not exist (each id validated under its field first). */
  private async requireEntities(ids: readonly { id: string; field: string }[]): Promise<void> {
    const found = new Set(
      (await this.store.getEntities(ids.map((x) => validateEntityId(x.id, x.field)))).map((e) => e.id),
    );
    const missing = ids.find((x) => !found.has(x.id));
    if (missing) throw notFound('Entity', missing.id);
  }

  private async requireEndpoints(
    relationships: readonly RelationshipWrite[],
    inBatch: ReadonlySet<string>,
  ): Promise<void> {
    const needed = [...new Set(relationships.flatMap((r) => [r.fromId, r.toId]))].filter((id) => !inBatch.has(id));
    const found = new Set((await this.store.getEntities(needed)).map((e) => e.id));
    const missing = needed.find((id) => !found.has(id));
    if (missing !== undefined) throw notFound('Entity', missing);
  }
}
