import type { Queryable } from '../db/Db.js';
import { DEFAULT_SPACE, writeSpace } from '../db/spaceScope.js';
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

/**
 * `hook` for writes in the `default` space only: graph extraction runs in the background, outside the writer's
 * space, and would put what it finds in `default`; until it carries the space, documents of other spaces are not
 * queued for it.
 */
export function defaultSpaceOnly(hook: DocumentWriteHook): DocumentWriteHook {
  const inDefault = () => writeSpace() === DEFAULT_SPACE;
  return {
    beforeWrite: (tx, documents) => (inDefault() ? hook.beforeWrite(tx, documents) : Promise.resolve()),
    afterWrite: (tx, documents) => (inDefault() ? hook.afterWrite(tx, documents) : Promise.resolve()),
    afterDelete: (tx, documentId) => hook.afterDelete(tx, documentId),
  };
}
