import {
  documentIdsOf,
  resultOrError,
  validateOpenApiImport,
  validateUploadImport,
  validateUrlImport,
} from '../../../importers/index.js';
import type { DocumentSummary } from '../../documents/types.js';
import { notFound } from '../../errors.js';
import type { ImportJobStatus, ImportKind, Resolvers } from '../generated/types.js';
import { toConnection } from '../connection.js';
import { loadAll } from '../loaders.js';

/** Import mutations, job queries and their field resolvers. */
export const importResolvers: Resolvers = {
  Query: {
    importJob: async (_, { id }, { services }) => (await services.imports.job(id)) ?? null,
    importJobs: async (_, { first, after, status }, { services }) => {
      const result = await services.imports.listJobs({ first, after }, status ?? undefined);
      const edges = result.rows.map((r) => ({ cursor: r.cursor, node: r.job }));
      return toConnection(edges, {
        hasNextPage: result.hasNextPage,
        hasPreviousPage: Boolean(after),
        totalCount: result.totalCount,
      });
    },
  },
  Mutation: {
    importUrl: async (_, { input }, { services }) =>
      resultOrError(
        await services.imports.submit(validateUrlImport(input), { async: input.async ?? false }),
        input.async,
      ),
    importOpenApi: async (_, { input }, { services }) =>
      resultOrError(
        await services.imports.submit(validateOpenApiImport(input, services.config.import.maxBytes), {
          async: input.async ?? false,
        }),
        input.async,
      ),
    importUpload: async (_, { input }, { services }) => {
      const upload = await services.imports.findUpload(input.uploadId);
      if (!upload) throw notFound('Upload', input.uploadId);
      return resultOrError(
        await services.imports.submit(validateUploadImport(input, upload), { async: input.async ?? false }),
        input.async,
      );
    },
    resumeImportJob: async (_, { id, async }, { services }) =>
      resultOrError(await services.imports.resume(id, { async: async ?? false }), async),
  },
  ImportJob: {
    kind: (job) => job.kind.toUpperCase() as ImportKind,
    status: (job) => job.status as ImportJobStatus,
    documents: (job, _, { loaders }) =>
      loadAll<DocumentSummary | null>(loaders.documentById, documentIdsOf(job)) as Promise<DocumentSummary[]>,
    errors: (job) =>
      job.items
        .filter((i) => i.status === 'FAILED')
        .map((i) => ({ item: i.label, code: i.errorCode ?? 'INTERNAL_SERVER_ERROR', message: i.error ?? '' })),
  },
  ImportResult: {
    job: (job) => job,
    documents: (job, _, { loaders }) =>
      loadAll<DocumentSummary | null>(loaders.documentById, documentIdsOf(job)) as Promise<DocumentSummary[]>,
    chunkCount: (job) => job.chunkCount,
    warnings: (job) => job.warnings,
  },
};
