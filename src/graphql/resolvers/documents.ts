import { notFound } from '../../errors.js';
import type { EntityRecord } from '../../graph/types.js';
import type { Resolvers } from '../generated/types.js';
import { toConnection } from '../connection.js';
import { toFilterSpec } from '../inputs.js';

/** Document queries, mutations and field resolvers. */
export const documentResolvers: Resolvers = {
  Query: {
    document: (_, { id }, { loaders }) => loaders.documentById.load(id),
    documents: async (_, { filter, first, after, sourceId }, { services }) => {
      const spec = toFilterSpec(filter);
      if (sourceId !== undefined && sourceId !== null)
        spec.ownerSourceId = (await services.sources.byIdOrNameOrFail(sourceId)).id;
      const result = await services.documents.list(spec, { first, after });
      const edges = result.rows.map((r) => ({ cursor: r.cursor, node: r.document }));
      return toConnection(edges, {
        hasNextPage: result.hasNextPage,
        hasPreviousPage: Boolean(after),
        totalCount: result.totalCount,
      });
    },
  },
  Mutation: {
    createDocument: (_, { input }, { services }) => services.documents.create(input),
    upsertDocuments: (_, { input }, { services }) => services.documents.upsertMany(input),
    updateDocument: (_, { id, input }, { services }) => services.documents.update(id, input),
    deleteDocument: async (_, { id }, { services }) => ({ id, deleted: await services.documents.delete(id) }),
  },
  Document: {
    space: (doc, _, { space }) => doc.space ?? space,
    // Reads, hits and listings carry no content: read it only when selected (one batched query per request).
    content: async (doc, _, { loaders, textBudget }) => {
      if (doc.content !== undefined) return textBudget.take(doc.content);
      const content = await loaders.documentContentById.load(doc.id);
      if (content === null) throw notFound('document', doc.id); // deleted or expired since it was read
      return textBudget.take(content);
    },
    documentType: (doc) => doc.documentType.toUpperCase() as Uppercase<typeof doc.documentType>,
    chunkCount: (doc, _, { loaders }) => loaders.chunkCountByDocumentId.load(doc.id),
    chunks: (doc, _, { loaders }) => loaders.chunksByDocumentId.load(doc.id),
    extraction: (doc, _, { loaders }) => loaders.extractionByDocument.load(doc.id),
    entities: async (doc, _, { loaders }) => {
      const ids = await loaders.entityIdsByDocument.load(doc.id);
      return (await loaders.entityById.loadMany(ids)).filter(
        (e): e is EntityRecord => e !== null && !(e instanceof Error),
      );
    },
  },
  DocumentExtraction: {
    status: (state) => (state.status === 'REMOVED' ? 'PENDING' : state.status),
    entities: (state) => state.entityCount,
    relationships: (state) => state.relationshipCount,
  },
  Chunk: {
    // Every chunk text sent counts against the response's budget, as whole documents' texts do.
    content: (chunk, _, { textBudget }) => textBudget.take(chunk.content),
    document: async (chunk, _, { loaders }) => {
      const doc = await loaders.documentById.load(chunk.documentId);
      if (!doc) throw new Error(`document ${chunk.documentId} of chunk ${chunk.id} vanished`);
      return doc;
    },
    metadata: async (chunk, _, { loaders }) => (await loaders.documentById.load(chunk.documentId))?.metadata ?? {},
  },
};
