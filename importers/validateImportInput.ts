import {
  validateDocumentDefaults,
  validateDocumentId,
  validateTags,
  type RawDocumentInput,
} from '../src/importerPort.js';
import { AppError, ErrorCode, badInput } from '../src/errors.js';
import type { ImportRequest } from './jobs/types.js';
import { redactUrl } from './http/redactUrl.js';
import { validateSpecId } from './openapi/ids.js';
import { documentIdForFile } from './pipeline/planSources.js';
import type { UploadRecord } from './uploads/UploadRepository.js';

const MAX_URL = 2048;
const MAX_URLS = 1000;

/** `importUrl` input as clients send it. */
export type RawUrlImport = Omit<RawDocumentInput, 'id' | 'content' | 'expiresAt' | 'entityIds'> & {
  url?: string | null;
  urls?: readonly string[] | null;
};

/** `importOpenApi` input as clients send it. */
export interface RawOpenApiImport {
  url?: string | null;
  content?: string | null;
  title?: string | null;
  tags?: readonly string[] | null;
  source?: string | null;
  specId?: string | null;
  skipUnresolvedRefs?: boolean | null;
}

/** `importUpload` input as clients send it. */
export type RawUploadImport = Omit<RawDocumentInput, 'content' | 'expiresAt' | 'entityIds'> & {
  uploadId?: string | null;
  specId?: string | null;
};

/** A given spec id, validated (surrounding blanks dropped), or undefined when none was given. */
export function validateOptionalSpecId(value: string | null | undefined, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value.trim() === '')
    throw badInput(
      field,
      'must not be empty: leave it out to derive the id, or give 1-100 letters, digits, "_", "." or "-"',
    );
  return validateSpecId(value.trim(), field);
}

/**
 * Checks that a string is an absolute URL; the safe client decides later whether it may be fetched. A user name and
 * password become `***`: the URL is stored with the job and shown in errors, and the fetch refuses credentials anyway.
 */
export function validateImportUrl(value: string | null | undefined, field: string): string {
  const url = (value ?? '').trim();
  if (url === '') throw badInput(field, 'must be an absolute URL such as https://example.com/docs');
  if (url.length > MAX_URL) throw badInput(field, `must be at most ${MAX_URL} characters`);
  try {
    return redactUrl(new URL(url));
  } catch {
    throw badInput(field, `"${redactUrl(url).slice(0, 100)}" is not an absolute URL (e.g. https://example.com/docs)`);
  }
}

/** Validates a URL import (one `url` or several `urls`). */
export function validateUrlImport(raw: RawUrlImport, prefix = 'input'): ImportRequest {
  const given = raw.urls && raw.urls.length > 0 ? raw.urls : [raw.url ?? ''];
  if (given.length > MAX_URLS) throw badInput(`${prefix}.urls`, `at most ${MAX_URLS} URLs per import`);
  const urls = given.map((u, i) => validateImportUrl(u, raw.urls?.length ? `${prefix}.urls[${i}]` : `${prefix}.url`));
  return { kind: 'url', urls: [...new Set(urls)], defaults: validateDocumentDefaults(raw, prefix) };
}

/** Validates an OpenAPI import: exactly one of `url` and `content`. */
export function validateOpenApiImport(raw: RawOpenApiImport, maxBytes: number, prefix = 'input'): ImportRequest {
  const hasUrl = raw.url !== undefined && raw.url !== null && raw.url.trim() !== '';
  const hasContent = raw.content !== undefined && raw.content !== null && raw.content.trim() !== '';
  if (hasUrl === hasContent)
    throw badInput(prefix, 'give either url (to fetch the spec) or content (the spec itself), not both or neither');
  const defaults = validateDocumentDefaults(
    { title: raw.title ?? null, tags: raw.tags ?? [], source: raw.source ?? null },
    prefix,
  );
  const request: ImportRequest = { kind: 'openapi', tags: validateTags(defaults.tags, `${prefix}.tags`) };
  if (hasUrl) request.url = validateImportUrl(raw.url, `${prefix}.url`);
  if (hasContent) {
    const size = Buffer.byteLength(raw.content as string, 'utf8');
    if (size > maxBytes) {
      throw new AppError(
        ErrorCode.IMPORT_TOO_LARGE,
        `${prefix}.content is ${size} bytes; the limit is ${maxBytes} (CAIRN_IMPORT_MAX_BYTES)`,
        { size, limit: maxBytes },
      );
    }
    request.content = raw.content as string;
  }
  if (defaults.title !== undefined) request.title = defaults.title;
  if (defaults.source !== undefined) request.source = defaults.source;
  const specId = validateOptionalSpecId(raw.specId, `${prefix}.specId`);
  if (specId !== undefined) request.specId = specId;
  if (raw.skipUnresolvedRefs) request.skipUnresolvedRefs = true;
  return request;
}

/** Validates an upload import against the stored upload (which must exist and not have expired). */
export function validateUploadImport(raw: RawUploadImport, upload: UploadRecord, prefix = 'input'): ImportRequest {
  const documentId = raw.id ? validateDocumentId(raw.id, `${prefix}.id`) : documentIdForFile(upload.fileName);
  const specId = validateOptionalSpecId(raw.specId, `${prefix}.specId`);
  const request: ImportRequest = {
    kind: 'upload',
    uploadId: upload.id,
    fileName: upload.fileName,
    documentId,
    defaults: validateDocumentDefaults(raw, prefix),
  };
  if (specId !== undefined) request.specId = specId;
  if (raw.id) request.idGiven = true;
  return request;
}
