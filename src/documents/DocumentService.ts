import { runInSpace } from '../db/spaceScope.js';
import type { Db, Queryable } from '../db/Db.js';
import type { EmbeddingProvider } from '../embeddings/EmbeddingProvider.js';
import { badInput, notFound } from '../errors.js';
import { ChunkRepository } from './ChunkRepository.js';
import { DocumentRepository } from './DocumentRepository.js';
import { DocumentReader } from './DocumentReader.js';
import { DocumentWriter } from './DocumentWriter.js';
import { documentIdsBySource } from './extractionReads.js';
import type { DocumentWriteHook } from './DocumentWriteHook.js';
import type { DocumentChangeSink } from './DocumentChangeSink.js';
import { knowledgeCounts, type KnowledgeCounts } from './statsRepository.js';
import type { DocumentInput, DocumentPatch, DocumentRecord, IndexResultRecord } from './types.js';
import type { WriteRefiner } from './writeRefiner.js';
import {
  validateDocumentId,
  validateDocumentInput,
  validateDocumentPatch,
  type InputLimits,
  type RawDocumentInput,
} from './validateInput.js';

/** Most documents one upsert takes: a bigger batch holds its transaction and the embedder too long. */
export const MAX_DOCUMENTS_PER_WRITE = 1000;

/**
 * Indexes documents: validates them (so every entry, GraphQL, MCP, CLI and importers, gets the same rules) and hands
 * them to DocumentWriter, which chunks them, embeds only new chunk texts and writes everything in one transaction.
 */
export class DocumentService extends DocumentReader {
  readonly #writer: DocumentWriter;

  constructor(
    private readonly db: Db,
    embedder: EmbeddingProvider,
    chunking: { size: number; overlap: number },
    private readonly limits: InputLimits,
    private readonly hook?: DocumentWriteHook,
    private readonly changes?: DocumentChangeSink,
  ) {
    super(new DocumentRepository(db), new ChunkRepository(db));
    this.#writer = new DocumentWriter(db, this.documents, this.chunks, embedder, chunking, limits, hook, changes);
  }

  /** Creates one document; BAD_USER_INPUT naming the field when it is invalid, CONFLICT when its id exists. */
  async create(raw: RawDocumentInput): Promise<IndexResultRecord> {
    const [result] = await this.#writer.write([validateDocumentInput(raw, this.limits)], 'create');
    return result as IndexResultRecord;
  }

  /**
   * Creates or replaces documents by id; unchanged ones are left untouched. A `refiner` first fits each to what is
   * stored. With an `owner` (a source id) the documents are written as that source's, and a live document owned by
   * anyone else (made by hand, or by another source) fails the whole batch with CONFLICT before anything is written.
   * An invalid input (named `input[i]`) or more than MAX_DOCUMENTS_PER_WRITE fail it with BAD_USER_INPUT.
   */
  async upsertMany(
    raw: readonly RawDocumentInput[],
    refiner?: WriteRefiner,
    owner?: string,
  ): Promise<IndexResultRecord[]> {
    if (raw.length > MAX_DOCUMENTS_PER_WRITE)
      throw badInput('input', `at most ${MAX_DOCUMENTS_PER_WRITE} documents per call (got ${raw.length})`);
    const inputs = raw.map((doc, i) => validateDocumentInput(doc, this.limits, `input[${i}]`));
    return this.#writer.write(inputs, 'upsert', undefined, refiner, owner);
  }

  /** Deletes a document only if `owner` owns it; true when it did. */
  deleteOwned(id: string, owner: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const before = await this.beforeDelete(tx, id);
      const existed = await this.documents.deleteOwned(tx, id, owner);
      if (existed) await this.afterDelete(tx, id, before);
      return existed;
    });
  }

  /** Leaves a source's documents in place, owned by no source; returns how many. */
  detachOwnedBy(owner: string): Promise<number> {
    return this.documents.detachOwnedBy(owner);
  }

  /** Applies a partial update to an existing document; BAD_USER_INPUT naming the field when the patch is invalid. */
  async update(id: string, rawPatch: RawDocumentInput): Promise<IndexResultRecord> {
    validateDocumentId(id);
    const patch: DocumentPatch = validateDocumentPatch(rawPatch, this.limits);
    const [current] = await this.documents.findByIds([id]);
    if (!current) throw notFound('Document', id);
    const merged: DocumentInput = {
      id,
      title: patch.title ?? current.title,
      content: patch.content ?? current.content,
      documentType: patch.documentType ?? current.documentType,
      source: patch.source !== undefined ? patch.source : current.source,
      tags: patch.tags ?? current.tags,
      metadata: patch.metadata ?? current.metadata,
      expiresAt: patch.expiresAt !== undefined ? patch.expiresAt : current.expiresAt,
    };
    const [result] = await this.#writer.write([merged], 'upsert', current.updatedAt);
    return result as IndexResultRecord;
  }

  /** The live documents whose `source` is among `sources` (how extraction resolves links): source → id. */
  idsBySource(sources: readonly string[]): Promise<Map<string, string>> {
    return documentIdsBySource(this.db, sources);
  }

  /** Counts for `knowledgeStats`. */
  stats(): Promise<KnowledgeCounts> {
    return knowledgeCounts(this.db);
  }

  /** Deletes expired documents through the normal delete path, so the Neo4j mirror drops their mentions too. */
  async deleteExpired(): Promise<number> {
    let deleted = 0;
    for (let ids = await this.documents.expiredIds(); ids.length > 0; ids = await this.documents.expiredIds()) {
      for (const id of ids) if (await this.delete(id)) deleted += 1;
    }
    return deleted;
  }

  /**
   * Deletes up to `limit` documents of a space being deleted, each through the normal delete path (in its space), so
   * its chunks, mentions, extraction and the Neo4j mirror go too. Returns how many went.
   */
  async purgeSpace(space: string, limit = 100): Promise<number> {
    let deleted = 0;
    for (const id of await this.documents.idsInSpace(space, limit))
      if (await runInSpace(space, () => this.delete(id))) deleted += 1;
    return deleted;
  }

  /** Deletes a document and (by cascade) its chunks and mentions. */
  delete(id: string): Promise<boolean> {
    if (!this.hook && !this.changes) return this.documents.delete(id);
    return this.db.transaction(async (tx) => {
      const before = await this.beforeDelete(tx, id);
      const existed = await this.documents.delete(id, tx);
      if (existed) await this.afterDelete(tx, id, before);
      return existed;
    });
  }

  /** The document as it is before a delete, when the change sink wants it. */
  private async beforeDelete(tx: Queryable, id: string): Promise<DocumentRecord | undefined> {
    if (!this.changes) return undefined;
    const [before] = await this.documents.findByIds([id], tx);
    return before;
  }

  private async afterDelete(tx: Queryable, id: string, before: DocumentRecord | undefined): Promise<void> {
    await this.hook?.afterDelete(tx, id);
    if (before) await this.changes?.deleted(tx, before);
  }
}
