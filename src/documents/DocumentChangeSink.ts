import type { Queryable } from '../db/Db.js';
import type { DocumentRecord } from './types.js';

/** Told of every document change inside the change's transaction (the audit log), so it commits or rolls back with it. */
export interface DocumentChangeSink {
  /** Documents a write changed: `before` is undefined for a new one. Unchanged documents are not passed. */
  written(
    tx: Queryable,
    changes: readonly { before: DocumentRecord | undefined; after: DocumentRecord }[],
  ): Promise<void>;
  /** A document just deleted, as it was. */
  deleted(tx: Queryable, before: DocumentRecord): Promise<void>;
}
