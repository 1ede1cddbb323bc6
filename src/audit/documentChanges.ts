import { isDeepStrictEqual } from 'node:util';
import type { Queryable } from '../db/Db.js';
import type { DocumentChangeSink } from '../documents/DocumentChangeSink.js';
import type { DocumentRecord } from '../documents/types.js';
import type { AuditChange, AuditState } from './types.js';

/** The fields of a document an audit entry compares; content is compared by hash. */
const FIELDS = ['title', 'documentType', 'source', 'tags', 'metadata', 'expiresAt'] as const;

/** A short stand-in for content in `after` (and in `before` where no undo needs the text). */
function contentSummary(doc: DocumentRecord): AuditState {
  return { contentHash: doc.contentHash, contentChars: doc.content.length };
}

/** Everything needed to write the document again (an undone delete). */
export function fullState(doc: DocumentRecord): AuditState {
  return {
    title: doc.title,
    content: doc.content,
    documentType: doc.documentType,
    source: doc.source,
    tags: doc.tags,
    metadata: doc.metadata,
    expiresAt: doc.expiresAt?.toISOString() ?? null,
  };
}

function fieldValue(doc: DocumentRecord, field: (typeof FIELDS)[number]): unknown {
  const value = doc[field];
  return value instanceof Date ? value.toISOString() : value;
}

/**
 * The compact record of a document change: a create keeps a summary of what was written; an update keeps the changed
 * fields only, with the previous content in full when it changed (so that it can be undone) and a summary after.
 */
export function documentChange(before: DocumentRecord | undefined, after: DocumentRecord): AuditChange {
  const summary: AuditState = { title: after.title, documentType: after.documentType, ...contentSummary(after) };
  if (!before)
    return { operation: 'createDocument', targetKind: 'DOCUMENT', targetIds: [after.id], before: null, after: summary };
  const was: AuditState = {};
  const now: AuditState = {};
  for (const field of FIELDS) {
    if (isDeepStrictEqual(fieldValue(before, field), fieldValue(after, field))) continue;
    was[field] = fieldValue(before, field);
    now[field] = fieldValue(after, field);
  }
  if (before.contentHash !== after.contentHash) {
    was.content = before.content;
    Object.assign(now, contentSummary(after));
  }
  return { operation: 'updateDocument', targetKind: 'DOCUMENT', targetIds: [after.id], before: was, after: now };
}

/** The audit log's side of document writes: entries are written in the write's own transaction. */
export function documentChangeSink(
  record: (changes: readonly AuditChange[], tx: Queryable) => Promise<void>,
): DocumentChangeSink {
  return {
    written: (tx, changes) =>
      record(
        changes.map((c) => documentChange(c.before, c.after)),
        tx,
      ),
    deleted: (tx, before) =>
      record(
        [
          {
            operation: 'deleteDocument',
            targetKind: 'DOCUMENT',
            targetIds: [before.id],
            before: fullState(before),
            after: null,
          },
        ],
        tx,
      ),
  };
}
