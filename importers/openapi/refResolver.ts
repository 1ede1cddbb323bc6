import type { FileInfo, ParserOptions } from '@apidevtools/json-schema-ref-parser';
import { AppError, ErrorCode } from '../../src/errors.js';
import type { SafeFetcher } from '../http/SafeFetcher.js';
import { parseSpecText } from './parseSpec.js';

const INLINE_SCHEME = 'cairninline:';

/** Base "URL" for uploaded content: relative `$ref`s resolve under it and are then refused (no file access). */
export const INLINE_BASE = `${INLINE_SCHEME}//spec/openapi`;

/** Limits and state shared by every external `$ref` read during one load. */
export interface RefReadState {
  fetcher: SafeFetcher;
  /** Bytes still allowed in total (the root document is already subtracted). */
  remainingBytes: number;
  /** Total byte budget, for messages. */
  maxBytes: number;
  maxAliases: number;
  /** Maximum number of external documents. */
  maxDocuments: number;
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

function describeRef(file: FileInfo): string {
  return file.reference ? `"${file.reference}"` : `"${file.url}"`;
}

/** Reads one external `$ref` target: http(s) through the safe fetcher only, everything else refused. */
async function readRef(state: RefReadState, file: FileInfo): Promise<Buffer> {
  const target = file.url;
  if (target.startsWith(INLINE_SCHEME)) {
    fail(state, new AppError(ErrorCode.IMPORT_FETCH_BLOCKED, `$ref ${describeRef(file)} is relative, but the spec was uploaded without a URL to resolve it against; local files are never read`, { ref: file.reference ?? target }));
  }
  let protocol: string;
  try {
    protocol = new URL(target).protocol;
  } catch {
    fail(state, new AppError(ErrorCode.IMPORT_FETCH_BLOCKED, `$ref ${describeRef(file)} is not an http(s) URL; local files are never read`, { ref: target }));
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    fail(state, new AppError(ErrorCode.IMPORT_FETCH_BLOCKED, `$ref ${describeRef(file)} uses ${protocol} — only http(s) references are resolved; local files are never read`, { ref: target }));
  }
  if (state.fetched.length >= state.maxDocuments) {
    fail(state, new AppError(ErrorCode.IMPORT_TOO_LARGE, `The spec references more than ${state.maxDocuments} external documents`, { ref: target }));
  }
  if (state.remainingBytes <= 0) {
    fail(state, new AppError(ErrorCode.IMPORT_TOO_LARGE, `The spec and its external $refs exceed ${state.maxBytes} bytes`, { ref: target, maxBytes: state.maxBytes }));
  }
  try {
    const res = await state.fetcher.fetch(target, { accept: 'application/json, application/yaml, text/yaml, */*;q=0.5', maxBytes: state.remainingBytes });
    state.remainingBytes -= res.body.length;
    state.bytes += res.body.length;
    state.fetched.push(target);
    return res.body;
  } catch (err) {
    if (err instanceof AppError) fail(state, err);
    fail(state, new AppError(ErrorCode.IMPORT_FETCH_FAILED, `Could not fetch $ref ${describeRef(file)}: ${err instanceof Error ? err.message : String(err)}`, { ref: target }));
  }
}

/** Parses a fetched `$ref` target with the same YAML limits as the root document. */
function parseRef(state: RefReadState, file: FileInfo): unknown {
  const data: unknown = file.data;
  const text = Buffer.isBuffer(data) ? data.toString('utf8') : String(data ?? '');
  try {
    return parseSpecText(text, { maxAliases: state.maxAliases, label: file.url });
  } catch (err) {
    if (err instanceof AppError) fail(state, err);
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
