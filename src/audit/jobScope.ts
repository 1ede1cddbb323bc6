import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<string>();

/** Runs the body of import job `jobId`: every change it makes is recorded as that job's, so the job can be undone. */
export function runInJob<T>(jobId: string, work: () => Promise<T>): Promise<T> {
  return scope.run(jobId, work);
}

/** The import or sync job running in this async context, if any. */
export function currentJob(): string | undefined {
  return scope.getStore();
}
