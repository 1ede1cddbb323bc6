import type { KeyedLock } from '../db/KeyedLock.js';
import { AppError, ErrorCode, badInput, notFound } from '../errors.js';
import { assertStorableText } from '../storableText.js';
import type { GraphAudit } from './GraphAudit.js';
import type { GraphStore } from './GraphStore.js';
import type { MentionLinker } from './mentions/MentionLinker.js';
import type { OutboxWorker } from './mentions/OutboxWorker.js';
import type { EntityRecord, EntityWrite, Origin, RelationshipRecord, RelationshipWrite } from './types.js';
import {
  assertDistinctIds,
  validateAliases,
  validateEntityId,
  validateEntityInput,
  validateEntityType,
  validateRelationshipInput,
  type RawEntityInput,
  type RawRelationshipInput,
} from './validateGraphInput.js';

/** Largest `upsertGraph` batch. */
export const MAX_GRAPH_BATCH = 5000;

/** GraphService's writes: validation, the store, the audit log, and keeping mention links in step. */
export class GraphWriter {
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

  /**
   * Changes fields of an entity; omitted fields keep their values. An EXTRACTED entity becomes MANUAL (curated) unless
   * `options.origin` says otherwise (an undo puts the previous origin back).
   */
  async updateEntity(id: string, patch: RawEntityInput, options: { origin?: Origin } = {}): Promise<EntityRecord> {
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
      ...(options.origin ? { origin: options.origin } : {}),
    };
    const [entity] = (await this.writeEntities([write])) as [EntityRecord];
    await this.audit?.entityUpdated(current, entity);
    return entity;
  }

  /** Deletes an entity, its relationships and its mentions. */
  async deleteEntity(id: string): Promise<boolean> {
    const before = this.audit ? await this.beforeDelete(id) : undefined;
    const existed = await this.dropEntity(id);
    if (existed && before) await this.audit?.entityDeleted(before.entity, before.relationships);
    return existed;
  }

  /** Deletes an entity with its relationships and mentions, unaudited (extraction's own removals, curation's). */
  private async dropEntity(id: string): Promise<boolean> {
    const existed = await this.store.deleteEntity(id);
    await this.linker.entityDeleted(id);
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
    // What existed before, so that the audit entry can undo the write.
    const prior = this.audit
      ? {
          entities: await this.store.getEntities(entities.map((e) => e.id)),
          relationships: await this.store.getRelationships(relationships.map((r) => r.id)),
        }
      : undefined;
    const written = await this.writeEntities(entities);
    const rels = await this.store.upsertRelationships(relationships);
    if (prior) await this.audit?.graphUpserted(written, rels, options.origin, prior);
    return { entities: written, relationships: rels };
  }

  /**
   * Creates (or updates the properties of) one relationship. An EXTRACTED one becomes MANUAL (curated) unless
   * `options.origin` says otherwise (an undo puts the previous origin back).
   */
  async createRelationship(raw: RawRelationshipInput, options: { origin?: Origin } = {}): Promise<RelationshipRecord> {
    const write = { ...validateRelationshipInput(raw), ...(options.origin ? { origin: options.origin } : {}) };
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

  /** Links a document explicitly to entities. */
  async linkDocumentEntities(documentId: string, entityIds: readonly string[]): Promise<void> {
    await this.linker.linkExplicit(documentId, [...new Set(entityIds.map((id) => validateEntityId(id, 'entityIds')))]);
    this.outbox?.nudge();
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
    // Their mentions in older chunks come from a deferred backfill pass (backfillMentions), many batches at once.
    await this.writeEntities(
      entities.map((e) => ({ ...e, origin: 'EXTRACTED' as const })),
      true,
    );
    for (let i = 0; i < relationships.length; i += MAX_GRAPH_BATCH)
      await this.store.upsertRelationships(
        relationships.slice(i, i + MAX_GRAPH_BATCH).map((r) => ({ ...r, origin: 'EXTRACTED' as const })),
      );
    await this.linker.linkExplicitWhereLive(homes);
    this.outbox?.nudge();
  }

  /**
   * Deletes extracted facts (relationships first), as deleteRelationship and deleteEntity do but unaudited: extraction
   * removes what lost its support, and a rejection records itself.
   */
  async removeExtractedFacts(entityIds: readonly string[], relationshipIds: readonly string[]): Promise<void> {
    for (const id of relationshipIds) await this.store.deleteRelationship(id);
    for (const id of entityIds) await this.dropEntity(id);
    this.outbox?.nudge();
  }

  private async writeEntities(writes: readonly EntityWrite[], deferBackfill = false): Promise<EntityRecord[]> {
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
      { deferBackfill },
    );
    this.outbox?.nudge();
    return entities;
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
