import { badInput } from '../../errors.js';
import { decodePair, encodePair } from '../../shared/cursor.js';
import type { Resolvers } from '../generated/types.js';
import type { Loaders } from '../loaders.js';
import { toConnection } from '../connection.js';

/** One page of a fact's evidence ('e:<id>' or 'r:<id>') as an EvidenceConnection; cursors are positions. */
export async function evidenceConnection(
  loaders: Loaders,
  factKey: string,
  first: number | null | undefined,
  after: string | null | undefined,
) {
  const offset = after ? evidenceOffset(after) : 0;
  const page = await loaders.evidenceByFact.load(`${first ?? ''}:${offset}:${factKey}`);
  const edges = page.items.map((node, i) => ({ cursor: encodePair('evidence', String(offset + i + 1)), node }));
  return toConnection(edges, {
    hasNextPage: offset + edges.length < page.totalCount,
    hasPreviousPage: offset > 0,
    totalCount: page.totalCount,
  });
}

function evidenceOffset(after: string): number {
  const [kind, position] = decodePair(after);
  const offset = Number(position);
  if (kind !== 'evidence' || !Number.isSafeInteger(offset) || offset < 0)
    throw badInput('after', 'not an evidence cursor; pass pageInfo.endCursor from the previous page');
  return offset;
}

/** Curation: accept an extracted fact (editors); merge, undo a merge, reject an extracted fact (admins). */
export const curationResolvers: Resolvers = {
  Mutation: {
    mergeEntities: (_, { keepId, mergeId }, { services }) => services.curation.mergeEntities(keepId, mergeId),
    undoMerge: (_, { mergeId }, { services }) => services.curation.undoMerge(mergeId),
    acceptEntity: (_, { id }, { services }) => services.curation.acceptEntity(id),
    acceptRelationship: (_, { id }, { services }) => services.curation.acceptRelationship(id),
    rejectEntity: async (_, { id }, { services }) => ({ ...(await services.curation.rejectEntity(id)), deleted: true }),
    rejectRelationship: (_, { id }, { services }) => services.curation.rejectRelationship(id),
  },
  EntityMerge: {
    kept: (merge, _, { loaders }) => loaders.entityById.load(merge.keepId),
    keptId: (merge) => merge.keepId,
    mergedName: (merge) => merge.snapshot.merged.name,
  },
};
