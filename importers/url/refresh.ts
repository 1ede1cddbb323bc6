import { isDeepStrictEqual } from 'node:util';
import { lockOldestByFinalUrl } from '../../src/documents/documentRepository.js';
import type { DocumentInput, DocumentRecord, JsonObject } from '../../src/documents/types.js';
import { MAX_METADATA_BYTES, MAX_TAGS } from '../../src/documents/validateInput.js';
import type { WriteRefiner } from '../../src/documents/writeRefiner.js';
import type { DocumentDefaults } from '../jobs/types.js';
import type { ImportedDocument } from '../types.js';
import { canonicalUrl, documentIdForUrl } from './canonicalUrl.js';

/** Metadata key where a URL import records which fields its callers set and which metadata keys the page gave. */
export const IMPORT_FIELDS = 'importFields';

/** Fields a caller may set on a URL import that a later import without them keeps. */
const CALLER_FIELDS = ['title', 'documentType', 'source'] as const;
type CallerField = (typeof CALLER_FIELDS)[number];

/** The page's metadata keys for documents imported before importFields was recorded. */
const LEGACY_SOURCE_KEYS = ['url', 'finalUrl', 'fetchedAt', 'contentType', 'language', 'description'];

/** Metadata a refresh never drops to fit the size cap: they say where the document came from. */
const ESSENTIAL_KEYS = new Set(['url', 'finalUrl', IMPORT_FIELDS]);

/** What `metadata.importFields` holds. */
interface ImportFields {
  caller: CallerField[];
  source: string[];
}

/** How a URL re-import refreshes the document the page already has, instead of wiping what callers set or duplicating it. */
export interface UrlRefresh {
  /** The document id of the URL the fetch ended at (after redirects). */
  finalId: string;
  /** `metadata.finalUrl` values meaning "this page": the final URL as fetched and in canonical form. */
  finalUrls: string[];
  /** Which fields this import's caller gave. */
  given: Record<CallerField | 'tags' | 'metadata', boolean>;
  /** Metadata keys this import took from the page, not from the caller. */
  sourceKeys: string[];
}

/** A planned URL document with its refresh rule. */
export type RefreshableDocument = ImportedDocument & { refresh?: UrlRefresh };

/** Records on a planned URL document what its caller set and which metadata the page gave, and attaches its refresh rule. */
export function refreshable(doc: ImportedDocument, finalUrl: string, defaults: DocumentDefaults): RefreshableDocument {
  const fromCaller = (key: string) => Object.hasOwn(defaults.metadata, key) && isDeepStrictEqual(defaults.metadata[key], doc.metadata[key]);
  const sourceKeys = Object.keys(doc.metadata).filter((key) => !fromCaller(key) && key !== IMPORT_FIELDS);
  const given = {
    title: defaults.title !== undefined,
    documentType: defaults.documentType !== undefined,
    source: defaults.source !== undefined,
    tags: defaults.tagsOmitted !== true,
    metadata: defaults.metadataOmitted !== true,
  };
  const fields: ImportFields = { caller: CALLER_FIELDS.filter((f) => given[f]), source: sourceKeys };
  doc.metadata = { ...doc.metadata, [IMPORT_FIELDS]: { ...fields } };
  const refresh: UrlRefresh = { finalId: documentIdForUrl(finalUrl), finalUrls: [...new Set([finalUrl, canonicalUrl(finalUrl)])], given, sourceKeys };
  return Object.assign(doc, { refresh });
}

/** The refresh rule of a planned document, if it has one. */
export function refreshOf(doc: ImportedDocument): UrlRefresh | undefined {
  return (doc as RefreshableDocument).refresh;
}

/**
 * Decides, inside the write's transaction, which stored document a URL import refreshes and what it keeps (README
 * "importUrl"): the requested URL's document, else the final URL's, else the oldest whose metadata.finalUrl is the
 * final URL; none means a new document under the requested URL's id.
 */
export function urlRefresher(rules: ReadonlyMap<string, UrlRefresh>): WriteRefiner {
  return {
    relatedIds: (input) => {
      const rule = rules.get(input.id ?? '');
      return rule && rule.finalId !== input.id ? [rule.finalId] : [];
    },
    async refine(input, live, q) {
      const rule = rules.get(input.id ?? '');
      if (!rule) return input;
      const target = live.get(input.id ?? '') ?? live.get(rule.finalId) ?? (await lockOldestByFinalUrl(q, rule.finalUrls));
      return target ? refreshed(input, target, rule) : input;
    },
  };
}

/** The input merged into the stored document: the page's fields are new, the callers' are kept unless given again. */
function refreshed(input: DocumentInput, target: DocumentRecord, rule: UrlRefresh): DocumentInput {
  const before = importFieldsOf(target.metadata);
  const pinned = (field: CallerField) => !rule.given[field] && (before?.caller.includes(field) ?? false);
  const caller = CALLER_FIELDS.filter((f) => rule.given[f] || pinned(f));
  const fromPage = pick(input.metadata, rule.sourceKeys);
  const callers = rule.given.metadata
    ? omit(input.metadata, [...rule.sourceKeys, IMPORT_FIELDS])
    : omit(target.metadata, [...(before?.source ?? LEGACY_SOURCE_KEYS), IMPORT_FIELDS]);
  return {
    ...input,
    id: target.id,
    title: pinned('title') ? target.title : input.title,
    documentType: pinned('documentType') ? target.documentType : input.documentType,
    source: pinned('source') ? target.source : input.source,
    // The page's own tags (markdown front matter) join the kept ones.
    tags: rule.given.tags ? input.tags : [...new Set([...target.tags, ...input.tags])].slice(0, MAX_TAGS),
    metadata: fitted({ ...callers, ...fromPage, [IMPORT_FIELDS]: { caller, source: rule.sourceKeys } }, rule.sourceKeys),
    // An expiry someone set on the document is theirs, like its tags.
    expiresAt: target.expiresAt,
  };
}

/** Kept metadata beside the page's may pass the cap: the page's values give way, largest first. */
function fitted(metadata: JsonObject, sourceKeys: readonly string[]): JsonObject {
  const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  const droppable = sourceKeys.filter((k) => Object.hasOwn(metadata, k) && !ESSENTIAL_KEYS.has(k)).sort((a, b) => size(metadata[b]) - size(metadata[a]));
  for (const key of droppable) {
    if (size(metadata) <= MAX_METADATA_BYTES) break;
    delete metadata[key];
  }
  return metadata;
}

function importFieldsOf(metadata: JsonObject): ImportFields | undefined {
  const value = metadata[IMPORT_FIELDS];
  if (typeof value !== 'object' || value === null) return undefined;
  const { caller, source } = value as Record<string, unknown>;
  if (!Array.isArray(caller) || !Array.isArray(source)) return undefined;
  return {
    caller: CALLER_FIELDS.filter((f) => caller.includes(f)),
    source: source.filter((k): k is string => typeof k === 'string'),
  };
}

function pick(metadata: JsonObject, keys: readonly string[]): JsonObject {
  return Object.fromEntries(keys.filter((k) => Object.hasOwn(metadata, k)).map((k) => [k, metadata[k]]));
}

function omit(metadata: JsonObject, keys: readonly string[]): JsonObject {
  const drop = new Set(keys);
  return Object.fromEntries(Object.entries(metadata).filter(([k]) => !drop.has(k)));
}
