import type { KeysetCursor } from '../shared/cursor.js';
import { keysetPage, type PageArgs } from '../shared/pageSize.js';
import { boundedFilter } from './filterBounds.js';
import type { ChunkRepository } from './ChunkRepository.js';
import type { DocumentPage, DocumentRepository } from './DocumentRepository.js';
import type { ChunkRecord, DocumentFilterSpec, DocumentRecord, DocumentSummary } from './types.js';

export type { DocumentPage } from './DocumentRepository.js';

/** Reads of live documents and their chunks, as the API (GraphQL, MCP) asks for them; DocumentService adds the writes. */
export class DocumentReader {
  constructor(
    protected readonly documents: DocumentRepository,
    protected readonly chunks: ChunkRepository,
  ) {}

  /**
   * One page of live documents (without their content), newest first, as a caller asks for it: `first` by `pageSize`
   * (default 20, at most 100), `after` a cursor of an earlier page, the filter's sizes checked (field `filter`).
   */
  async list(filter: DocumentFilterSpec, page: PageArgs = {}): Promise<DocumentPage> {
    const { first, after } = keysetPage(page);
    return this.documents.list(boundedFilter(filter, 'filter'), first, after);
  }

  /** Walks a whole selection in pages of the caller's size (for code that reads every match, not for requests). */
  scan(filter: DocumentFilterSpec, size: number, after: KeysetCursor | undefined): Promise<DocumentPage> {
    return this.documents.list(filter, size, after);
  }

  /** Live documents by id without their content, in no particular order. */
  summariesByIds(ids: readonly string[]): Promise<DocumentSummary[]> {
    return this.documents.findSummariesByIds(ids);
  }

  /** The content of each live document among `ids`; with `maxChars`, only those whose texts fit in it together. */
  contentByIds(ids: readonly string[], maxChars?: number): Promise<Map<string, string>> {
    return this.documents.contentByIds(ids, maxChars);
  }

  /** The live documents among `ids`. */
  liveIds(ids: readonly string[]): Promise<string[]> {
    return this.documents.liveIds(ids);
  }

  /** Every chunk of the documents whose chunk texts fit in `maxChars` together (see ChunkRepository). */
  chunksWithin(documentIds: readonly string[], maxChars: number): Promise<ChunkRecord[]> {
    return this.chunks.findByDocumentIdsWithin(documentIds, maxChars);
  }

  /** The live (unexpired) documents among `ids`, with their content, in no particular order. */
  findByIds(ids: readonly string[]): Promise<DocumentRecord[]> {
    return this.documents.findByIds(ids);
  }

  /** Ids of all documents (expired or not) whose id starts with `prefix`. */
  idsWithPrefix(prefix: string): Promise<string[]> {
    return this.documents.idsWithPrefix(prefix);
  }

  /** Ids of the documents (expired or not) a source owns. */
  idsOwnedBy(owner: string): Promise<string[]> {
    return this.documents.idsOwnedBy(owner);
  }

  /** Live documents per owning source, for the given sources. */
  countOwnedBy(owners: readonly string[]): Promise<Map<string, number>> {
    return this.documents.countOwnedBy(owners);
  }

  /** The documents among `documentIds` that have chunks. */
  documentIdsWithChunks(documentIds: readonly string[]): Promise<string[]> {
    return this.chunks.documentIdsWithChunks(documentIds);
  }

  /** Chunk counts per document id. */
  chunkCounts(documentIds: readonly string[]): Promise<Map<string, number>> {
    return this.chunks.countByDocumentIds(documentIds);
  }

  /** A live document with all its chunks in order (what extraction reads), or undefined. */
  async withChunks(id: string): Promise<{ document: DocumentRecord; chunks: ChunkRecord[] } | undefined> {
    return (await this.manyWithChunks([id]))[0];
  }

  /** Live documents with all their chunks in order, in two queries; missing ids are left out. */
  async manyWithChunks(ids: readonly string[]): Promise<{ document: DocumentRecord; chunks: ChunkRecord[] }[]> {
    const documents = await this.documents.findByIds(ids);
    if (documents.length === 0) return [];
    const chunks = await this.chunks.findByDocumentIds(documents.map((d) => d.id));
    return documents.map((document) => ({ document, chunks: chunks.filter((c) => c.documentId === document.id) }));
  }
}
