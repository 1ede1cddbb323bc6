import DataLoader from 'dataloader';
import type { ChunkRecord, DocumentSummary } from '../documents/types.js';
import type { EntityRecord, RelationshipRecord } from '../graph/types.js';
import type { Services } from '../services.js';

/** Batching loaders, created per request so nothing is cached across requests. */
export interface Loaders {
  /** Live documents without their content (Document.content reads it through `documentContentById`). */
  documentById: DataLoader<string, DocumentSummary | null>;
  documentContentById: DataLoader<string, string | null>;
  chunksByDocumentId: DataLoader<string, ChunkRecord[]>;
  chunkCountByDocumentId: DataLoader<string, number>;
  entityById: DataLoader<string, EntityRecord | null>;
  relationshipById: DataLoader<string, RelationshipRecord | null>;
  /** Key: `${first}:${entityId}` */
  documentIdsByEntity: DataLoader<string, string[]>;
  entityIdsByDocument: DataLoader<string, string[]>;
}

/** Creates the loaders of one request. */
export function createLoaders(services: Services): Loaders {
  const { documents, chunks } = services.documents;
  const { store, linker } = services.graph;
  return {
    documentById: new DataLoader(async (ids) => {
      const found = new Map((await documents.findSummariesByIds(ids)).map((d) => [d.id, d]));
      return ids.map((id) => found.get(id) ?? null);
    }),
    documentContentById: new DataLoader(async (ids) => {
      const found = await documents.contentByIds(ids);
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
    entityById: new DataLoader(async (ids) => {
      const found = new Map((await store.getEntities(ids)).map((e) => [e.id, e]));
      return ids.map((id) => found.get(id) ?? null);
    }),
    relationshipById: new DataLoader(async (ids) => {
      const found = new Map((await store.getRelationships(ids)).map((r) => [r.id, r]));
      return ids.map((id) => found.get(id) ?? null);
    }),
    documentIdsByEntity: new DataLoader(async (keys) => {
      // Keys share one `first` in practice; group by it so each group is one query.
      const groups = new Map<number, string[]>();
      for (const k of keys) {
        const [first, id] = splitKey(k);
        groups.set(first, [...(groups.get(first) ?? []), id]);
      }
      const results = new Map<string, string[]>();
      for (const [first, ids] of groups) {
        for (const [id, docs] of await linker.mentions.documentIdsByEntity(ids, first)) results.set(`${first}:${id}`, docs);
      }
      return keys.map((k) => results.get(k) ?? []);
    }),
    entityIdsByDocument: new DataLoader(async (ids) => {
      const map = await linker.mentions.entityIdsByDocument(ids);
      return ids.map((id) => map.get(id) ?? []);
    }),
  };
}

function splitKey(key: string): [number, string] {
  const i = key.indexOf(':');
  return [Number(key.slice(0, i)), key.slice(i + 1)];
}

/** Loads many keys and keeps the ones that exist, in key order. */
export async function loadAll<T>(loader: { loadMany(keys: readonly string[]): Promise<(T | Error | null)[]> }, ids: readonly string[]): Promise<T[]> {
  return (await loader.loadMany(ids)).filter((x): x is Awaited<T> => x !== null && !(x instanceof Error));
}
