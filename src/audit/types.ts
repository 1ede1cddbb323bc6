import type { Actor } from './actor.js';

/** What an audit entry is about. */
export type AuditTargetKind = 'DOCUMENT' | 'ENTITY' | 'RELATIONSHIP';

/** A JSON object as stored in `before` and `after`. */
export type AuditState = Record<string, unknown>;

/** One change to record. `before` is null for a create, `after` null for a delete. */
export interface AuditChange {
  operation: string;
  targetKind: AuditTargetKind;
  targetIds: string[];
  before: AuditState | null;
  after: AuditState | null;
  /** Set on the entry an undo writes: the entry it reverted. */
  undoes?: string;
}

/** A recorded change. */
export interface AuditEntryRecord extends Omit<AuditChange, 'undoes'> {
  id: string;
  at: Date;
  actor: Actor;
  undoes: string | null;
  undoneBy: string | null;
  /** The import or sync job that made the change, if a job did. */
  jobId: string | null;
}

/** Which entries `auditLog` lists; every given condition must hold. */
export interface AuditFilterSpec {
  /** The actor's key id or name. */
  actor?: string;
  targetId?: string;
  operation?: string;
  /** The import or sync job that made the changes. */
  jobId?: string;
  from?: Date;
  to?: Date;
}

/** One page of entries, newest first. */
export interface AuditPage {
  rows: { cursor: string; entry: AuditEntryRecord }[];
  hasNextPage: boolean;
  totalCount: number;
}
