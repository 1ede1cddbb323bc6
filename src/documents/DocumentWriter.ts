import { isDeepStrictEqual } from 'node:util';
import type { Db, Queryable } from '../db/Db.js';
import type { EmbeddingProvider } from '../embeddings/EmbeddingProvider.js';
import { AppError, ErrorCode, notFound } from '../errors.js';
import type { ChunkRepository } from './ChunkRepository.js';
import { distinctIds, embedMissing, prepareDocument, replaceChunks, type PreparedDocument } from './chunkWrites.js';
import type { DocumentChangeSink } from './DocumentChangeSink.js';
import type { DocumentRepository, DocumentWrite } from './DocumentRepository.js';
import type { DocumentWriteHook } from './DocumentWriteHook.js';
import { isLiveAt } from './filterSql.js';
import { enforceSpaceQuota } from './spaceQuota.js';
import type { DocumentInput, DocumentRecord, IndexResultRecord } from './types.js';
import type { InputLimits } from './validateInput.js';
import { refineAll, relatedIdsOf, type WriteRefiner } from './writeRefiner.js';

/** How a write treats an existing document with the same id. */
export type WriteMode = 'create' | 'upsert';

/**
 * The write path of validated documents: chunks them, embeds only new chunk texts, and writes documents, chunks, the
 * hook's mentions and the change log in one transaction.
 */
export class DocumentWriter {
  constructor(
    private readonly db: Db,
    private readonly documents: DocumentRepository,
    private readonly chunks: ChunkRepository,
    private readonly embedder: EmbeddingProvider,
    private readonly chunking: { size: number; overlap: number },
    private readonly limits: InputLimits,
    private readonly hook?: DocumentWriteHook,
    private readonly changes?: DocumentChangeSink,
  ) {}

  /**
   * The write path. Embedding happens before the transaction, so a failing embedder writes nothing and no
   * transaction stays open while a remote model works. `expectedUpdatedAt` turns a concurrent change into CONFLICT.
   * A refiner guesses first without locks (so that embedding covers what is likely new), then decides in the
   * transaction with the stored documents locked; chunks a changed decision needs are embedded there.
   */
  async write(
    inputs: readonly DocumentInput[],
    mode: WriteMode,
    expectedUpdatedAt?: Date,
    refiner?: WriteRefiner,
    owner?: string,
  ): Promise<IndexResultRecord[]> {
    const guessed = refiner
      ? await refineAll(inputs, refiner, byId(await this.documents.findByIds(relatedIdsOf(inputs, refiner))), this.db)
      : inputs;
    let prepared = this.prepareAll(guessed);
    const vectors = await this.embedNew(prepared);

    return this.db.transaction(async (tx) => {
      // The hook's checks and locks come first, before any document lock (its name lock is ordered before them).
      await this.hook?.beforeWrite(
        tx,
        prepared.map((p) => ({ documentId: p.write.id, explicitEntityIds: p.entityIds })),
      );
      // An expired document the sweep has not deleted yet is gone for every reader, so writers treat it as absent too:
      // create replaces it instead of answering CONFLICT (update already answers NOT_FOUND).
      const now = Date.now();
      const live = (docs: Map<string, DocumentRecord>) =>
        new Map([...docs].filter(([, d]) => isLiveAt(d.expiresAt, now)));
      let current: Map<string, DocumentRecord>;
      if (refiner) {
        current = live(await this.documents.lockByIds(tx, relatedIdsOf(inputs, refiner)));
        prepared = this.prepareAll(await refineAll(inputs, refiner, current, tx));
        // A document the refiner found by other means it has locked already (FOR UPDATE): read it, take no advisory lock.
        const others = prepared.map((p) => p.write.id).filter((id) => !current.has(id));
        for (const doc of await this.documents.findByIds(others, tx)) current.set(doc.id, doc);
      } else {
        current = live(
          await this.documents.lockByIds(
            tx,
            prepared.map((p) => p.write.id),
          ),
        );
      }
      const ids = prepared.map((p) => p.write.id);
      assertWritable(mode, ids, current, expectedUpdatedAt);
      if (owner !== undefined)
        await this.checkOwner(
          tx,
          ids.filter((id) => current.has(id)),
          owner,
        );
      const changed = prepared.filter((p) => !isUnchanged(p.write, current.get(p.write.id)));
      const written = await this.documents.upsertMany(
        tx,
        changed.map((p) => p.write),
        owner,
      );
      const { embeddedPerDoc: embedded, chunkIds } = await replaceChunks(
        tx,
        this.chunks,
        this.embedder,
        changed,
        vectors,
      );
      if (changed.length > 0) await enforceSpaceQuota(tx, this.limits.spaceQuota);
      await this.changes?.written(
        tx,
        [...written.values()].map((after) => ({ before: current.get(after.id), after })),
      );
      await this.hook?.afterWrite(
        tx,
        prepared.map((p) => ({
          documentId: p.write.id,
          title: p.write.title,
          changed: written.has(p.write.id),
          chunks: written.has(p.write.id)
            ? p.chunks.map((c, i) => ({ id: chunkIds.get(p.write.id)?.[i] as string, content: c.content }))
            : [],
          explicitEntityIds: p.entityIds,
        })),
      );
      return this.results(tx, prepared, written, current, embedded);
    });
  }

  /** The inputs chunked and hashed; BAD_USER_INPUT when two have the same id. */
  private prepareAll(inputs: readonly DocumentInput[]): PreparedDocument[] {
    return distinctIds(inputs.map((input) => prepareDocument(input, this.chunking)));
  }

  /** Vectors for the chunk texts the stored documents do not have yet (outside any transaction). */
  private async embedNew(prepared: readonly PreparedDocument[]): Promise<Map<string, Float32Array>> {
    const known = await this.chunks.summariesByDocumentIds(
      this.db,
      prepared.map((p) => p.write.id),
    );
    return embedMissing(this.embedder, prepared, new Set(known.map((k) => `${k.documentId}\u0000${k.contentHash}`)));
  }

  /** One result per input: the stored document, its chunk count, and how many chunks were embedded now. */
  private async results(
    tx: Queryable,
    prepared: readonly PreparedDocument[],
    written: ReadonlyMap<string, DocumentRecord>,
    current: ReadonlyMap<string, DocumentRecord>,
    embedded: ReadonlyMap<string, number>,
  ): Promise<IndexResultRecord[]> {
    const unchangedCounts = await this.chunks.countByDocumentIds(
      prepared.filter((p) => !written.has(p.write.id)).map((p) => p.write.id),
      tx, // PGlite has one connection: a query outside the transaction would wait for it forever
    );
    return prepared.map((p) => {
      const doc = written.get(p.write.id) ?? (current.get(p.write.id) as DocumentRecord);
      const isChanged = written.has(p.write.id);
      return {
        document: doc,
        chunkCount: isChanged ? p.chunks.length : (unchangedCounts.get(p.write.id) ?? 0),
        embeddedChunkCount: embedded.get(p.write.id) ?? 0,
        changed: isChanged,
      };
    });
  }

  /** CONFLICT when a stored (locked) document among `ids` is not `owner`'s: a sync never overwrites another's document. */
  private async checkOwner(tx: Queryable, ids: readonly string[], owner: string): Promise<void> {
    const owners = await this.documents.ownersOf(tx, ids);
    const foreign = ids.find((id) => owners.get(id) !== owner);
    if (foreign === undefined) return;
    const holder = owners.get(foreign);
    const who =
      holder === null || holder === undefined
        ? 'was made by hand or by a one-off import'
        : `belongs to another source ("${holder}")`;
    throw new AppError(
      ErrorCode.CONFLICT,
      `document "${foreign}" already exists and ${who}; a source never overwrites it. Nothing of this item was written: delete or rename that document, or leave this path out of the source`,
      { id: foreign, ownerSourceId: holder ?? null },
    );
  }
}

/** The documents keyed by id. */
function byId(docs: readonly DocumentRecord[]): Map<string, DocumentRecord> {
  return new Map(docs.map((d) => [d.id, d]));
}

/** True when writing `next` over `current` would change nothing. */
function isUnchanged(next: DocumentWrite, current: DocumentRecord | undefined): boolean {
  if (!current) return false;
  return (
    current.title === next.title &&
    current.contentHash === next.contentHash &&
    current.documentType === next.documentType &&
    current.source === next.source &&
    isDeepStrictEqual(current.tags, next.tags) &&
    isDeepStrictEqual(current.metadata, next.metadata) &&
    (current.expiresAt?.getTime() ?? null) === (next.expiresAt?.getTime() ?? null)
  );
}

/** CONFLICT when `create` finds a live document, or when the one document changed since `expectedUpdatedAt`. */
function assertWritable(
  mode: WriteMode,
  ids: readonly string[],
  current: ReadonlyMap<string, DocumentRecord>,
  expectedUpdatedAt: Date | undefined,
): void {
  if (mode === 'create') {
    const taken = ids.find((id) => current.has(id));
    if (taken !== undefined) {
      throw new AppError(
        ErrorCode.CONFLICT,
        `document "${taken}" already exists; use updateDocument or upsertDocuments`,
        { id: taken },
      );
    }
  }
  if (expectedUpdatedAt) {
    const doc = current.get(ids[0] as string);
    if (!doc) throw notFound('Document', ids[0] as string);
    if (doc.updatedAt.getTime() !== expectedUpdatedAt.getTime()) {
      throw new AppError(ErrorCode.CONFLICT, `document "${doc.id}" changed while it was being updated; retry`, {
        id: doc.id,
      });
    }
  }
}
