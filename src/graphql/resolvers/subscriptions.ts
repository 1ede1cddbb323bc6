import type { ImportJobRecord } from '../../../importers/index.js';
import { FINISHED_STATUSES } from '../../../importers/index.js';
import type { SourceRecord } from '../../../importers/index.js';
import { notFound } from '../../errors.js';
import type { Resolvers } from '../generated/types.js';

/** How often a subscription looks at the database: jobs may run in another process, so changes are read, not pushed. */
export const SUBSCRIPTION_POLL_MS = 250;

/** Resolves after `ms`, or at once when `signal` fires. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * Yields each new state of what `read` returns (one whose `key` differs from the last one sent), until `done` says the
 * last one sent was final or the subscriber leaves. An async generator alone would not notice a subscriber leaving:
 * its `return()` waits for the next `yield`, and a source that never changes never yields, so it would poll the
 * database forever. `return()` here stops the polling at once.
 */
function changes<T>(
  read: () => Promise<T[]>,
  key: (value: T) => string,
  id: (value: T) => string,
  done: (value: T) => boolean = () => false,
): AsyncIterableIterator<T> {
  const left = new AbortController();
  async function* poll(): AsyncGenerator<T> {
    const sent = new Map<string, string>();
    while (!left.signal.aborted) {
      for (const value of await read()) {
        const k = key(value);
        if (sent.get(id(value)) === k) continue;
        sent.set(id(value), k);
        yield value;
        if (done(value)) return;
      }
      await pause(SUBSCRIPTION_POLL_MS, left.signal);
    }
  }
  const values = poll();
  return {
    next: () => values.next(),
    return: async () => {
      left.abort();
      return values.return(undefined);
    },
    throw: async (err: unknown) => {
      left.abort();
      return values.throw(err);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

const jobKey = (job: ImportJobRecord) =>
  `${job.status}|${job.progress.done}|${job.progress.total}|${job.finishedAt?.getTime() ?? ''}`;
const sourceKey = (s: SourceRecord) =>
  [
    s.status,
    s.lastRunAt?.getTime(),
    s.lastFinishedAt?.getTime(),
    s.nextRunAt?.getTime(),
    s.updatedAt.getTime(),
    s.lastJobId,
    JSON.stringify(s.counts),
  ].join('|');

/** `importJobUpdated` and `sourceUpdated`. */
export const subscriptionResolvers: Resolvers = {
  Subscription: {
    importJobUpdated: {
      subscribe: async (_, { id }, { services }) => {
        if (!(await services.imports.job(id))) throw notFound('ImportJob', id);
        const read = async () => {
          const job = await services.imports.job(id);
          return job ? [job] : [];
        };
        return changes(
          read,
          jobKey,
          (job) => job.id,
          (job) => FINISHED_STATUSES.includes(job.status),
        );
      },
      resolve: (job: ImportJobRecord) => job,
    },
    sourceUpdated: {
      subscribe: async (_, { id }, { services }) => {
        const one = id ? await services.sources.find(id) : undefined;
        const read = async () =>
          one ? [(await services.sources.get(one.id)) as SourceRecord].filter(Boolean) : services.sources.list();
        return changes(read, sourceKey, (source) => source.id);
      },
      resolve: (source: SourceRecord) => source,
    },
  },
};
