import type { ImportJobRecord } from '../../../importers/index.js';
import { FINISHED_STATUSES } from '../../../importers/index.js';
import type { SourceRecord } from '../../../importers/index.js';
import { notFound } from '../../errors.js';
import type { Resolvers } from '../generated/types.js';

/** How often a subscription looks at the database: jobs may run in another process, so changes are read, not pushed. */
export const SUBSCRIPTION_POLL_MS = 250;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Yields each new state of what `read` returns (one whose `key` differs from the last one sent), until `done` says the
 * last one sent was final.
 */
async function* changes<T>(read: () => Promise<T[]>, key: (value: T) => string, id: (value: T) => string, done: (value: T) => boolean = () => false): AsyncGenerator<T> {
  const sent = new Map<string, string>();
  for (;;) {
    for (const value of await read()) {
      const k = key(value);
      if (sent.get(id(value)) === k) continue;
      sent.set(id(value), k);
      yield value;
      if (done(value)) return;
    }
    await pause(SUBSCRIPTION_POLL_MS);
  }
}

const jobKey = (job: ImportJobRecord) => `${job.status}|${job.progress.done}|${job.progress.total}|${job.finishedAt?.getTime() ?? ''}`;
const sourceKey = (s: SourceRecord) =>
  [s.status, s.lastRunAt?.getTime(), s.lastFinishedAt?.getTime(), s.nextRunAt?.getTime(), s.updatedAt.getTime(), s.lastJobId, JSON.stringify(s.counts)].join('|');

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
        return changes(read, jobKey, (job) => job.id, (job) => FINISHED_STATUSES.includes(job.status));
      },
      resolve: (job: ImportJobRecord) => job,
    },
    sourceUpdated: {
      subscribe: async (_, { id }, { services }) => {
        const one = id ? await services.sources.find(id) : undefined;
        const read = async () => (one ? [(await services.sources.get(one.id)) as SourceRecord].filter(Boolean) : services.sources.list());
        return changes(read, sourceKey, (source) => source.id);
      },
      resolve: (source: SourceRecord) => source,
    },
  },
};
