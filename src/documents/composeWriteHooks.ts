import type { Queryable } from '../db/Db.js';
import type { DocumentWriteHook, WrittenDocument } from './DocumentWriteHook.js';

/** One hook that runs several in order, in the write's transaction (the first that throws aborts the write). */
export function composeWriteHooks(...hooks: readonly (DocumentWriteHook | undefined)[]): DocumentWriteHook {
  const list = hooks.filter((h): h is DocumentWriteHook => h !== undefined);
  return {
    async beforeWrite(tx: Queryable, documents: readonly { documentId: string; explicitEntityIds: string[] }[]) {
      for (const hook of list) await hook.beforeWrite(tx, documents);
    },
    async afterWrite(tx: Queryable, documents: readonly WrittenDocument[]) {
      for (const hook of list) await hook.afterWrite(tx, documents);
    },
    async afterDelete(tx: Queryable, documentId: string) {
      for (const hook of list) await hook.afterDelete(tx, documentId);
    },
  };
}
