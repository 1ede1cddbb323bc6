import type { RawSourceInput } from '../../../importers/index.js';
import { fromExtractorEnum } from './extractGraph.js';
import type { CreateSourceInput, Resolvers, SourceKind, SourceStatus, UpdateSourceInput } from '../generated/types.js';

/** GraphQL source input in the service's form (document types in storage case). */
function rawSource(input: CreateSourceInput | UpdateSourceInput): RawSourceInput {
  const { documentType, extractors, ...rest } = input;
  return {
    ...rest,
    ...(extractors !== undefined ? { extractors: fromExtractorEnum(extractors) } : {}),
    ...(documentType !== undefined ? { documentType: documentType === null ? null : documentType.toLowerCase() } : {}),
  };
}

/** Source mutations and queries: thin calls into SourceService. */
export const sourceResolvers: Resolvers = {
  Query: {
    sources: (_, __, { services }) => services.sources.list(),
    source: async (_, { id }, { services }) => (await services.sources.byIdOrName(id)) ?? null,
  },
  Mutation: {
    createSource: (_, { input }, { services }) => services.sources.create(rawSource(input)),
    updateSource: (_, { id, input }, { services }) => services.sources.update(id, rawSource(input)),
    deleteSource: async (_, { id, keepDocuments }, { services }) => {
      const result = await services.sources.delete(id, keepDocuments ?? false);
      return {
        id: result.source.id,
        deleted: true,
        documentsRemoved: result.documentsRemoved,
        documentsKept: result.documentsKept,
      };
    },
    syncSource: (_, { id, async }, { services }) => services.sources.sync(id, { async: async ?? true }),
  },
  Source: {
    kind: (source) => source.kind as SourceKind,
    status: (source) => source.status as SourceStatus,
    config: (source) => source.config,
    deployKeyPublicKey: (source) => source.deployKey?.publicKey ?? null,
    deployKeyFingerprint: (source) => source.deployKey?.fingerprint ?? null,
    documentType: (source) =>
      source.documentType ? (source.documentType.toUpperCase() as Uppercase<typeof source.documentType>) : null,
    syncTimeoutSeconds: (source) => Math.round(source.syncTimeoutMs / 1000),
    documentCount: async (source, _, { services }) =>
      (await services.sources.documentCounts([source.id])).get(source.id) ?? 0,
    jobs: (source, { first }, { services }) => services.sources.jobs(source.id, first),
  },
};
