import { isDeepStrictEqual } from 'node:util';
import { snapshotEntity, snapshotRelationship } from '../graph/curation/MergeRepository.js';
import type { MergeRecord } from '../graph/curation/MergeRepository.js';
import type { Rejection } from '../graph/curation/FactRejection.js';
import type { EntityRecord, RelationshipRecord } from '../graph/types.js';
import type { AuditChange, AuditState } from './types.js';

/** What writing the entity again needs (an undone delete or update); its id is the entry's target. */
export function entityState(e: EntityRecord): AuditState {
  const { id: _id, ...fields } = snapshotEntity(e);
  return fields;
}

/** What writing the relationship again needs. */
export function relationshipState(r: RelationshipRecord): AuditState {
  return { ...snapshotRelationship(r) };
}

export function entityCreated(after: EntityRecord): AuditChange {
  return {
    operation: 'createEntity',
    targetKind: 'ENTITY',
    targetIds: [after.id],
    before: null,
    after: entityState(after),
  };
}

export function entityUpdated(before: EntityRecord, after: EntityRecord): AuditChange {
  return {
    operation: 'updateEntity',
    targetKind: 'ENTITY',
    targetIds: [after.id],
    before: entityState(before),
    after: entityState(after),
  };
}

/** A deleted entity with the relationships that went with it, so an undo brings both back. */
export function entityDeleted(before: EntityRecord, relationships: readonly RelationshipRecord[]): AuditChange {
  return {
    operation: 'deleteEntity',
    targetKind: 'ENTITY',
    targetIds: [before.id],
    before: { ...entityState(before), relationships: relationships.map(relationshipState) },
    after: null,
  };
}

export function relationshipCreated(after: RelationshipRecord, before: RelationshipRecord | undefined): AuditChange {
  return {
    operation: before ? 'updateRelationship' : 'createRelationship',
    targetKind: 'RELATIONSHIP',
    targetIds: [after.id, after.fromId, after.toId],
    before: before ? relationshipState(before) : null,
    after: relationshipState(after),
  };
}

export function relationshipDeleted(before: RelationshipRecord): AuditChange {
  return {
    operation: 'deleteRelationship',
    targetKind: 'RELATIONSHIP',
    targetIds: [before.id, before.fromId, before.toId],
    before: relationshipState(before),
    after: null,
  };
}

function sameFacts<T>(a: T, b: T): boolean {
  return isDeepStrictEqual(a, b);
}

/**
 * A bulk write: the ids it touched and how many, not every value (imports write thousands). For its undo it keeps the
 * ids it created and, in `before`, the previous state of the facts it changed (unchanged ones are left out).
 */
export function graphUpserted(
  entities: readonly EntityRecord[],
  relationships: readonly RelationshipRecord[],
  origin: string | undefined,
  prior: { entities: readonly EntityRecord[]; relationships: readonly RelationshipRecord[] },
): AuditChange {
  const priorEntities = new Map(prior.entities.map((e) => [e.id, snapshotEntity(e)]));
  const priorRelationships = new Map(prior.relationships.map((r) => [r.id, snapshotRelationship(r)]));
  const changedEntities = entities
    .map((e) => priorEntities.get(e.id))
    .filter((was, i) => was !== undefined && !sameFacts(was, snapshotEntity(entities[i] as EntityRecord)));
  const changedRelationships = relationships
    .map((r) => priorRelationships.get(r.id))
    .filter(
      (was, i) => was !== undefined && !sameFacts(was, snapshotRelationship(relationships[i] as RelationshipRecord)),
    );
  return {
    operation: 'upsertGraph',
    targetKind: 'ENTITY',
    targetIds: [...entities.map((e) => e.id), ...relationships.map((r) => r.id)],
    before:
      changedEntities.length + changedRelationships.length > 0
        ? { entities: changedEntities, relationships: changedRelationships }
        : null,
    after: {
      entities: entities.length,
      relationships: relationships.length,
      origin: origin ?? 'MANUAL',
      createdEntities: entities.filter((e) => !priorEntities.has(e.id)).map((e) => e.id),
      createdRelationships: relationships.filter((r) => !priorRelationships.has(r.id)).map((r) => r.id),
    },
  };
}

/** A merge of two entities: undone through undoMerge, which restores both from the merge's own snapshot. */
export function entitiesMerged(record: MergeRecord): AuditChange {
  const s = record.snapshot;
  return {
    operation: 'mergeEntities',
    targetKind: 'ENTITY',
    targetIds: [record.keepId, record.mergedId],
    before: { kept: { ...s.keepBefore }, merged: { ...s.merged } },
    after: { mergeId: record.id, keptId: record.keepId, mergedId: record.mergedId },
  };
}

/** undoMerge called directly (not through undo). */
export function mergeUndone(record: MergeRecord): AuditChange {
  return {
    operation: 'undoMerge',
    targetKind: 'ENTITY',
    targetIds: [record.keepId, record.mergedId],
    before: { mergeId: record.id },
    after: { kept: { ...record.snapshot.keepBefore }, merged: { ...record.snapshot.merged } },
  };
}

/**
 * A rejected extracted fact: `before` is what its undo writes back (the fact, an entity's relationships, the evidence
 * kept), `after` what extraction is kept from writing again.
 */
export function factRejected(r: Rejection): AuditChange {
  if (r.kind === 'entity')
    return {
      operation: 'rejectEntity',
      targetKind: 'ENTITY',
      targetIds: [r.entity.id],
      before: {
        ...entityState(r.entity),
        relationships: r.relationships.map(relationshipState),
        evidence: r.evidence,
      },
      after: { rejectedName: r.rejectedName },
    };
  const rel = r.relationship;
  return {
    operation: 'rejectRelationship',
    targetKind: 'RELATIONSHIP',
    targetIds: [rel.id, rel.fromId, rel.toId],
    before: { ...relationshipState(rel), evidence: r.evidence },
    after: { rejected: { fromId: rel.fromId, type: rel.type, toId: rel.toId } },
  };
}
