import { createHash } from 'node:crypto';
import { badInput } from '../../src/errors.js';
import { TAG_PATTERN } from '../../src/importerPort.js';

/** Document and entity ids share this limit (DOCUMENT_ID_PATTERN, ENTITY_ID_PATTERN). */
export const MAX_ID_LENGTH = 512;

/** Spec ids are short and colon-free, so `openapi:<specId>:` is an unambiguous prefix far below the id limit. */
export const SPEC_ID_PATTERN = /^[A-Za-z0-9_.-]{1,100}$/;

const MAX_SLUG = 80;

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

// Every id character except `%`, which is kept for escapes so the encoding stays reversible.
const KEEP = /[A-Za-z0-9_\-:./@#?=&+~]/;

/** Percent-encodes (UTF-8, upper-case hex) every character an id may not contain, and `%` itself. */
export function encodeIdPart(text: string): string {
  let out = '';
  for (const ch of text) {
    if (KEEP.test(ch)) out += ch;
    else for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** `prefix` + encoded `part`; when longer than 512, the part is cut and a hash of it appended, keeping the prefix. */
export function boundedId(prefix: string, part: string): string {
  const encoded = encodeIdPart(part);
  const id = prefix + encoded;
  if (id.length <= MAX_ID_LENGTH) return id;
  const hash = sha256(part).slice(0, 16);
  // Do not leave half an escape (`%4`) before the hash.
  const head = encoded.slice(0, MAX_ID_LENGTH - prefix.length - hash.length - 1).replace(/%[0-9A-F]?$/, '');
  return `${prefix}${head}~${hash}`;
}

/** Lower-case slug of letters and digits joined by `-`; '' when nothing usable remains. */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function boundedSlug(slug: string, source: string): string {
  if (slug.length <= MAX_SLUG) return slug;
  return `${slug.slice(0, MAX_SLUG - 9).replace(/-+$/, '')}-${sha256(source).slice(0, 8)}`;
}

/** A spec URL as its id is derived from it: host, path without trailing `/`, sorted query; no scheme, credentials or fragment. */
export function canonicalSpecUrl(raw: string): string | undefined {
  try {
    const u = new URL(raw.trim());
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    u.hash = '';
    u.username = '';
    u.password = '';
    u.searchParams.sort();
    const path = u.pathname.replace(/\/+$/, '');
    return `${u.host}${path}${u.search}`;
  } catch {
    return undefined;
  }
}

/**
 * A stable, id-safe slug for a spec: from its canonical URL when there is one (host, path, sorted
 * query), else from `info.title`, else `spec-` + a content hash.
 */
export function specIdFor(input: { url?: string; title?: string; content?: string }): string {
  const canonical = input.url ? canonicalSpecUrl(input.url) : undefined;
  if (canonical) {
    const slug = slugify(canonical);
    if (slug) return boundedSlug(slug, canonical);
  }
  const title = input.title?.trim();
  if (title) {
    const slug = slugify(title);
    if (slug) return boundedSlug(slug, title);
  }
  if (input.content !== undefined && input.content !== '') return `spec-${sha256(input.content).slice(0, 16)}`;
  throw badInput('specId', 'cannot derive a spec id: give a URL, a title or the content');
}

/** Throws BAD_USER_INPUT naming `field` unless `specId` is a slug that ids can be built from. */
export function validateSpecId(specId: string, field = 'specId'): string {
  if (!SPEC_ID_PATTERN.test(specId)) {
    const shown = specId.length > 80 ? `${specId.slice(0, 80)}…` : specId;
    throw badInput(
      field,
      `"${shown}" is not a valid spec id: use 1-100 letters, digits, "_", "." or "-" (no spaces, colons or slashes), e.g. "billing-api"`,
    );
  }
  return specId;
}

/** An operation tag as a document tag (TAG_PATTERN), or undefined when nothing usable is left. */
export function sanitizeTag(tag: string): string | undefined {
  const t = tag
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_:-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .replace(/[-_:]+$/, '')
    .slice(0, 100);
  return TAG_PATTERN.test(t) ? t : undefined;
}

/** The ids of one spec's documents and graph nodes. */
export interface SpecIds {
  overviewDocument: string;
  /** Every operation/webhook document id starts with this; it is the plan's replacePrefix. */
  documentPrefix: string;
  api: string;
  operationDocument(key: string): string;
  operation(key: string): string;
  schema(name: string): string;
  tag(name: string): string;
  /** Every operation, schema and tag entity id starts with one of these (the plan's replaceEntityPrefixes). */
  entityPrefixes: string[];
}

/** Builds the id scheme for `specId`; `key` is `GET /pets/{id}` or `webhook:newPet POST`. */
export function specIds(specId: string): SpecIds {
  validateSpecId(specId);
  const documentPrefix = `openapi:${specId}:`;
  return {
    overviewDocument: `openapi:${specId}`,
    documentPrefix,
    api: `api:${specId}`,
    operationDocument: (key) => boundedId(documentPrefix, key),
    operation: (key) => boundedId(`operation:${specId}:`, key),
    schema: (name) => boundedId(`schema:${specId}:`, name),
    tag: (name) => boundedId(`tag:${specId}:`, name),
    entityPrefixes: [`operation:${specId}:`, `schema:${specId}:`, `tag:${specId}:`],
  };
}
