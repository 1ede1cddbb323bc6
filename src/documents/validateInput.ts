import { randomUUID } from 'node:crypto';
import { badInput } from '../errors.js';
import type { JsonObject } from '../shared/json.js';
import { assertStorableText } from '../storableText.js';
import { validateTags } from './tagExpression.js';
import { DOCUMENT_TYPES, type DocumentInput, type DocumentPatch, type DocumentTypeName } from './types.js';

/** Stable ids: readable keys such as `runbook:ach-failures` or `https://example.com/a`. */
export const DOCUMENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_\-:./@#?=&%+~]{0,511}$/;

/** Longest document title. */
export const MAX_TITLE = 1000;
const MAX_SOURCE = 2048;
/** Most tags a document carries. */
export const MAX_TAGS = 100;
/** Largest metadata, as JSON. */
export const MAX_METADATA_BYTES = 64 * 1024;

/** A document write as clients send it (GraphQL input shape, enum names in upper case). */
export interface RawDocumentInput {
  id?: string | null;
  title?: string | null;
  content?: string | null;
  documentType?: string | null;
  source?: string | null;
  tags?: readonly string[] | null;
  metadata?: unknown;
  expiresAt?: Date | null;
  entityIds?: readonly string[] | null;
}

/** Limits that depend on configuration. */
export interface InputLimits {
  maxDocumentChars: number;
  /** Most documents and chunks a space holds (0: no quota); see spaceQuota.ts. */
  spaceQuota?: SpaceQuota;
}

/** Per-space quotas: most documents and chunks one space holds (0: none). */
export interface SpaceQuota {
  documents: number;
  chunks: number;
}

/** Validates a document id. */
export function validateDocumentId(id: string, field = 'id'): string {
  if (!DOCUMENT_ID_PATTERN.test(id)) {
    throw badInput(
      field,
      `"${id.slice(0, 80)}" is not a valid id: use 1-512 letters, digits and _ - : . / @ # ? = & % + ~, starting with a letter or digit`,
    );
  }
  return id;
}

function validateTitle(title: string | null | undefined, field: string): string {
  const t = (title ?? '').trim();
  if (t === '') throw badInput(field, 'must not be empty');
  if (t.length > MAX_TITLE) throw badInput(field, `must be at most ${MAX_TITLE} characters (got ${t.length})`);
  return t;
}

function validateContent(content: string | null | undefined, field: string, limits: InputLimits): string {
  const c = content ?? '';
  if (c.trim() === '') throw badInput(field, 'must contain some text');
  if (c.length > limits.maxDocumentChars) {
    throw badInput(
      field,
      `is ${c.length} characters; the limit is ${limits.maxDocumentChars} (CAIRN_MAX_DOCUMENT_CHARS)`,
    );
  }
  return c;
}

function validateType(value: string | null | undefined, field: string): DocumentTypeName {
  const t = (value ?? 'OTHER').toLowerCase();
  if (!(DOCUMENT_TYPES as readonly string[]).includes(t)) {
    throw badInput(field, `must be one of ${DOCUMENT_TYPES.map((d) => d.toUpperCase()).join(', ')}`);
  }
  return t as DocumentTypeName;
}

function validateSource(source: string | null | undefined, field: string): string | null {
  const s = source?.trim() ?? '';
  if (s === '') return null;
  if (s.length > MAX_SOURCE) throw badInput(field, `must be at most ${MAX_SOURCE} characters`);
  return s;
}

function validateTagList(tags: readonly string[] | null | undefined, field: string): string[] {
  const list = validateTags(tags ?? [], field);
  if (list.length > MAX_TAGS) throw badInput(field, `at most ${MAX_TAGS} tags are allowed (got ${list.length})`);
  return list;
}

function validateMetadata(metadata: unknown, field: string): JsonObject {
  if (metadata === undefined || metadata === null) return {};
  if (typeof metadata !== 'object' || Array.isArray(metadata)) throw badInput(field, 'must be a JSON object');
  const size = Buffer.byteLength(JSON.stringify(metadata), 'utf8');
  if (size > MAX_METADATA_BYTES) throw badInput(field, `is ${size} bytes as JSON; the limit is ${MAX_METADATA_BYTES}`);
  // The JSON form is what jsonb stores (no undefined values), so an unchanged re-import compares equal.
  return JSON.parse(JSON.stringify(metadata)) as JsonObject;
}

function validateExpiry(expiresAt: Date | null | undefined, field: string, now: Date): Date | null {
  if (!expiresAt) return null;
  if (expiresAt.getTime() <= now.getTime()) throw badInput(field, 'must be in the future');
  return expiresAt;
}

/** Validates a full document write; `prefix` names its position in a batch (e.g. `input[3]`). */
export function validateDocumentInput(
  raw: RawDocumentInput,
  limits: InputLimits,
  prefix = 'input',
  now = new Date(),
): DocumentInput {
  assertStorableText(raw, prefix);
  const f = (name: string) => `${prefix}.${name}`;
  return {
    id: raw.id === undefined || raw.id === null ? undefined : validateDocumentId(raw.id, f('id')),
    title: validateTitle(raw.title, f('title')),
    content: validateContent(raw.content, f('content'), limits),
    documentType: validateType(raw.documentType, f('documentType')),
    source: validateSource(raw.source, f('source')),
    tags: validateTagList(raw.tags, f('tags')),
    metadata: validateMetadata(raw.metadata, f('metadata')),
    expiresAt: validateExpiry(raw.expiresAt, f('expiresAt'), now),
    entityIds: [...new Set((raw.entityIds ?? []).map((id, i) => validateDocumentId(id, `${f('entityIds')}[${i}]`)))],
  };
}

/** Validates a partial update: absent keys stay unchanged, `null` clears optional fields. */
export function validateDocumentPatch(
  raw: RawDocumentInput,
  limits: InputLimits,
  prefix = 'input',
  now = new Date(),
): DocumentPatch {
  assertStorableText(raw, prefix);
  const f = (name: string) => `${prefix}.${name}`;
  const patch: DocumentPatch = {};
  if (raw.title !== undefined) patch.title = validateTitle(raw.title, f('title'));
  if (raw.content !== undefined) patch.content = validateContent(raw.content, f('content'), limits);
  if (raw.documentType !== undefined) {
    if (raw.documentType === null) throw badInput(f('documentType'), 'cannot be null');
    patch.documentType = validateType(raw.documentType, f('documentType'));
  }
  if (raw.source !== undefined) patch.source = validateSource(raw.source, f('source'));
  if (raw.tags !== undefined) patch.tags = validateTagList(raw.tags, f('tags'));
  if (raw.metadata !== undefined) patch.metadata = validateMetadata(raw.metadata, f('metadata'));
  if (raw.expiresAt !== undefined) patch.expiresAt = validateExpiry(raw.expiresAt, f('expiresAt'), now);
  return patch;
}

/** Generates an id for a document created without one. */
export function generateDocumentId(): string {
  return `doc_${randomUUID()}`;
}

/** Fields an import applies to every document it creates; absent ones are detected from the source. */
export interface DocumentDefaultsInput {
  title?: string;
  documentType?: DocumentTypeName;
  source?: string;
  tags: string[];
  metadata: JsonObject;
  /** The caller left `tags` out (or sent null): a URL re-import keeps the document's tags instead of clearing them. */
  tagsOmitted?: true;
  /** The caller left `metadata` out (or sent null): a URL re-import keeps the document's own metadata keys. */
  metadataOmitted?: true;
}

/** Validates an import's document defaults (title, type, source, tags, metadata); `null` means absent. */
export function validateDocumentDefaults(
  raw: Omit<RawDocumentInput, 'id' | 'content' | 'expiresAt' | 'entityIds'>,
  prefix = 'input',
): DocumentDefaultsInput {
  assertStorableText(raw, prefix);
  const f = (name: string) => `${prefix}.${name}`;
  const defaults: DocumentDefaultsInput = {
    tags: validateTagList(raw.tags, f('tags')),
    metadata: validateMetadata(raw.metadata, f('metadata')),
  };
  if (raw.title !== undefined && raw.title !== null) defaults.title = validateTitle(raw.title, f('title'));
  if (raw.documentType !== undefined && raw.documentType !== null)
    defaults.documentType = validateType(raw.documentType, f('documentType'));
  const source = validateSource(raw.source, f('source'));
  if (source !== null) defaults.source = source;
  // Recorded only when true, so the stored request of an import that gave them is as before.
  if (raw.tags === undefined || raw.tags === null) defaults.tagsOmitted = true;
  if (raw.metadata === undefined || raw.metadata === null) defaults.metadataOmitted = true;
  return defaults;
}
