import { isDeepStrictEqual } from 'node:util';
import {
  MAX_METADATA_BYTES,
  MAX_TAGS,
  type DocumentInput,
  type DocumentRecord,
  type StoredDocumentLookup,
  type WriteRefiner,
} from '../../src/importerPort.js';
import type { JsonObject } from '../../src/shared/json.js';
import type { DocumentDefaults } from '../jobs/types.js';
import type { ImportedDocument } from '../types.js';
import { canonicalUrl, documentIdForUrl } from '../url/canonicalUrl.js';

/** Metadata key where a URL or file import records which fields its callers set and which metadata keys the source gave. */
export const IMPORT_FIELDS = 'importFields';

/** Fields a caller may set on an import that a later import without them keeps. */
const CALLER_FIELDS = ['title', 'documentType', 'source'] as const;
type CallerField = (typeof CALLER_FIELDS)[number];

/** A page's metadata keys for URL documents imported before importFields was recorded. */
const LEGACY_PAGE_KEYS = ['url', 'finalUrl', 'fetchedAt', 'contentType', 'language', 'description'];

/** Metadata a refresh never drops to fit the size cap: they say where the document came from. */
const ESSENTIAL_KEYS = new Set(['url', 'finalUrl', 'fileName', IMPORT_FIELDS]);

/** What `metadata.importFields` holds. */
interface ImportFields {
  caller: CallerField[];
  source: string[];
}

/**
 * How a re-import refreshes the document its page or file already has, instead of wiping what callers set (or, for a
 * page reached through a redirect, duplicating it).
 */
export interface ImportRefresh {
  /** The document id of the URL the fetch ended at (after redirects); a file's own id. */
  finalId: string;
  /** `metadata.finalUrl` values meaning "this page": the final URL as fetched and in canonical form; none for a file. */
  finalUrls: string[];
  /** Which fields this import's caller gave. */
  given: Record<CallerField | 'tags' | 'metadata', boolean>;
  /** Metadata keys this import took from the page or file, not from the caller. */
  sourceKeys: string[];
  /** The source's keys in a document imported before importFields was recorded. */
  legacySourceKeys: string[];
}

/** A planned URL or file document with its refresh rule. */
export type RefreshableDocument = ImportedDocument & { refresh?: ImportRefresh };

/**
 * Records on a planned document what its caller set and which metadata its source gave, and attaches its refresh rule;
 * `finalUrl` is where a fetched page's redirects ended (undefined for a file).
 */
export function refreshable(doc: ImportedDocument, defaults: DocumentDefaults, finalUrl?: string): RefreshableDocument {
  const fromCaller = (key: string) =>
    Object.hasOwn(defaults.metadata, key) && isDeepStrictEqual(defaults.metadata[key], doc.metadata[key]);
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
  const refresh: ImportRefresh =
    finalUrl === undefined
      ? {
          finalId: doc.id,
          finalUrls: [],
          given,
          sourceKeys,
          legacySourceKeys: [...new Set([...sourceKeys, 'fileName', 'format'])],
        }
      : {
          finalId: documentIdForUrl(finalUrl),
          finalUrls: [...new Set([finalUrl, canonicalUrl(finalUrl)])],
          given,
          sourceKeys,
          legacySourceKeys: LEGACY_PAGE_KEYS,
        };
  return Object.assign(doc, { refresh });
}

/** The refresh rule of a planned document, if it has one. */
export function refreshOf(doc: ImportedDocument): ImportRefresh | undefined {
  return (doc as RefreshableDocument).refresh;
}

/**
 * Decides, inside the write's transaction, which stored document an import refreshes and what it keeps (docs/importing.md
 * "importUrl"): a file's own document; for a page, the requested URL's document, else the final URL's, else the oldest
 * whose metadata.finalUrl is the final URL. None means a new document under the planned id.
 */
export function importRefresher(rules: ReadonlyMap<string, ImportRefresh>): WriteRefiner {
  return {
    relatedIds: (input) => {
      const rule = rules.get(input.id ?? '');
      return rule && rule.finalId !== input.id ? [rule.finalId] : [];
    },
    async refine(input, live, stored) {
      const rule = rules.get(input.id ?? '');
      if (!rule) return input;
      const target =
        live.get(input.id ?? '') ?? live.get(rule.finalId) ?? (await lockOldestByFinalUrl(stored, rule.finalUrls));
      return target ? refreshed(input, target, rule) : input;
    },
  };
}

/**
 * The oldest live document whose `metadata.finalUrl` is one of `urls`, locked FOR UPDATE: a page that a URL import
 * stored under the id of another URL that redirected to it. Served by the index of migration 012.
 */
function lockOldestByFinalUrl(
  stored: StoredDocumentLookup,
  urls: readonly string[],
): Promise<DocumentRecord | undefined> {
  return stored.lockOldestByMetadataValue('finalUrl', urls);
}

/** The input merged into the stored document: the source's fields are new, the callers' are kept unless given again. */
function refreshed(input: DocumentInput, target: DocumentRecord, rule: ImportRefresh): DocumentInput {
  const before = importFieldsOf(target.metadata);
  const pinned = (field: CallerField) => !rule.given[field] && (before?.caller.includes(field) ?? false);
  const caller = CALLER_FIELDS.filter((f) => rule.given[f] || pinned(f));
  const fromPage = pick(input.metadata, rule.sourceKeys);
  const callers = rule.given.metadata
    ? omit(input.metadata, [...rule.sourceKeys, IMPORT_FIELDS])
    : omit(target.metadata, [...(before?.source ?? rule.legacySourceKeys), IMPORT_FIELDS]);
  return {
    ...input,
    id: target.id,
    title: pinned('title') ? target.title : input.title,
    documentType: pinned('documentType') ? target.documentType : input.documentType,
    source: pinned('source') ? target.source : input.source,
    // The page's own tags (markdown front matter) join the kept ones.
    tags: rule.given.tags ? input.tags : [...new Set([...target.tags, ...input.tags])].slice(0, MAX_TAGS),
    metadata: fitted(
      { ...callers, ...fromPage, [IMPORT_FIELDS]: { caller, source: rule.sourceKeys } },
      rule.sourceKeys,
    ),
    // An expiry someone set on the document is theirs, like its tags.
    expiresAt: target.expiresAt,
  };
}

/** Kept metadata beside the page's may pass the cap: the page's values give way, largest first. */
function fitted(metadata: JsonObject, sourceKeys: readonly string[]): JsonObject {
  const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  const droppable = sourceKeys
    .filter((k) => Object.hasOwn(metadata, k) && !ESSENTIAL_KEYS.has(k))
    .sort((a, b) => size(metadata[b]) - size(metadata[a]));
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
