import type { DocumentRecord, RawEntityInput, RawRelationshipInput } from '../src/importerPort.js';

/** A document an importer wants written (validated later by DocumentService); its stable id makes a re-import update in place. */
export type ImportedDocument = Pick<
  DocumentRecord,
  'id' | 'title' | 'content' | 'documentType' | 'source' | 'tags' | 'metadata'
> & {
  /** Entities this document is explicitly linked to (must be in the plan or already exist). */
  entityIds?: string[];
};

/** Everything one import produces, written by the import service in a fixed order: graph, then documents. */
export interface ImportPlan {
  documents: ImportedDocument[];
  entities: RawEntityInput[];
  relationships: RawRelationshipInput[];
  /** Documents whose id starts with this prefix and are not in `documents` are deleted (vanished operations). */
  replacePrefix?: string;
  /**
   * The importer's own graph: entities whose id starts with one of these and are not in `entities` are deleted, and so
   * are relationships of `replaceRelationshipTypes` among the plan's entities that `relationships` no longer has.
   */
  replaceEntityPrefixes?: string[];
  replaceRelationshipTypes?: string[];
  /** Things the user should know that did not stop the import. */
  warnings: string[];
}
