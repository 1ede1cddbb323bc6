import type { DocumentTypeName, JsonObject } from '../src/documents/types.js';
import type { RawEntityInput, RawRelationshipInput } from '../src/graph/validateGraphInput.js';

/** A document an importer wants written (validated later by DocumentService). */
export interface ImportedDocument {
  /** Stable id, so a re-import updates in place. */
  id: string;
  title: string;
  content: string;
  documentType: DocumentTypeName;
  source: string | null;
  tags: string[];
  metadata: JsonObject;
  /** Entities this document is explicitly linked to (must be in the plan or already exist). */
  entityIds?: string[];
}

/** Everything one import produces, written by the import service in a fixed order: graph, then documents. */
export interface ImportPlan {
  documents: ImportedDocument[];
  entities: RawEntityInput[];
  relationships: RawRelationshipInput[];
  /** Documents whose id starts with this prefix and are not in `documents` are deleted (vanished operations). */
  replacePrefix?: string;
  /** Things the user should know that did not stop the import. */
  warnings: string[];
}
