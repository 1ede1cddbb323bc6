import { snapshotEntity, snapshotRelationship } from '../graph/curation/MergeRepository.js';
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

/** A bulk write: the ids it touched and how many, not every value (imports write thousands). */
export function graphUpserted(
  entities: readonly EntityRecord[],
  relationships: readonly RelationshipRecord[],
  origin: string | undefined,
): AuditChange {
  return {
    operation: 'upsertGraph',
    targetKind: 'ENTITY',
    targetIds: [...entities.map((e) => e.id), ...relationships.map((r) => r.id)],
    before: null,
    after: { entities: entities.length, relationships: relationships.length, origin: origin ?? 'MANUAL' },
  };
}
