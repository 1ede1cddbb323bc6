import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/Db.js';
import { AppError, ErrorCode, badInput, notFound } from '../../errors.js';
import type { EvidenceCuration } from '../../extraction/EvidenceCuration.js';
import { entityFactKey, relationshipFactKey, type EvidenceReader } from '../../extraction/EvidenceReader.js';
import type { GraphService } from '../GraphService.js';
import type { GraphStore } from '../GraphStore.js';
import type { MentionLinker } from '../mentions/MentionLinker.js';
import type { EntityRecord, RelationshipRecord, RelationshipWrite } from '../types.js';
import { RejectionRepository } from '../../extraction/RejectionRepository.js';
import { relationshipId, validateEntityId } from '../validateGraphInput.js';
import {
  MergeRepository,
  snapshotEntity,
  snapshotRelationship,
  type MergeRecord,
  type MergeSnapshot,
} from './MergeRepository.js';
import { FactRejection, type RejectionAudit, type RejectionRecord } from './FactRejection.js';

export type { RejectionRecord } from './FactRejection.js';

/** Most aliases an entity keeps (validateGraphInput's limit); a merge keeps the first ones. */
const MAX_ALIASES = 50;

/** Told of merges, their undos and rejections (the audit log). */
export interface CurationAudit extends RejectionAudit {
  merged(record: MergeRecord): Promise<void>;
  mergeUndone(record: MergeRecord): Promise<void>;
}

/**
 * Admins' curation of the graph: merging two entities (undoable from a snapshot in `entity_merges`) and rejecting
 * extracted facts so that extraction never writes them again (FactRejection). Works on both graph stores.
 */
export class CurationService {
  private readonly merges: MergeRepository;
  /** Rejecting extracted facts, and lifting a rejection (its undo). */
  readonly rejection: FactRejection;

  private readonly store: GraphStore;
  private readonly linker: MentionLinker;

  /** `internals`: the graph's store and mention linker, which curation rewrites beside the graph service. */
  constructor(
    private readonly db: Db,
    private readonly graph: GraphService,
    internals: { store: GraphStore; linker: MentionLinker },
    private readonly evidence: { reader: EvidenceReader; curation: EvidenceCuration },
    private readonly audit?: CurationAudit,
  ) {
    this.merges = new MergeRepository(db);
    this.store = internals.store;
    this.linker = internals.linker;
    this.rejection = new FactRejection(db, graph, internals.store, evidence, audit);
  }

  /** Deletes a space's merges and rejections (its deletion); returns how many rows went. */
  async deleteSpace(space: string): Promise<number> {
    return (await this.merges.deleteSpace(space)) + (await new RejectionRepository(this.db).deleteSpace(space));
  }

  /**
   * Merges `mergeId` into `keepId`: its name and aliases become the kept entity's aliases, its relationships,
   * explicit document links and evidence move over, and it is deleted. Returns the merge record (undoMerge takes its id).
   */
  async mergeEntities(keepId: string, mergeId: string): Promise<MergeRecord> {
    validateEntityId(keepId, 'keepId');
    validateEntityId(mergeId, 'mergeId');
    if (keepId === mergeId) throw badInput('mergeId', 'give an entity other than keepId');
    const byId = new Map((await this.graph.getEntities([keepId, mergeId])).map((e) => [e.id, e]));
    const keep = byId.get(keepId);
    const merged = byId.get(mergeId);
    if (!keep) throw notFound('Entity', keepId);
    if (!merged) throw notFound('Entity', mergeId);
    const store = this.store;
    const relationships = await store.relationshipsOf([mergeId], 'BOTH');
    const explicitDocumentIds = [
      ...new Set((await this.linker.mentionsOf(mergeId, 'explicit')).map((m) => m.documentId)),
    ];
    const keepMentionsBefore = await this.keepMentions(keepId);
    const factKeys = [entityFactKey(mergeId), ...relationships.map((r) => relationshipFactKey(r.id))];
    const evidence = await this.evidence.reader.allOf(this.db, factKeys);

    const [keepAfter] = await store.upsertEntities([
      { ...keep, aliases: mergedAliases(keep, merged), origin: keep.origin },
    ]);
    await this.linker.entitiesChanged([{ entityId: keepId, name: keep.name, aliases: keepAfter!.aliases }]);
    const rewired = rewire(relationships, mergeId, keepId);
    const existing = new Set((await store.getRelationships(rewired.map((r) => r.write.id))).map((r) => r.id));
    const created = rewired.filter((r) => !existing.has(r.write.id)).map((r) => r.write);
    await store.upsertRelationships(created);
    const kept = new Set(rewired.map((r) => r.from));
    const movedEvidence = await this.db.transaction(async (tx) => {
      const moved = await this.evidence.curation.move(tx, [
        { from: entityFactKey(mergeId), to: entityFactKey(keepId), patch: { id: keepId } },
        ...rewired.map((r) => ({
          from: relationshipFactKey(r.from),
          to: relationshipFactKey(r.write.id),
          patch: { fromId: r.write.fromId, toId: r.write.toId },
        })),
      ]);
      const dropped = relationships.filter((r) => !kept.has(r.id)).map((r) => relationshipFactKey(r.id));
      await this.evidence.curation.deleteFacts(tx, dropped);
      return moved;
    });
    for (const documentId of explicitDocumentIds) await this.linkIfLive(documentId, keepId);
    const addedMentions = [...(await this.keepMentions(keepId)).entries()]
      .filter(([key]) => !keepMentionsBefore.has(key))
      .map(([, m]) => m);
    await this.graph.deleteEntity(mergeId);
    this.graph.documentsWritten();

    const snapshot: MergeSnapshot = {
      merged: snapshotEntity(merged),
      keepBefore: snapshotEntity(keep),
      keepAfterUpdatedAt: keepAfter!.updatedAt.getTime(),
      relationships: relationships.map(snapshotRelationship),
      createdRelationshipIds: created.map((r) => r.id),
      explicitDocumentIds,
      addedMentions,
      evidence: evidence.map((e) => ({ ...e, createdAt: e.createdAt.toISOString() })),
      movedEvidence,
    };
    const record = await this.merges.insert(`merge_${randomUUID()}`, keepId, mergeId, snapshot);
    await this.audit?.merged(record);
    return record;
  }

  /**
   * Undoes a merge: the merged entity comes back with its relationships, explicit links and evidence, and the kept
   * entity as it was. CONFLICT when the merge was undone already or a later change touched what it wrote.
   */
  async undoMerge(mergeId: string): Promise<MergeRecord> {
    const record = await this.merges.get(mergeId);
    if (!record) throw notFound('EntityMerge', mergeId);
    if (record.undoneAt) throw conflict(mergeId, 'it was undone already');
    const s = record.snapshot;
    const [keep] = await this.graph.getEntities([record.keepId]);
    if (!keep || keep.updatedAt.getTime() !== s.keepAfterUpdatedAt)
      throw conflict(mergeId, `entity "${record.keepId}" changed (or was deleted) since the merge`);
    if ((await this.graph.getEntities([record.mergedId])).length > 0)
      throw conflict(mergeId, `an entity "${record.mergedId}" exists again`);
    const created = await this.graph.getRelationships(s.createdRelationshipIds);
    if (created.length !== s.createdRelationshipIds.length)
      throw conflict(mergeId, `relationships the merge wrote on "${record.keepId}" were deleted since`);
    if (!(await this.merges.claimUndo(mergeId))) throw conflict(mergeId, 'it was undone already');
    try {
      await this.restore(record);
    } catch (err) {
      await this.merges.releaseUndo(mergeId);
      throw err;
    }
    const undone = (await this.merges.get(mergeId)) as MergeRecord;
    await this.audit?.mergeUndone(undone);
    return undone;
  }

  /**
   * Makes an EXTRACTED entity curated (MANUAL): extraction no longer changes or removes it. Its evidence stays. An
   * entity people or importers wrote is returned as it is. Recorded as an update, so undo makes it EXTRACTED again.
   */
  async acceptEntity(id: string): Promise<EntityRecord> {
    validateEntityId(id);
    const [entity] = await this.graph.getEntities([id]);
    if (!entity) throw notFound('Entity', id);
    if (entity.origin !== 'EXTRACTED') return entity;
    return this.graph.updateEntity(id, {}, { origin: 'MANUAL' });
  }

  /** Makes an EXTRACTED relationship curated (MANUAL), as acceptEntity does for entities. */
  async acceptRelationship(id: string): Promise<RelationshipRecord> {
    const [relationship] = await this.graph.getRelationships([id]);
    if (!relationship) throw notFound('Relationship', id);
    if (relationship.origin !== 'EXTRACTED') return relationship;
    const { fromId, toId, type, properties } = relationship;
    return this.graph.createRelationship({ fromId, toId, type, properties }, { origin: 'MANUAL' });
  }

  /** Rejects an EXTRACTED entity (see FactRejection.rejectEntity). */
  rejectEntity(id: string): Promise<RejectionRecord> {
    return this.rejection.rejectEntity(id);
  }

  /** Rejects an EXTRACTED relationship (see FactRejection.rejectRelationship). */
  rejectRelationship(id: string): Promise<RelationshipRecord> {
    return this.rejection.rejectRelationship(id);
  }

  /** Puts back what a merge changed (its preconditions checked). */
  private async restore(record: MergeRecord): Promise<void> {
    const s = record.snapshot;
    const store = this.store;
    const [merged, keep] = await store.upsertEntities([s.merged, s.keepBefore]);
    await this.linker.entitiesChanged(
      [merged!, keep!].map((e) => ({ entityId: e.id, name: e.name, aliases: e.aliases })),
    );
    for (const id of s.createdRelationshipIds) await store.deleteRelationship(id);
    await store.upsertRelationships(s.relationships);
    await this.db.transaction(async (tx) => {
      await this.evidence.curation.deleteRows(tx, s.movedEvidence);
      await this.evidence.curation.restore(
        tx,
        s.evidence.map((e) => ({ ...e, createdAt: new Date(e.createdAt) })),
      );
    });
    for (const source of ['auto', 'explicit'] as const) {
      const added = s.addedMentions.filter((m) => m.source === source);
      await this.linker.removeMentions(
        added.map((m) => ({ entityId: record.keepId, documentId: m.documentId, chunkId: m.chunkId })),
        source,
      );
    }
    for (const documentId of s.explicitDocumentIds) await this.linkIfLive(documentId, record.mergedId);
    this.graph.documentsWritten();
  }

  /** The kept entity's mentions of both sources, by (source, document, chunk). */
  private async keepMentions(keepId: string): Promise<Map<string, MergeSnapshot['addedMentions'][number]>> {
    const out = new Map<string, MergeSnapshot['addedMentions'][number]>();
    for (const source of ['auto', 'explicit'] as const)
      for (const m of await this.linker.mentionsOf(keepId, source))
        out.set(`${source}\u0000${m.documentId}\u0000${m.chunkId ?? ''}`, {
          documentId: m.documentId,
          chunkId: m.chunkId,
          source,
        });
    return out;
  }

  /** Links a document explicitly to an entity, unless the document is gone meanwhile. */
  private async linkIfLive(documentId: string, entityId: string): Promise<void> {
    try {
      await this.linker.linkExplicit(documentId, [entityId]);
    } catch (err) {
      if (!(err instanceof AppError && err.code === ErrorCode.NOT_FOUND)) throw err;
    }
  }
}

/** The kept entity's aliases after a merge: its own, then the merged entity's name and aliases, each once. */
export function mergedAliases(keep: EntityRecord, merged: EntityRecord): string[] {
  const seen = new Set([keep.name.toLowerCase()]);
  const out: string[] = [];
  for (const a of [...keep.aliases, merged.name, ...merged.aliases]) {
    if (seen.has(a.toLowerCase())) continue;
    seen.add(a.toLowerCase());
    out.push(a);
  }
  return out.slice(0, MAX_ALIASES);
}

/**
 * The merged entity's relationships re-pointed at the kept one (`from`: the original id). Relationships between the
 * two would become loops on the kept entity and are dropped; the merged entity's own loops stay loops.
 */
function rewire(
  relationships: readonly RelationshipRecord[],
  mergeId: string,
  keepId: string,
): { from: string; write: RelationshipWrite }[] {
  const out: { from: string; write: RelationshipWrite }[] = [];
  for (const r of relationships) {
    const fromId = r.fromId === mergeId ? keepId : r.fromId;
    const toId = r.toId === mergeId ? keepId : r.toId;
    if (fromId === keepId && toId === keepId && r.fromId !== r.toId) continue;
    const id = relationshipId(fromId, r.type, toId);
    out.push({ from: r.id, write: { id, type: r.type, fromId, toId, properties: r.properties, origin: r.origin } });
  }
  return out;
}

function conflict(mergeId: string, why: string): AppError {
  return new AppError(ErrorCode.CONFLICT, `merge "${mergeId}" cannot be undone: ${why}`, { id: mergeId });
}
