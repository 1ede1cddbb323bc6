import type { Db } from '../../db/Db.js';
import { badInput, notFound } from '../../errors.js';
import type { EvidenceCuration } from '../../extraction/EvidenceCuration.js';
import {
  entityFactKey,
  relationshipFactKey,
  type EvidenceReader,
  type StoredEvidence,
} from '../../extraction/EvidenceReader.js';
import type { GraphService } from '../GraphService.js';
import type { GraphStore } from '../GraphStore.js';
import type { EntityRecord, RelationshipRecord } from '../types.js';
import { validateEntityId } from '../validateGraphInput.js';
import type { SnapshotEvidence } from './MergeRepository.js';

/** Most evidence rows a rejection keeps for its undo; the rest returns when the documents are extracted again. */
export const MAX_KEPT_EVIDENCE = 200;

/** What rejectEntity did. */
export interface RejectionRecord {
  id: string;
  /** The normalised name extraction will not create again. */
  rejectedName: string;
}

/** A rejection as the audit log records it (what its undo puts back). */
export type Rejection =
  | {
      kind: 'entity';
      entity: EntityRecord;
      relationships: RelationshipRecord[];
      evidence: SnapshotEvidence[];
      rejectedName: string;
    }
  | { kind: 'relationship'; relationship: RelationshipRecord; evidence: SnapshotEvidence[] };

/** Told of rejections (the audit log). */
export interface RejectionAudit {
  rejected(rejection: Rejection): Promise<void>;
}

/**
 * Rejecting extracted facts: the fact is deleted with its evidence and extraction never writes it again (an entity by
 * its normalised name, a relationship by its id); lifting a rejection (its undo) lets extraction write it again.
 */
export class FactRejection {
  constructor(
    private readonly db: Db,
    private readonly graph: GraphService,
    private readonly store: GraphStore,
    private readonly evidence: { reader: EvidenceReader; curation: EvidenceCuration },
    private readonly audit?: RejectionAudit,
  ) {}

  /**
   * Deletes an EXTRACTED entity with its relationships and evidence, and records its normalised name so that
   * extraction never creates it again. BAD_USER_INPUT for entities people or importers wrote.
   */
  async rejectEntity(id: string): Promise<RejectionRecord> {
    validateEntityId(id);
    const [entity] = await this.graph.getEntities([id]);
    if (!entity) throw notFound('Entity', id);
    if (entity.origin !== 'EXTRACTED')
      throw badInput(
        'id',
        `entity "${id}" is ${entity.origin}, not EXTRACTED: rejectEntity only refuses extracted entities; use deleteEntity`,
      );
    const relationships = await this.store.relationshipsOf([id], 'BOTH');
    const keys = [entityFactKey(id), ...relationships.map((r) => relationshipFactKey(r.id))];
    const { rejectedName, evidence } = await this.db.transaction(async (tx) => {
      const kept = await this.evidence.reader.allOf(tx, keys);
      const key = await this.evidence.curation.reject(tx, entity.name);
      await this.evidence.curation.deleteFacts(tx, keys);
      return { rejectedName: key, evidence: kept };
    });
    await this.graph.removeExtractedFacts([id], []);
    await this.audit?.rejected({ kind: 'entity', entity, relationships, evidence: keep(evidence), rejectedName });
    return { id, rejectedName };
  }

  /**
   * Deletes an EXTRACTED relationship with its evidence and records its id (its ends and type) so that extraction
   * never writes it again. BAD_USER_INPUT for relationships people or importers wrote.
   */
  async rejectRelationship(id: string): Promise<RelationshipRecord> {
    const [relationship] = await this.graph.getRelationships([id]);
    if (!relationship) throw notFound('Relationship', id);
    if (relationship.origin !== 'EXTRACTED')
      throw badInput(
        'id',
        `relationship "${id}" is ${relationship.origin}, not EXTRACTED: rejectRelationship only refuses extracted relationships; use deleteRelationship`,
      );
    const evidence = await this.db.transaction(async (tx) => {
      const kept = await this.evidence.reader.allOf(tx, [relationshipFactKey(id)]);
      await this.evidence.curation.rejectRelationship(tx, relationship);
      await this.evidence.curation.deleteFacts(tx, [relationshipFactKey(id)]);
      return kept;
    });
    await this.graph.removeExtractedFacts([], [id]);
    await this.audit?.rejected({ kind: 'relationship', relationship, evidence: keep(evidence) });
    return relationship;
  }

  /**
   * Lifts a rejection (its undo, once the fact is written back): extraction may write the fact again, and its kept
   * evidence is restored; the extracted facts among `restored` become extraction's own again.
   */
  async lift(
    rejection: { entityName?: string; relationshipId?: string },
    evidence: readonly SnapshotEvidence[],
    restored: readonly { factKey: string; origin: string }[],
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (rejection.entityName !== undefined) await this.evidence.curation.unreject(tx, rejection.entityName);
      if (rejection.relationshipId !== undefined)
        await this.evidence.curation.unrejectRelationship(tx, rejection.relationshipId);
      await this.evidence.curation.restore(
        tx,
        evidence.map((e) => ({ ...e, createdAt: new Date(e.createdAt) })),
      );
      await this.evidence.curation.markExtracted(
        tx,
        restored.filter((f) => f.origin === 'EXTRACTED' && f.factKey.startsWith('r:')).map((f) => f.factKey),
      );
    });
  }
}

function keep(evidence: readonly StoredEvidence[]): SnapshotEvidence[] {
  return evidence.slice(0, MAX_KEPT_EVIDENCE).map((e) => ({ ...e, createdAt: e.createdAt.toISOString() }));
}
