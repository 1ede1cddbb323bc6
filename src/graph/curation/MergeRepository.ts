import type { Queryable } from '../../db/Db.js';
import { spaceSql, writeSpace } from '../../db/spaceScope.js';
import { toDate, toDateOrNull } from '../../db/rowValues.js';
import type { JsonObject } from '../../shared/json.js';
import type { EntityRecord, RelationshipRecord } from '../types.js';

/** An evidence row as a snapshot keeps it (see EvidenceReader's StoredEvidence; dates as ISO text). */
export interface SnapshotEvidence {
  factKey: string;
  fact: JsonObject;
  documentId: string;
  chunkId: string | null;
  extractor: string;
  quote: string;
  confidence: number;
  createdAt: string;
}

/** An entity as a snapshot keeps it: its record without the timestamps. */
export type SnapshotEntity = Omit<EntityRecord, 'createdAt' | 'updatedAt'>;

/** A relationship as a snapshot keeps it: its record without the timestamp. */
export type SnapshotRelationship = Omit<RelationshipRecord, 'createdAt'>;

/** What a merge changed, so that undoMerge can put it back. */
export interface MergeSnapshot {
  merged: SnapshotEntity;
  keepBefore: SnapshotEntity;
  /** The kept entity's updatedAt (ms) right after the merge: a later change to it makes the undo a CONFLICT. */
  keepAfterUpdatedAt: number;
  /** The merged entity's relationships. */
  relationships: SnapshotRelationship[];
  /** Relationships the merge created on the kept entity (those that did not exist already). */
  createdRelationshipIds: string[];
  /** Documents explicitly linked to the merged entity. */
  explicitDocumentIds: string[];
  /** Mentions of the kept entity the merge added (its new aliases, the merged entity's explicit links). */
  addedMentions: { documentId: string; chunkId: string | null; source: 'auto' | 'explicit' }[];
  /** The evidence of the merged entity and its relationships, and the rows the merge moved (by their new key). */
  evidence: SnapshotEvidence[];
  movedEvidence: { factKey: string; documentId: string; chunkId: string | null; extractor: string }[];
}

/** A merge as recorded. */
export interface MergeRecord {
  id: string;
  keepId: string;
  mergedId: string;
  snapshot: MergeSnapshot;
  createdAt: Date;
  undoneAt: Date | null;
}

interface MergeRow {
  id: string;
  keep_id: string;
  merged_id: string;
  snapshot: MergeSnapshot;
  created_at: Date | string;
  undone_at: Date | string | null;
}

const COLUMNS = 'id, keep_id, merged_id, snapshot, created_at, undone_at';

const toRecord = (r: MergeRow): MergeRecord => ({
  id: r.id,
  keepId: r.keep_id,
  mergedId: r.merged_id,
  snapshot: r.snapshot,
  createdAt: toDate(r.created_at),
  undoneAt: toDateOrNull(r.undone_at),
});

/** The `entity_merges` table: admins' merges with their snapshots, each in the space it was made in. */
export class MergeRepository {
  constructor(private readonly db: Queryable) {}

  async insert(id: string, keepId: string, mergedId: string, snapshot: MergeSnapshot): Promise<MergeRecord> {
    const { rows } = await this.db.query<MergeRow>(
      `INSERT INTO entity_merges (id, keep_id, merged_id, snapshot, space_id) VALUES ($1, $2, $3, $4::jsonb, $5)
       RETURNING ${COLUMNS}`,
      [id, keepId, mergedId, JSON.stringify(snapshot), writeSpace()],
    );
    return toRecord(rows[0] as MergeRow);
  }

  async get(id: string): Promise<MergeRecord | undefined> {
    const params: unknown[] = [id];
    const { rows } = await this.db.query<MergeRow>(
      `SELECT ${COLUMNS} FROM entity_merges m WHERE id = $1 AND ${spaceSql('m', params)}`,
      params,
    );
    return rows[0] && toRecord(rows[0]);
  }

  /** Marks a merge undone; false when it already was (so of two concurrent undos one wins). */
  async claimUndo(id: string): Promise<boolean> {
    const params: unknown[] = [id];
    const { rowCount } = await this.db.query(
      `UPDATE entity_merges m SET undone_at = now() WHERE id = $1 AND undone_at IS NULL AND ${spaceSql('m', params)}`,
      params,
    );
    return rowCount > 0;
  }

  /** Deletes a space's merges (its deletion); returns how many. */
  async deleteSpace(space: string): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM entity_merges WHERE space_id = $1', [space]);
    return rowCount;
  }

  /** Takes back `claimUndo` (the undo failed). */
  async releaseUndo(id: string): Promise<void> {
    const params: unknown[] = [id];
    await this.db.query(
      `UPDATE entity_merges m SET undone_at = NULL WHERE id = $1 AND ${spaceSql('m', params)}`,
      params,
    );
  }
}

/** An entity's fields as a snapshot keeps them. */
export function snapshotEntity(e: EntityRecord): SnapshotEntity {
  return {
    id: e.id,
    type: e.type,
    name: e.name,
    aliases: e.aliases,
    description: e.description,
    properties: e.properties,
    origin: e.origin,
  };
}

/** A relationship's fields as a snapshot keeps them. */
export function snapshotRelationship(r: RelationshipRecord): SnapshotRelationship {
  return { id: r.id, type: r.type, fromId: r.fromId, toId: r.toId, properties: r.properties, origin: r.origin };
}
