import DataLoader from 'dataloader';
import type { ChunkRecord, DocumentRecord } from '../documents/types.js';
import type { Services } from '../services.js';

/** Batching loaders, created per request so nothing is cached across requests. */
export interface Loaders {
  documentById: DataLoader<string, DocumentRecord | null>;
  chunksByDocumentId: DataLoader<string, ChunkRecord[]>;
  chunkCountByDocumentId: DataLoader<string, number>;
}

/** Creates the loaders of one request. */
export function createLoaders(services: Services): Loaders {
  const { documents, chunks } = services.documents;
  return {
    documentById: new DataLoader(async (ids) => {
      const found = new Map((await documents.findByIds(ids)).map((d) => [d.id, d]));
      return ids.map((id) => found.get(id) ?? null);
    }),
    chunksByDocumentId: new DataLoader(async (ids) => {
      const byDoc = new Map<string, ChunkRecord[]>(ids.map((id) => [id, []]));
      for (const c of await chunks.findByDocumentIds(ids)) byDoc.get(c.documentId)?.push(c);
      return ids.map((id) => byDoc.get(id) ?? []);
    }),
    chunkCountByDocumentId: new DataLoader(async (ids) => {
      const counts = await chunks.countByDocumentIds(ids);
      return ids.map((id) => counts.get(id) ?? 0);
    }),
  };
}
