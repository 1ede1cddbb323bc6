import type { DocumentSummary } from '../../documents/types.js';
import { badInput } from '../../errors.js';
import type { EntityRecord } from '../../graph/types.js';
import type { Resolvers } from '../generated/types.js';
import { loadAll, type Loaders } from '../loaders.js';
import { toConnection } from '../connection.js';
import { entityFactKey, relationshipFactKey } from '../../extraction/ExtractionEvidenceService.js';
import { evidenceConnection } from './curation.js';

async function entityOrFail(loaders: Loaders, id: string): Promise<EntityRecord> {
  const e = await loaders.entityById.load(id);
  if (!e) throw new Error(`entity ${id} vanished`);
  return e;
}

/** Knowledge-graph queries, mutations and field resolvers. */
export const graphResolvers: Resolvers = {
  Query: {
    entity: (_, { id }, { loaders }) => loaders.entityById.load(id),
    entities: async (_, { filter, first, after }, { services }) => {
      const { edges, ...pageInfo } = await services.graph.findEntities(filter, { first, after });
      return toConnection(edges, pageInfo);
    },
    subgraph: (_, { input }, { services }) =>
      services.graph.subgraph(input.entityIds, input.depth, input.limit, 'input', input.origin),
    shortestPath: (_, { fromId, toId, maxDepth }, { services }) => services.graph.shortestPath(fromId, toId, maxDepth),
    graphStats: (_, __, { services }) => services.graph.stats(),
  },
  Mutation: {
    createEntity: (_, { input }, { services }) => services.graph.createEntity(input),
    updateEntity: (_, { id, input }, { services }) => services.graph.updateEntity(id, input),
    deleteEntity: async (_, { id }, { services }) => ({ id, deleted: await services.graph.deleteEntity(id) }),
    upsertGraph: (_, { input }, { services }) =>
      services.graph.upsertGraph(input.entities ?? [], input.relationships ?? []),
    createRelationship: (_, { input }, { services }) => services.graph.createRelationship(input),
    deleteRelationship: async (_, { id }, { services }) => ({
      id,
      deleted: await services.graph.deleteRelationship(id),
    }),
    linkDocumentEntities: async (_, { input }, { services, loaders }) => {
      await services.graph.linkDocumentEntities(input.documentId, input.entityIds);
      const doc = await loaders.documentById.load(input.documentId);
      if (!doc) throw badInput('input.documentId', 'the document expired');
      return doc;
    },
  },
  Entity: {
    space: async (entity, _, { loaders, space }) => (await loaders.entitySpaceById.load(entity.id)) ?? space,
    neighbors: (entity, args, { services }) => services.graph.neighbors(entity.id, args),
    relationships: (entity, { direction, types }, { services }) =>
      services.graph.relationshipsOf(entity.id, direction ?? 'BOTH', types ?? undefined),
    documents: async (entity, { first }, { loaders }) => {
      const ids = await loaders.documentIdsByEntity.load(`${first ?? ''}:${entity.id}`);
      return loadAll<DocumentSummary>(loaders.documentById, ids);
    },
    evidence: (entity, { first, after }, { loaders }) =>
      evidenceConnection(loaders, entityFactKey(entity.id), first, after),
  },
  Relationship: {
    from: (rel, _, { loaders }) => entityOrFail(loaders, rel.fromId),
    to: (rel, _, { loaders }) => entityOrFail(loaders, rel.toId),
    evidence: (rel, { first, after }, { loaders }) =>
      evidenceConnection(loaders, relationshipFactKey(rel.id), first, after),
  },
};
