import type { FileInfo, ParserOptions } from '@apidevtools/json-schema-ref-parser';
import type { LimitFunction } from 'p-limit';
import { AppError, ErrorCode } from '../../src/errors.js';
import type { SafeFetcher } from '../http/SafeFetcher.js';
import { localName, readLocalRef, type LocalRefRoot } from './localRefs.js';
import { parseSpecText } from './parseSpec.js';
import { pruneUnresolvedRefs } from './skippedRefs.js';

const INLINE_SCHEME = 'cairninline:';

/** Base "URL" for content given inline: relative `$ref`s resolve under it and are then refused (no file access). */
export const INLINE_BASE = `${INLINE_SCHEME}//spec/openapi`;

// What stands in for a document that could not be read while unresolved refs are being skipped.
// (not `{}`, which the parser refuses as empty).
const PLACEHOLDER = Buffer.from('{"x-cairn-unresolved": true}');

/** Limits and state shared by every external `$ref` read during one load. */
export interface RefReadState {
  fetcher: SafeFetcher;
  /** Bytes still allowed in total (the root document is already subtracted). */
  remainingBytes: number;
  /** Cap on one document. */
  maxBytes: number;
  /** Cap on all documents together, for messages. */
  maxTotalBytes: number;
  maxAliases: number;
  /** Runs reads a few at a time. */
  limit: LimitFunction;
  /** The folder a spec read from disk may take `$ref` files from; undefined: no file is ever read. */
  local: LocalRefRoot | undefined;
  /** Skip `$ref`s whose document cannot be read (with a warning each) instead of failing. */
  skipUnresolved: boolean;
  /** A Swagger 2 spec: the placeholders of skipped parameters and headers take its shape. */
  swagger2: boolean;
  /** Documents that could not be read while skipping: URL → why. */
  unresolved: Map<string, string>;
  /** Documents read so far, so a second pass reads nothing twice. */
  cache: Map<string, Buffer>;
  /** One warning per skipped `$ref`. */
  skippedWarnings: Set<string>;
  fetched: string[];
  bytes: number;
  /**
   * The first AppError raised while reading a `$ref`. json-schema-ref-parser wraps resolver errors
   * in its own types, so the loader rethrows this one to keep the code (IMPORT_FETCH_BLOCKED, …).
   */
  error?: AppError;
}

function fail(state: RefReadState, err: AppError): never {
  state.error ??= err;
  throw err;
}

/** Where a document or pointer is, as messages show it: a path under the spec's folder, a URL, or "the spec". */
function documentLabel(state: RefReadState, url: string): string {
  const bare = url.replace(/#.*$/, '');
  const hash = url.slice(bare.length);
  if (bare.startsWith(INLINE_SCHEME)) return hash || 'the spec';
  if (bare.startsWith('file:') && state.local) return `${localName(state.local, bare)}${hash}`;
  return url;
}

/** `$ref "x.yaml" at api.yaml#/paths/~1users/get`: the reference and the JSON pointer of where it is written. */
function describeRef(state: RefReadState, file: FileInfo): string {
  const ref = `$ref "${file.reference ?? file.url}"`;
  return file.baseUrl ? `${ref} at ${documentLabel(state, file.baseUrl)}` : ref;
}

function tooLarge(state: RefReadState, target: string): AppError {
  return new AppError(
    ErrorCode.IMPORT_TOO_LARGE,
    `The spec and its external $refs exceed ${state.maxTotalBytes} bytes in total (CAIRN_IMPORT_SPEC_MAX_BYTES)`,
    { ref: target, maxBytes: state.maxTotalBytes },
  );
}

function withHint(err: AppError): AppError {
  if (err.code === ErrorCode.IMPORT_TOO_LARGE) return err;
  return new AppError(
    err.code,
    `${err.message} (import with skipUnresolvedRefs, or --skip-unresolved-refs, to import the rest without it)`,
    err.details,
    { cause: err },
  );
}

/** Reads one `$ref` target: http(s) through the safe fetcher, files under the spec's folder, everything else refused. */
async function readTarget(state: RefReadState, file: FileInfo, target: string): Promise<Buffer> {
  const what = describeRef(state, file);
  if (target.startsWith(INLINE_SCHEME)) {
    throw new AppError(
      ErrorCode.IMPORT_FETCH_BLOCKED,
      `${what} is relative, but the spec was given as content, with no URL or folder to resolve it against, and local files are never read for such a spec: import it by URL, or with \`cairn import openapi <file>\` beside its files`,
      { ref: file.reference ?? target },
    );
  }
  let protocol: string;
  try {
    protocol = new URL(target).protocol;
  } catch {
    throw new AppError(ErrorCode.IMPORT_FETCH_BLOCKED, `${what} is not a URL that can be read`, { ref: target });
  }
  if (protocol === 'file:' && state.local) {
    const body = await readLocalRef(
      state.local,
      target,
      what,
      Math.min(state.maxBytes, Math.max(state.remainingBytes, 0)),
    );
    return body;
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new AppError(
      ErrorCode.IMPORT_FETCH_BLOCKED,
      `${what} uses ${protocol} — only http(s) references${state.local ? " and files in the spec's folder are resolved" : ' are resolved; local files are never read'}`,
      { ref: target },
    );
  }
  try {
    const res = await state.fetcher.fetch(target, {
      accept: 'application/json, application/yaml, text/yaml, */*;q=0.5',
      maxBytes: Math.min(state.maxBytes, state.remainingBytes),
    });
    return res.body;
  } catch (err) {
    if (err instanceof AppError) throw new AppError(err.code, `${what}: ${err.message}`, err.details, { cause: err });
    throw new AppError(
      ErrorCode.IMPORT_FETCH_FAILED,
      `Could not fetch ${what}: ${err instanceof Error ? err.message : String(err)}`,
      { ref: target },
    );
  }
}

/** Reads a `$ref` target once per load, a few at a time, within the total byte budget. */
async function readRef(state: RefReadState, file: FileInfo): Promise<Buffer> {
  const target = file.url.replace(/#.*$/, '');
  const cached = state.cache.get(target);
  if (cached) return cached;
  if (state.unresolved.has(target)) return PLACEHOLDER;
  return state.limit(async () => {
    if (state.error) throw state.error;
    if (state.remainingBytes <= 0) fail(state, tooLarge(state, target));
    try {
      const body = await readTarget(state, file, target);
      state.remainingBytes -= body.length;
      state.bytes += body.length;
      state.fetched.push(target);
      state.cache.set(target, body);
      return body;
    } catch (err) {
      let error =
        err instanceof AppError
          ? err
          : new AppError(ErrorCode.IMPORT_FETCH_FAILED, `Could not read ${describeRef(state, file)}: ${String(err)}`, {
              ref: target,
            });
      // Cut short by what is left of the total, not by the per-file cap: the total is the limit to raise.
      if (error.code === ErrorCode.IMPORT_TOO_LARGE && state.remainingBytes < state.maxBytes)
        error = tooLarge(state, target);
      if (state.skipUnresolved && error.code !== ErrorCode.IMPORT_TOO_LARGE) {
        state.unresolved.set(target, error.message);
        return PLACEHOLDER;
      }
      fail(state, withHint(error));
    }
  });
}

/** Drops the `$ref`s of one document whose targets could not be read, with a warning each. */
export function pruneSkippedRefs(state: RefReadState, doc: unknown, documentUrl: string): void {
  if (state.unresolved.size === 0) return;
  pruneUnresolvedRefs(
    doc,
    documentUrl,
    state.unresolved,
    (ref, pointer, reason) => {
      state.skippedWarnings.add(
        `Skipped $ref "${ref}" at ${documentLabel(state, documentUrl)}${pointer}: ${reason.replace(/^\$ref "[^"]*"( at \S+)?:? ?/, '')}`,
      );
    },
    state.swagger2,
  );
}

/** Parses a `$ref` target with the same YAML limits as the root document. */
function parseRef(state: RefReadState, file: FileInfo): unknown {
  const data: unknown = file.data;
  const target = file.url.replace(/#.*$/, '');
  const text = Buffer.isBuffer(data) ? data.toString('utf8') : String(data ?? '');
  try {
    const doc = parseSpecText(text, { maxAliases: state.maxAliases, label: documentLabel(state, target) });
    pruneSkippedRefs(state, doc, target);
    return doc;
  } catch (err) {
    if (err instanceof AppError && state.skipUnresolved) {
      state.unresolved.set(target, err.message);
      return { 'x-cairn-unresolved': true };
    }
    if (err instanceof AppError) fail(state, withHint(err));
    throw err;
  }
}

/**
 * json-schema-ref-parser options that route every external `$ref` through `readRef`: the built-in
 * `file` and `http` resolvers and the built-in parsers are switched off.
 */
export function refParserOptions(state: RefReadState): ParserOptions {
  return {
    resolve: {
      external: true,
      file: false,
      http: false,
      cairn: { order: 1, canRead: true, read: (file: FileInfo) => readRef(state, file) },
    },
    parse: {
      json: false,
      yaml: false,
      text: false,
      binary: false,
      cairn: { order: 1, canParse: true, allowEmpty: false, parse: (file: FileInfo) => parseRef(state, file) },
    },
    continueOnError: false,
  };
}
