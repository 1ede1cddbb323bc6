// The explorer's writes (operations.graphql, typed by `npm run codegen`) and the check of what the key may do.
import {
  ExplorerCreateEntityDocument,
  ExplorerCreateRelationshipDocument,
  ExplorerDeleteEntityDocument,
  ExplorerDeleteRelationshipDocument,
  ExplorerDocumentByIdDocument,
  ExplorerViewerDocument,
  ExplorerFindDocumentsDocument,
  ExplorerLinkDocumentDocument,
  ExplorerUpdateEntityDocument,
  type CreateEntityInput,
  type EditedEntityFragment,
  type RelationshipSummaryFragment,
  type UpdateEntityInput,
} from '../shared/generated/graphql.js';
import { gql, GraphQLRequestError } from '../shared/graphql.js';

/** An entity as a create or an update returns it. */
export type EditedEntity = EditedEntityFragment;
/** The fields the entity form edits. */
export type EntityFields = Required<Pick<CreateEntityInput, 'type' | 'name'>> & UpdateEntityInput;

/** What the key may change: ADMIN also deletes, EDITOR creates and edits, READER (and AGENT) nothing. */
export type EditRole = 'admin' | 'editor' | 'reader';

/** Asks the server what the key may do; the server enforces the same rules on every write. */
export async function editRole(): Promise<EditRole> {
  const { viewer } = await gql(ExplorerViewerDocument);
  if (viewer.role === 'ADMIN') return 'admin';
  return viewer.role === 'EDITOR' ? 'editor' : 'reader';
}

/** Creates an entity (CONFLICT when the given id exists). */
export async function createEntity(input: CreateEntityInput): Promise<EditedEntity> {
  return (await gql(ExplorerCreateEntityDocument, { input })).createEntity;
}

/** Changes fields of an entity. */
export async function updateEntity(id: string, input: UpdateEntityInput): Promise<EditedEntity> {
  return (await gql(ExplorerUpdateEntityDocument, { id, input })).updateEntity;
}

/** Deletes an entity with its relationships and mentions; false when it was gone already. */
export async function deleteEntity(id: string): Promise<boolean> {
  return (await gql(ExplorerDeleteEntityDocument, { id })).deleteEntity.deleted;
}

/** Creates a relationship (or returns the existing one with the same ends and type). */
export async function createRelationship(
  fromId: string,
  toId: string,
  type: string,
): Promise<RelationshipSummaryFragment> {
  return (await gql(ExplorerCreateRelationshipDocument, { input: { fromId, toId, type } })).createRelationship;
}

/** Deletes a relationship; false when it was gone already. */
export async function deleteRelationship(id: string): Promise<boolean> {
  return (await gql(ExplorerDeleteRelationshipDocument, { id })).deleteRelationship.deleted;
}

/** Links a document explicitly to an entity; returns the document's title. */
export async function linkDocument(documentId: string, entityId: string): Promise<string> {
  return (await gql(ExplorerLinkDocumentDocument, { documentId, entityId })).linkDocumentEntities.title;
}

/** A document to link, found by id or by text in its title or content. */
export interface DocumentChoice {
  id: string;
  title: string;
  documentType: string;
}

/** The document with exactly this id (first), then documents whose title or content contains the text. */
export async function findDocuments(text: string): Promise<DocumentChoice[]> {
  const [byId, found] = await Promise.all([
    gql(ExplorerDocumentByIdDocument, { id: text }),
    gql(ExplorerFindDocumentsDocument, { text }),
  ]);
  const exact = byId.document ? [byId.document] : [];
  return [...exact, ...found.documents.nodes.filter((d) => d.id !== byId.document?.id)];
}

/** "CODE: message" for an error the server sent, else the error's message. */
export function errorText(e: unknown): string {
  if (e instanceof GraphQLRequestError) return `${e.code}: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}
