import { buildSchema, type GraphQLFieldResolver } from 'graphql';
import { actorOf } from '../audit/actorOf.js';
import { runAs } from '../audit/actor.js';
import { requireRole, type Role } from '../auth/roles.js';
import type { GraphQLContext } from './context.js';
import { requireSpaceSupport, spaceHandlingOf } from './spaceFields.js';
import type { MutationResolvers, QueryResolvers, Resolvers } from './generated/types.js';

/**
 * The role each root field needs. The types make this exhaustive (a new Query or Mutation field fails the
 * type check until it is listed here), and `secureResolvers` refuses to start on a field without a role.
 * Fields below the root are reads of what the root returned, open to every role (READER is the lowest).
 */
export const ROOT_FIELD_ROLES: {
  Query: Record<keyof QueryResolvers, Role>;
  Mutation: Record<keyof MutationResolvers, Role>;
} = {
  Query: {
    document: 'reader',
    documents: 'reader',
    knowledgeStats: 'reader',
    entity: 'reader',
    entities: 'reader',
    subgraph: 'reader',
    shortestPath: 'reader',
    graphStats: 'reader',
    knowledgeGaps: 'reader',
    importJob: 'reader',
    importJobs: 'reader',
    sources: 'reader',
    source: 'reader',
    // Agents' retrieval: embeds the query (a paid call with OpenAI), and enrichContext records knowledge gaps.
    search: 'agent',
    enrichContext: 'agent',
    apiKeys: 'admin',
    auditLog: 'admin',
    viewer: 'reader',
    spaces: 'admin',
    spaceDeletion: 'admin',
  },
  Mutation: {
    createDocument: 'editor',
    upsertDocuments: 'editor',
    updateDocument: 'editor',
    createEntity: 'editor',
    updateEntity: 'editor',
    upsertGraph: 'editor',
    createRelationship: 'editor',
    linkDocumentEntities: 'editor',
    importUrl: 'editor',
    importOpenApi: 'editor',
    importUpload: 'editor',
    resumeImportJob: 'editor',
    createSource: 'editor',
    updateSource: 'editor',
    syncSource: 'editor',
    extractGraph: 'editor',
    deleteSource: 'admin',
    deleteDocument: 'admin',
    deleteEntity: 'admin',
    mergeEntities: 'admin',
    undoMerge: 'admin',
    rejectEntity: 'admin',
    rejectRelationship: 'admin',
    deleteRelationship: 'admin',
    createApiKey: 'admin',
    revokeApiKey: 'admin',
    // Undo writes like the edit it reverts: editors may undo, as they may edit.
    undo: 'editor',
    undoImportJob: 'editor',
    // Accepting is an update that marks the fact curated: editors may, as they may edit it.
    acceptEntity: 'editor',
    acceptRelationship: 'editor',
    recordKnowledgeGap: 'editor',
    createSpace: 'admin',
    renameSpace: 'admin',
    allowSpaceRead: 'admin',
    revokeSpaceRead: 'admin',
    deleteSpace: 'admin',
  },
};

type RootType = keyof typeof ROOT_FIELD_ROLES;
type AnyResolver = GraphQLFieldResolver<unknown, GraphQLContext>;

/** The role a root field needs, or undefined when none is declared. */
export function roleOf(type: RootType, field: string): Role | undefined {
  return (ROOT_FIELD_ROLES[type] as Record<string, Role | undefined>)[field];
}

/**
 * Wraps every Query and Mutation resolver with its role check. Throws when a root field of the schema has no
 * declared role or no resolver, so a new operation cannot be served unchecked.
 */
export function secureResolvers(resolvers: Resolvers, typeDefs: string): Resolvers {
  const schema = buildSchema(typeDefs);
  const secured: Record<string, unknown> = { ...resolvers };
  const problems: string[] = [];
  for (const type of ['Query', 'Mutation'] as const) {
    const given = (resolvers[type] ?? {}) as Record<string, AnyResolver | undefined>;
    const wrapped: Record<string, AnyResolver> = {};
    for (const field of Object.keys(
      schema.getType(type) ? (schema.getType(type) as { getFields(): object }).getFields() : {},
    )) {
      const role = roleOf(type, field);
      const resolve = given[field];
      if (!role) problems.push(`${type}.${field} has no role in ROOT_FIELD_ROLES (src/graphql/fieldRoles.ts)`);
      if (!resolve) problems.push(`${type}.${field} has no resolver`);
      if (!role || !resolve) continue;
      const what = `${type}.${field}`;
      const handling = spaceHandlingOf(type, field);
      if (!handling) problems.push(`${what} has no space handling in ROOT_FIELD_SPACES (src/graphql/spaceFields.ts)`);
      // The principal is the actor of every change the field makes (the audit log reads it from the async context).
      wrapped[field] = (parent, args, context, info) => {
        requireRole(context.principal, role, what);
        return runAs(actorOf(context.principal), () => {
          if (handling === 'scoped' || handling === 'global') return resolve(parent, args, context, info);
          return requireSpaceSupport(context, handling ?? 'unscoped', what).then(() =>
            resolve(parent, args, context, info),
          );
        });
      };
    }
    secured[type] = wrapped;
  }
  if (problems.length > 0) throw new Error(`Unprotected GraphQL root fields:\n  ${problems.join('\n  ')}`);
  return secured as Resolvers;
}
