import type { DocumentSummary } from '../../documents/types.js';
import { badInput } from '../../errors.js';
import { neighbors, shortestPath, subgraph } from '../../graph/traversal.js';
import type { EntityRecord } from '../../graph/types.js';
import { validateRelationshipType } from '../../graph/validateGraphInput.js';
import type { Resolvers } from '../generated/types.js';
import { loadAll, type Loaders } from '../loaders.js';
import { toConnection } from '../connection.js';
import { findEntityPage, intIn, toNeighborOptions, toPathDepth } from '../inputs.js';

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
      const { edges, ...pageInfo } = await findEntityPage(services.graph.store, filter, first, after);
      return toConnection(edges, pageInfo);
    },
    subgraph: (_, { input }, { services }) => {
      if (input.entityIds.length === 0 || input.entityIds.length > 100) throw badInput('input.entityIds', 'give 1 to 100 ids');
      return subgraph(services.graph.store, input.entityIds, intIn(input.depth, 1, 1, 3, 'input.depth'), intIn(input.limit, 200, 1, 2000, 'input.limit'));
    },
    shortestPath: (_, { fromId, toId, maxDepth }, { services }) => shortestPath(services.graph.store, fromId, toId, toPathDepth(maxDepth)),
    graphStats: (_, __, { services }) => services.graph.stats(),
  },
  Mutation: {
    createEntity: (_, { input }, { services }) => services.graph.createEntity(input),
    updateEntity: (_, { id, input }, { services }) => services.graph.updateEntity(id, input),
    deleteEntity: async (_, { id }, { services }) => ({ id, deleted: await services.graph.deleteEntity(id) }),
    upsertGraph: (_, { input }, { services }) => services.graph.upsertGraph(input.entities ?? [], input.relationships ?? []),
    createRelationship: (_, { input }, { services }) => services.graph.createRelationship(input),
    deleteRelationship: async (_, { id }, { services }) => ({ id, deleted: await services.graph.deleteRelationship(id) }),
    linkDocumentEntities: async (_, { input }, { services, loaders }) => {
      await services.graph.linkDocumentEntities(input.documentId, input.entityIds);
      const doc = await loaders.documentById.load(input.documentId);
      if (!doc) throw badInput('input.documentId', 'the document expired');
      return doc;
    },
  },
  Entity: {
    neighbors: async (entity, args, { services }) => (await neighbors(services.graph.store, [entity.id], toNeighborOptions(args))).get(entity.id) ?? [],
    relationships: (entity, { direction, types }, { services }) =>
      services.graph.store.relationshipsOf([entity.id], direction ?? 'BOTH', types?.map((t, i) => validateRelationshipType(t, `types[${i}]`))),
    documents: async (entity, { first }, { loaders }) => {
      const n = intIn(first, 20, 1, 100, 'first');
      const ids = await loaders.documentIdsByEntity.load(`${n}:${entity.id}`);
      return loadAll<DocumentSummary>(loaders.documentById, ids);
    },
  },
  Relationship: {
    from: (rel, _, { loaders }) => entityOrFail(loaders, rel.fromId),
    to: (rel, _, { loaders }) => entityOrFail(loaders, rel.toId),
  },
};
