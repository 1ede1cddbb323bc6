// Curation of extracted facts over GraphQL: accept, reject, merge and undo a merge. The server checks the key's role
// and records each in the audit log.
import {
  ExplorerAcceptEntityDocument,
  ExplorerAcceptRelationshipDocument,
  ExplorerMergeEntitiesDocument,
  ExplorerRejectEntityDocument,
  ExplorerRejectRelationshipDocument,
  ExplorerUndoMergeDocument,
  type ExplorerMergeEntitiesMutation,
  type RelationshipSummaryFragment,
} from '../shared/generated/graphql.js';
import { gql } from '../shared/graphql.js';
import type { EditedEntity } from './editApi.js';

/** A merge as the explorer keeps it, to offer its undo. */
export type MergeDone = ExplorerMergeEntitiesMutation['mergeEntities'];

/** Makes an extracted entity curated (MANUAL). */
export async function acceptEntity(id: string): Promise<EditedEntity> {
  return (await gql(ExplorerAcceptEntityDocument, { id })).acceptEntity;
}

/** Makes an extracted relationship curated (MANUAL). */
export async function acceptRelationship(id: string): Promise<RelationshipSummaryFragment> {
  return (await gql(ExplorerAcceptRelationshipDocument, { id })).acceptRelationship;
}

/** Deletes an extracted entity and keeps extraction from creating it again. */
export async function rejectEntity(id: string): Promise<void> {
  await gql(ExplorerRejectEntityDocument, { id });
}

/** Deletes an extracted relationship and keeps extraction from writing it again. */
export async function rejectRelationship(id: string): Promise<void> {
  await gql(ExplorerRejectRelationshipDocument, { id });
}

/** Merges `mergeId` into `keepId`. */
export async function mergeEntities(keepId: string, mergeId: string): Promise<MergeDone> {
  return (await gql(ExplorerMergeEntitiesDocument, { keepId, mergeId })).mergeEntities;
}

/** Undoes a merge: the merged entity comes back. */
export async function undoMerge(mergeId: string): Promise<void> {
  await gql(ExplorerUndoMergeDocument, { mergeId });
}
