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
  /** The space an entity lives in (null: not one the request reads). */
  entitySpaceById: DataLoader<string, string | null>;
  relationshipById: DataLoader<string, RelationshipRecord | null>;
  /** Key: `${first}:${entityId}`, `first` as given ('' when omitted): GraphService applies its bounds. */
  documentIdsByEntity: DataLoader<string, string[]>;
  entityIdsByDocument: DataLoader<string, string[]>;
  /** A document's extraction state; null when it was never queued. */
  extractionByDocument: DataLoader<string, ExtractionState | null>;
  /** Key: `${first}:${offset}:${factKey}` (`first` as given, '' when omitted; fact key 'e:<entity id>' or 'r:<relationship id>'). */
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
    entitySpaceById: new DataLoader(async (ids) => {
      const spaces = await graph.entitySpaces(ids);
      return ids.map((id) => spaces.get(id) ?? null);
    }),
    relationshipById: new DataLoader(async (ids) => {
      const found = new Map((await graph.getRelationships(ids)).map((r) => [r.id, r]));
      return ids.map((id) => found.get(id) ?? null);
    }),
    // Keys share one `first` in practice; each group is one query, and a `first` the service refuses fails its group.
    documentIdsByEntity: new DataLoader((keys) =>
      loadGrouped<string[]>(keys, 1, [], (first, ids) => graph.documentIdsByEntity(ids, optionalInt(first))),
    ),
    extractionByDocument: new DataLoader(async (ids: readonly string[]) => {
      const states = await services.extraction.documentStates(ids);
      return ids.map((id) => states.get(id) ?? null);
    }),
    entityIdsByDocument: new DataLoader(async (ids) => {
      const map = await graph.entityIdsByDocument(ids);
      return ids.map((id) => map.get(id) ?? []);
    }),
    // Keys share one page in practice (a list of entities asking for the same `first`): one query per page.
    evidenceByFact: new DataLoader(async (keys) =>
      loadGrouped<EvidenceViewPage>(keys, 2, { items: [], totalCount: 0 }, (page, factKeys) => {
        const [first, offset] = splitKey(page, 1);
        return services.evidence.pages(factKeys, optionalInt(first), Number(offset));
      }),
    ),
  };
}

/** A key's leading `parts` colon-separated fields (numbers, or '' when omitted) and the id after them (colons allowed). */
function splitKey(key: string, parts: number): [string, string] {
  let at = -1;
  for (let n = 0; n < parts; n++) at = key.indexOf(':', at + 1);
  return [key.slice(0, at), key.slice(at + 1)];
}

/** A key's number part; '' (the argument was omitted) is undefined, for the service's default. */
function optionalInt(part: string): number | undefined {
  return part === '' ? undefined : Number(part);
}

/**
 * Loads keys of `groupParts` leading fields and an id one group at a time; a group the service refuses (its arguments
 * out of range) fails its own keys with that error, not the other groups'. Ids the service does not answer get
 * `missing`.
 */
async function loadGrouped<T>(
  keys: readonly string[],
  groupParts: number,
  missing: T,
  load: (group: string, ids: string[]) => Promise<Map<string, T>>,
): Promise<(T | Error)[]> {
  const groups = new Map<string, string[]>();
  for (const k of keys) {
    const [group, id] = splitKey(k, groupParts);
    groups.set(group, [...(groups.get(group) ?? []), id]);
  }
  const results = new Map<string, T | Error>();
  for (const [group, ids] of groups) {
    // `load` may throw before it returns a promise (a service checking its arguments), so it runs inside the `try`.
    let found: Map<string, T> | Error;
    try {
      found = await load(group, ids);
    } catch (err) {
      found = err instanceof Error ? err : new Error(String(err));
    }
    for (const id of ids) results.set(`${group}:${id}`, found instanceof Error ? found : (found.get(id) ?? missing));
  }
  return keys.map((k) => results.get(k) ?? missing);
}

/** Loads many keys and keeps the ones that exist, in key order. */
export async function loadAll<T>(
  loader: { loadMany(keys: readonly string[]): Promise<(T | Error | null)[]> },
  ids: readonly string[],
): Promise<T[]> {
  return (await loader.loadMany(ids)).filter((x): x is Awaited<T> => x !== null && !(x instanceof Error));
}
