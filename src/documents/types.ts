import type { JsonObject } from '../shared/json.js';

/** Storage form of a document type (GraphQL uses the upper-case names). */
export const DOCUMENT_TYPES = ['manual', 'tutorial', 'api_spec', 'faq', 'policy', 'reference', 'other'] as const;

/** One of the document types. */
export type DocumentTypeName = (typeof DOCUMENT_TYPES)[number];

/** A document row. */
export interface DocumentRecord {
  id: string;
  title: string;
  content: string;
  documentType: DocumentTypeName;
  source: string | null;
  tags: string[];
  metadata: JsonObject;
  contentHash: string;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date | null;
  /** The space it lives in, when read back (a document just written lives in the request's space). */
  space?: string;
}

/**
 * A document without its content, which may be megabytes: search hits and listings carry this, and GraphQL reads the
 * content only when a query selects it.
 */
export type DocumentSummary = Omit<DocumentRecord, 'content'>;

/** A document as GraphQL resolves it: a full record, or a summary whose content is loaded on demand. */
export type DocumentView = DocumentSummary & { content?: string };

/** A chunk row, without its embedding. */
export interface ChunkRecord {
  id: string;
  documentId: string;
  ordinal: number;
  content: string;
  charStart: number;
  charEnd: number;
  contentHash: string;
}

/** A validated document write. */
export interface DocumentInput {
  id: string | undefined;
  title: string;
  content: string;
  documentType: DocumentTypeName;
  source: string | null;
  tags: string[];
  metadata: JsonObject;
  expiresAt: Date | null;
  /** Entities to link explicitly (must exist). */
  entityIds?: string[];
}

/** A validated partial update; `undefined` keeps the current value. */
export type DocumentPatch = Partial<Omit<DocumentInput, 'id' | 'entityIds'>>;

/** The outcome of indexing one document. */
export interface IndexResultRecord {
  document: DocumentRecord;
  chunkCount: number;
  embeddedChunkCount: number;
  changed: boolean;
}

/** Parsed restrictions on documents and chunks. */
export interface DocumentFilterSpec {
  types?: DocumentTypeName[];
  sources?: string[];
  /** Disjunctive normal form of a tag expression: any group matches when all its tags are present. */
  tagGroups?: string[][];
  text?: string;
  /** Only documents this registered source owns (the documents listing only; search does not take it). */
  ownerSourceId?: string;
}
