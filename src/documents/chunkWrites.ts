import type { TextChunk } from '../chunking/chunkText.js';
import { chunkText } from '../chunking/chunkText.js';
import { contentHash } from '../chunking/contentHash.js';
import type { Queryable } from '../db/Db.js';
import type { EmbeddingProvider } from '../embeddings/EmbeddingProvider.js';
import { badInput } from '../errors.js';
import type { ChunkInsert, ChunkMove, ChunkRepository } from './ChunkRepository.js';
import type { DocumentWrite } from './DocumentRepository.js';
import { chunkHash, embeddingText } from './embeddingText.js';
import { generateDocumentId } from './validateInput.js';
import type { DocumentInput } from './types.js';

// DocumentService's chunk side of a write: chunk and hash the input, embed only new texts, diff the stored chunks.

/** A document prepared for writing: validated, chunked and hashed. */
export interface PreparedDocument {
  write: DocumentWrite;
  entityIds: string[];
  chunks: (TextChunk & { hash: string })[];
}

/** Validated input, chunked and hashed, ready to write. */
export function prepareDocument(input: DocumentInput, chunking: { size: number; overlap: number }): PreparedDocument {
  const id = input.id ?? generateDocumentId();
  const chunks = chunkText(input.content, chunking).map((c) => ({
    ...c,
    hash: chunkHash(input.title, c.content),
  }));
  return {
    write: {
      id,
      title: input.title,
      content: input.content,
      documentType: input.documentType,
      source: input.source,
      tags: input.tags,
      metadata: input.metadata,
      contentHash: contentHash(input.content),
      expiresAt: input.expiresAt,
    },
    chunks,
    entityIds: input.entityIds ?? [],
  };
}

/** BAD_USER_INPUT when two documents of one batch have the same id. */
export function distinctIds(prepared: PreparedDocument[]): PreparedDocument[] {
  const ids = prepared.map((p) => p.write.id);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate !== undefined) throw badInput('input', `id "${duplicate}" appears more than once in this batch`);
  return prepared;
}

/** Embeds every chunk text whose hash the document does not have yet, each distinct text once. */
export async function embedMissing(
  embedder: EmbeddingProvider,
  prepared: readonly PreparedDocument[],
  known: ReadonlySet<string>,
): Promise<Map<string, Float32Array>> {
  const texts = new Map<string, string>();
  for (const p of prepared) {
    for (const c of p.chunks) {
      if (!known.has(`${p.write.id}\u0000${c.hash}`) && !texts.has(c.hash))
        texts.set(c.hash, embeddingText(p.write.title, c.content));
    }
  }
  if (texts.size === 0) return new Map();
  const hashes = [...texts.keys()];
  const vectors = await embedder.embed([...texts.values()]);
  return new Map(hashes.map((h, i) => [h, vectors[i] as Float32Array]));
}

/** Diffs stored chunks against the new ones: keeps equal hashes (moving them), deletes the rest, inserts new ones. */
export async function replaceChunks(
  tx: Queryable,
  chunks: ChunkRepository,
  embedder: EmbeddingProvider,
  docs: readonly PreparedDocument[],
  vectors: Map<string, Float32Array>,
): Promise<{ embeddedPerDoc: Map<string, number>; chunkIds: Map<string, string[]> }> {
  const stored = await chunks.summariesByDocumentIds(
    tx,
    docs.map((d) => d.write.id),
  );
  const pool = new Map<string, string[]>(); // documentId + hash → stored chunk ids
  for (const s of stored) {
    const key = `${s.documentId}\u0000${s.contentHash}`;
    const list = pool.get(key);
    if (list) list.push(s.id);
    else pool.set(key, [s.id]);
  }
  const inserts: ChunkInsert[] = [];
  const moves: ChunkMove[] = [];
  const embeddedPerDoc = new Map<string, number>();
  const chunkIds = new Map<string, string[]>(); // document id → chunk id per ordinal
  const insertedAt: { documentId: string; ordinal: number }[] = [];
  for (const doc of docs) {
    let embedded = 0;
    const ids: string[] = [];
    chunkIds.set(doc.write.id, ids);
    for (const c of doc.chunks) {
      const keep = pool.get(`${doc.write.id}\u0000${c.hash}`)?.pop();
      if (keep !== undefined) {
        moves.push({ id: keep, ordinal: c.ordinal, charStart: c.charStart, charEnd: c.charEnd });
        ids[c.ordinal] = keep;
      } else {
        insertedAt.push({ documentId: doc.write.id, ordinal: c.ordinal });
        inserts.push({
          documentId: doc.write.id,
          ordinal: c.ordinal,
          content: c.content,
          charStart: c.charStart,
          charEnd: c.charEnd,
          contentHash: c.hash,
          embedding: vectors.get(c.hash) as Float32Array,
        });
        embedded++;
      }
    }
    embeddedPerDoc.set(doc.write.id, embedded);
  }
  // A concurrent writer may have removed a chunk we planned to keep: embed those few now.
  const late = inserts.filter((i) => !i.embedding);
  if (late.length > 0) {
    const titles = new Map(docs.map((d) => [d.write.id, d.write.title]));
    const fresh = await embedder.embed(late.map((i) => embeddingText(titles.get(i.documentId) ?? '', i.content)));
    late.forEach((i, n) => (i.embedding = fresh[n] as Float32Array));
  }
  await chunks.deleteByIds(tx, [...pool.values()].flat());
  await chunks.move(tx, moves);
  const newIds = await chunks.insertMany(tx, inserts);
  insertedAt.forEach((at, i) => {
    (chunkIds.get(at.documentId) as string[])[at.ordinal] = newIds[i] as string;
  });
  return { embeddedPerDoc, chunkIds };
}
