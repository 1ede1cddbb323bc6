import type { EntityRecord, Origin, RelationshipRecord } from './types.js';

/** Told of each graph change a person or an importer makes (the audit log); extraction's own writes are not passed. */
export interface GraphAudit {
  entityCreated(after: EntityRecord): Promise<void>;
  entityUpdated(before: EntityRecord, after: EntityRecord): Promise<void>;
  entityDeleted(before: EntityRecord, relationships: readonly RelationshipRecord[]): Promise<void>;
  graphUpserted(
    entities: readonly EntityRecord[],
    relationships: readonly RelationshipRecord[],
    origin: Origin | undefined,
    prior: { entities: readonly EntityRecord[]; relationships: readonly RelationshipRecord[] },
  ): Promise<void>;
  relationshipWritten(after: RelationshipRecord, before: RelationshipRecord | undefined): Promise<void>;
  relationshipDeleted(before: RelationshipRecord): Promise<void>;
}
