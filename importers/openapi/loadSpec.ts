import { $RefParser } from '@apidevtools/json-schema-ref-parser';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pLimit from 'p-limit';
import { AppError, badInput, ErrorCode } from '../../src/errors.js';
import type { SafeFetcher } from '../http/SafeFetcher.js';
import { toInvalidOpenApi } from './loadErrors.js';
import { DEFAULT_MAX_ALIASES, detectSpecVersion, parseSpecText, requireOpenApi } from './parseSpec.js';
import { localRefRoot } from './localRefs.js';
import { INLINE_BASE, pruneSkippedRefs, refParserOptions, type RefReadState } from './refResolver.js';
import { asJson, asString, type Json, type LoadedSpec } from './types.js';
import { assertSpecShape, validateOpenApiDocument } from './validateSpec.js';

export { looksLikeOpenApi, parseSpecText } from './parseSpec.js';
export type { LoadedSpec, SpecVersion } from './types.js';

/**
 * Where a spec comes from: its text (optionally with the URL it lives at, for relative `$ref`s), or a URL to fetch.
 * `file`: the local file the text was read from; relative `$ref`s may then read files in its folder and under it.
 */
export interface SpecSource {
  content?: string | Buffer;
  url?: string;
  file?: string;
}

/** What loading needs: the only HTTP client allowed, and limits. */
export interface LoadSpecDeps {
  fetcher: SafeFetcher;
  /** Cap on each document (the spec, each external `$ref` file), in bytes. */
  maxBytes: number;
  /** Cap on the spec plus all external `$ref` documents together, in bytes (default `maxBytes`). */
  maxTotalBytes?: number;
  /** Cap on YAML alias expansions per document (default 100). */
  maxAliases?: number;
  /** Import the rest when a `$ref`'s document cannot be read, with a warning per skipped `$ref` (default false). */
  skipUnresolvedRefs?: boolean;
}

// json-schema-ref-parser asks for every $ref of a document at once: thousands of files would open thousands of connections.
const REF_READ_CONCURRENCY = 16;

const ACCEPT = 'application/json, application/yaml, application/x-yaml, text/yaml, */*;q=0.5';

async function readSource(
  source: SpecSource,
  deps: LoadSpecDeps,
): Promise<{ text: string; base: string; sourceUrl: string | null; bytes: number }> {
  if (source.content !== undefined && source.content !== null) {
    const bytes =
      typeof source.content === 'string' ? Buffer.byteLength(source.content, 'utf8') : source.content.length;
    if (bytes > deps.maxBytes) {
      throw new AppError(ErrorCode.IMPORT_TOO_LARGE, `The spec is ${bytes} bytes; the limit is ${deps.maxBytes}`, {
        bytes,
        maxBytes: deps.maxBytes,
      });
    }
    const text = typeof source.content === 'string' ? source.content : source.content.toString('utf8');
    const url = source.url?.trim() || null;
    const base = url ?? (source.file ? pathToFileURL(path.resolve(source.file)).href : INLINE_BASE);
    return { text, base, sourceUrl: url, bytes };
  }
  const url = source.url?.trim();
  if (!url) throw badInput('source', 'give the spec content or a URL to fetch it from');
  const res = await deps.fetcher.fetch(url, { accept: ACCEPT, maxBytes: deps.maxBytes });
  const charset = res.charset?.toLowerCase();
  const encoding: BufferEncoding =
    charset === 'utf-16le' || charset === 'utf-16'
      ? 'utf16le'
      : charset === 'iso-8859-1' || charset === 'latin1'
        ? 'latin1'
        : 'utf8';
  return { text: res.body.toString(encoding), base: res.finalUrl, sourceUrl: res.finalUrl, bytes: res.body.length };
}

/** YAML reads `version: 1.0` as a number, which swagger-parser rejects; a string is what the author meant. */
function coerceInfoVersion(doc: Json, warnings: string[]): void {
  const info = asJson(doc.info);
  if (info && typeof info.version === 'number') {
    warnings.push(
      `info.version is the number ${info.version}; it was read as the string "${String(info.version)}" (quote it in YAML)`,
    );
    info.version = String(info.version);
  }
}

/**
 * Loads, validates and bundles an OpenAPI 3.0/3.1 or Swagger 2.0 description. External `$ref`s are
 * read over http(s) through `deps.fetcher`, and from disk only under the folder of `source.file`. Errors: INVALID_OPENAPI
 * (with the validator's message and location), IMPORT_FETCH_BLOCKED, IMPORT_FETCH_FAILED, IMPORT_TOO_LARGE.
 */
export async function loadOpenApiSpec(source: SpecSource, deps: LoadSpecDeps): Promise<LoadedSpec> {
  const { text, base, sourceUrl, bytes } = await readSource(source, deps);
  const maxAliases = deps.maxAliases ?? DEFAULT_MAX_ALIASES;
  const raw = requireOpenApi(
    parseSpecText(text, { maxAliases, ...(sourceUrl ? { label: sourceUrl } : {}) }),
    sourceUrl ?? undefined,
  );
  const { specVersion, declaredVersion } = detectSpecVersion(raw);
  const warnings: string[] = [];
  coerceInfoVersion(raw, warnings);
  assertSpecShape(raw);

  const maxTotalBytes = Math.max(deps.maxTotalBytes ?? deps.maxBytes, bytes);
  const state: RefReadState = {
    fetcher: deps.fetcher,
    remainingBytes: maxTotalBytes - bytes,
    maxBytes: deps.maxBytes,
    maxTotalBytes,
    maxAliases,
    limit: pLimit(REF_READ_CONCURRENCY),
    local: source.file && !sourceUrl ? await localRefRoot(source.file) : undefined,
    skipUnresolved: deps.skipUnresolvedRefs ?? false,
    swagger2: specVersion === '2.0',
    unresolved: new Map(),
    cache: new Map(),
    skippedWarnings: new Set(),
    fetched: [],
    bytes,
  };
  let bundled: Json;
  try {
    if (state.skipUnresolved) {
      // A first pass finds the documents that cannot be read; their $refs are then removed before bundling.
      await new $RefParser().resolve(base, structuredClone(raw), refParserOptions(state));
      pruneSkippedRefs(state, raw, base);
    }
    // Bundling fetches external documents once and inlines them, keeping internal $refs.
    bundled = (await new $RefParser().bundle(base, raw, refParserOptions(state))) as Json;
  } catch (err) {
    throw state.error ?? toInvalidOpenApi(err);
  }
  warnings.push(...state.skippedWarnings);
  // Again, for what external documents brought in.
  if (state.fetched.length > 0) assertSpecShape(bundled);
  try {
    // Validation needs a dereferenced copy; `bundled` keeps its $refs. Cycles stay as $ref ("ignore").
    const dereferenced = await new $RefParser().dereference(base, structuredClone(bundled), {
      ...refParserOptions(state),
      dereference: { circular: 'ignore' },
    });
    validateOpenApiDocument(dereferenced as Json);
  } catch (err) {
    throw state.error ?? toInvalidOpenApi(err);
  }
  const info = asJson(bundled.info) ?? {};
  return {
    specVersion,
    declaredVersion,
    document: bundled,
    title: asString(info.title) ?? 'Untitled API',
    apiVersion: asString(info.version) ?? '',
    sourceUrl,
    fetchedRefs: state.fetched,
    bytes: state.bytes,
    warnings,
  };
}
