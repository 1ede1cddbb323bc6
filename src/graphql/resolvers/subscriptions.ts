import type { ImportJobRecord } from '../../../importers/index.js';
import { FINISHED_STATUSES } from '../../../importers/index.js';
import type { SourceRecord } from '../../../importers/index.js';
import { runInSpace } from '../../db/spaceScope.js';
import { notFound } from '../../errors.js';
import { pollChanges } from '../../shared/pollChanges.js';
import type { Resolvers } from '../generated/types.js';

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

/**
 * `importJobUpdated` and `sourceUpdated`, in the subscriber's space: a job or source of another space answers as a
 * missing one. Each poll runs in that space explicitly, since graphql-ws pulls events outside the subscribe's scope.
 */
export const subscriptionResolvers: Resolvers = {
  Subscription: {
    importJobUpdated: {
      subscribe: async (_, { id }, { services, space }) => {
        const read = () =>
          runInSpace(space, async () => {
            const job = await services.imports.job(id);
            return job ? [job] : [];
          });
        if ((await read()).length === 0) throw notFound('ImportJob', id);
        return pollChanges(
          read,
          jobKey,
          (job) => job.id,
          (job) => FINISHED_STATUSES.includes(job.status),
        );
      },
      resolve: (job: ImportJobRecord) => job,
    },
    sourceUpdated: {
      subscribe: async (_, { id }, { services, space }) => {
        const one = id ? await runInSpace(space, () => services.sources.byIdOrNameOrFail(id)) : undefined;
        const read = () =>
          runInSpace(space, async () =>
            one ? [(await services.sources.byId(one.id)) as SourceRecord].filter(Boolean) : services.sources.list(),
          );
        return pollChanges(read, sourceKey, (source) => source.id);
      },
      resolve: (source: SourceRecord) => source,
    },
  },
};
