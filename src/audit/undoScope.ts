import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<string>();

/** Runs the revert of audit entry `auditId`: the changes it makes are recorded as part of that undo. */
export function runUndo<T>(auditId: string, work: () => Promise<T>): Promise<T> {
  return scope.run(auditId, work);
}

/** The audit entry being undone in this async context, if any. */
export function currentUndo(): string | undefined {
  return scope.getStore();
}
