import DataLoader from 'dataloader';
import type { ChunkRecord, DocumentSummary } from '../documents/types.js';
import type { EvidenceViewPage } from '../extraction/ExtractionEvidenceService.js';
import type { EntityRecord, RelationshipRecord } from '../graph/types.js';
import type { Services } from '../services.js';
import type { ExtractionState } from '../extraction/ExtractionService.js';
import type { TextBudget } from './TextBudget.js';

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
  /** A document's extraction state; null when it was never queued. */
  extractionByDocument: DataLoader<string, ExtractionState | null>;
  /** Key: `${first}:${offset}:${factKey}` (fact key 'e:<entity id>' or 'r:<relationship id>'). */
  evidenceByFact: DataLoader<string, EvidenceViewPage>;
}

/** Creates the loaders of one request; the text loaders read no more than `budget` still allows. */
export function createLoaders(services: Services, budget: TextBudget): Loaders {
  const documents = services.documents;
  const graph = services.graph;
  return {
    documentById: new DataLoader(async (ids) => {
      const found = new Map((await documents.summariesByIds(ids)).map((d) => [d.id, d]));
      return ids.map((id) => found.get(id) ?? null);
    }),
    // Texts past the budget are not read: their documents answer with the budget's error (null means gone).
    documentContentById: new DataLoader<string, string | null>(async (ids) => {
      const found = await documents.contentByIds(ids, budget.remaining);
      const live = found.size === ids.length ? undefined : new Set(await documents.liveIds(ids));
      return ids.map((id) => found.get(id) ?? (live?.has(id) ? budget.exceeded() : null));
    }),
    chunksByDocumentId: new DataLoader<string, ChunkRecord[]>(async (ids) => {
      const byDoc = new Map<string, ChunkRecord[]>();
      for (const c of await documents.chunksWithin(ids, budget.remaining)) {
        const list = byDoc.get(c.documentId);
        if (list) list.push(c);
        else byDoc.set(c.documentId, [c]);
      }
      const withChunks = byDoc.size === ids.length ? undefined : new Set(await documents.documentIdsWithChunks(ids));
      return ids.map((id) => byDoc.get(id) ?? (withChunks?.has(id) ? budget.exceeded() : []));
    }),
    chunkCountByDocumentId: new DataLoader(async (ids) => {
      const counts = await documents.chunkCounts(ids);
      return ids.map((id) => counts.get(id) ?? 0);
    }),
    entityById: new DataLoader(async (ids) => {
      const found = new Map((await graph.getEntities(ids)).map((e) => [e.id, e]));
      return ids.map((id) => found.get(id) ?? null);
    }),
    relationshipById: new DataLoader(async (ids) => {
      const found = new Map((await graph.getRelationships(ids)).map((r) => [r.id, r]));
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
        for (const [id, docs] of await graph.documentIdsByEntity(ids, first)) results.set(`${first}:${id}`, docs);
      }
      return keys.map((k) => results.get(k) ?? []);
    }),
    extractionByDocument: new DataLoader(async (ids: readonly string[]) => {
      const states = await services.extraction.documentStates(ids);
      return ids.map((id) => states.get(id) ?? null);
    }),
    entityIdsByDocument: new DataLoader(async (ids) => {
      const map = await graph.entityIdsByDocument(ids);
      return ids.map((id) => map.get(id) ?? []);
    }),
    evidenceByFact: new DataLoader(async (keys) => {
      // Keys share one page in practice (a list of entities asking for the same `first`): one query per page.
      const groups = new Map<string, string[]>();
      for (const k of keys) {
        const [first, rest] = splitKey(k);
        const [offset, factKey] = splitKey(rest);
        const page = `${first}:${offset}`;
        groups.set(page, [...(groups.get(page) ?? []), factKey]);
      }
      const results = new Map<string, EvidenceViewPage>();
      for (const [page, factKeys] of groups) {
        const [first, offset] = page.split(':').map(Number) as [number, number];
        for (const [key, found] of await services.evidence.pages(factKeys, first, offset))
          results.set(`${page}:${key}`, found);
      }
      return keys.map((k) => results.get(k) ?? { items: [], totalCount: 0 });
    }),
  };
}

function splitKey(key: string): [number, string] {
  const i = key.indexOf(':');
  return [Number(key.slice(0, i)), key.slice(i + 1)];
}

/** Loads many keys and keeps the ones that exist, in key order. */
export async function loadAll<T>(
  loader: { loadMany(keys: readonly string[]): Promise<(T | Error | null)[]> },
  ids: readonly string[],
): Promise<T[]> {
  return (await loader.loadMany(ids)).filter((x): x is Awaited<T> => x !== null && !(x instanceof Error));
}
