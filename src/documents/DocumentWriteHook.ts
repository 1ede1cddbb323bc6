import type { Queryable } from '../db/Db.js';

/** A document as a write left it, for hooks that derive data from it (mentions). */
export interface WrittenDocument {
  documentId: string;
  title: string;
  /** False when the write changed nothing; `chunks` is then empty. */
  changed: boolean;
  /** Every chunk of a changed document, with its id. */
  chunks: { id: string; content: string }[];
  /** Entities the caller linked explicitly. */
  explicitEntityIds: string[];
}

/** Work that must commit or roll back together with document writes. */
export interface DocumentWriteHook {
  /** Runs first inside the write's transaction, before any lock is taken or row written; throwing aborts the write. */
  beforeWrite(tx: Queryable, documents: readonly { documentId: string; explicitEntityIds: string[] }[]): Promise<void>;
  /** Runs inside the write's transaction after documents and chunks are written. */
  afterWrite(tx: Queryable, documents: readonly WrittenDocument[]): Promise<void>;
  /** Runs inside the delete's transaction. */
  afterDelete(tx: Queryable, documentId: string): Promise<void>;
}
