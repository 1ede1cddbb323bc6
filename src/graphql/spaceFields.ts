import { AppError, ErrorCode } from '../errors.js';
import type { GraphQLContext } from './context.js';
import type { MutationResolvers, QueryResolvers } from './generated/types.js';

/**
 * How each root field keeps spaces apart. `scoped`: its reads and writes stay in the request's space on every store
 * (both databases, both graph stores); `global`: admins' fields about keys and spaces themselves; `unscoped`: not kept
 * apart yet, so only callers who may see every space use it (`SpaceService.unrestricted`). Exhaustive like
 * ROOT_FIELD_ROLES: a new root field fails the type check until it is classified here.
 */
export type SpaceHandling = 'scoped' | 'global' | 'unscoped';

export const ROOT_FIELD_SPACES: {
  Query: Record<keyof QueryResolvers, SpaceHandling>;
  Mutation: Record<keyof MutationResolvers, SpaceHandling>;
} = {
  Query: {
    document: 'scoped',
    documents: 'scoped',
    knowledgeStats: 'scoped',
    search: 'scoped',
    entity: 'scoped',
    entities: 'scoped',
    subgraph: 'scoped',
    shortestPath: 'scoped',
    graphStats: 'scoped',
    enrichContext: 'scoped',
    knowledgeGaps: 'scoped',
    importJob: 'scoped',
    importJobs: 'scoped',
    sources: 'scoped',
    source: 'scoped',
    apiKeys: 'global',
    spaces: 'global',
    spaceDeletion: 'global',
    auditLog: 'scoped',
    // The caller's own key: no space's data.
    viewer: 'global',
  },
  Mutation: {
    createDocument: 'scoped',
    upsertDocuments: 'scoped',
    updateDocument: 'scoped',
    deleteDocument: 'scoped',
    createEntity: 'scoped',
    updateEntity: 'scoped',
    upsertGraph: 'scoped',
    createRelationship: 'scoped',
    linkDocumentEntities: 'scoped',
    deleteEntity: 'scoped',
    deleteRelationship: 'scoped',
    importUrl: 'scoped',
    importOpenApi: 'scoped',
    importUpload: 'scoped',
    resumeImportJob: 'scoped',
    createSource: 'scoped',
    updateSource: 'scoped',
    syncSource: 'scoped',
    deleteSource: 'scoped',
    extractGraph: 'scoped',
    mergeEntities: 'scoped',
    undoMerge: 'scoped',
    rejectEntity: 'scoped',
    rejectRelationship: 'scoped',
    acceptEntity: 'scoped',
    acceptRelationship: 'scoped',
    createApiKey: 'global',
    revokeApiKey: 'global',
    createSpace: 'global',
    renameSpace: 'global',
    allowSpaceRead: 'global',
    revokeSpaceRead: 'global',
    deleteSpace: 'global',
    undo: 'scoped',
    undoImportJob: 'scoped',
    recordKnowledgeGap: 'scoped',
  },
};

/** How `Type.field` keeps spaces apart (undefined: not a root field). */
export function spaceHandlingOf(type: 'Query' | 'Mutation', field: string): SpaceHandling | undefined {
  return (ROOT_FIELD_SPACES[type] as Record<string, SpaceHandling | undefined>)[field];
}

/**
 * Refuses (FORBIDDEN) a field that does not keep spaces apart on this store, unless the caller may see every space;
 * `what` names the field.
 */
export async function requireSpaceSupport(
  context: GraphQLContext,
  handling: SpaceHandling,
  what: string,
): Promise<void> {
  const { services, principal, space } = context;
  if (handling === 'scoped' || handling === 'global') return;
  if (await services.spaces.unrestricted(principal, space)) return;
  throw new AppError(
    ErrorCode.FORBIDDEN,
    `${what} does not keep spaces apart yet: only a key bound to every space may use it, in the default space`,
    { space },
  );
}
