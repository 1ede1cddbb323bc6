/** Machine-readable error codes returned to clients as `extensions.code`. */
export const ErrorCode = {
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  EMBEDDING_UNAVAILABLE: 'EMBEDDING_UNAVAILABLE',
  EMBEDDER_MISMATCH: 'EMBEDDER_MISMATCH',
  DATABASE_UNAVAILABLE: 'DATABASE_UNAVAILABLE',
  GRAPH_UNAVAILABLE: 'GRAPH_UNAVAILABLE',
  /** The LLM extraction endpoint cannot be reached or refuses the request (the message names the setting to fix). */
  EXTRACTION_UNAVAILABLE: 'EXTRACTION_UNAVAILABLE',
  CONFIG_INVALID: 'CONFIG_INVALID',
  IMPORT_FETCH_BLOCKED: 'IMPORT_FETCH_BLOCKED',
  IMPORT_FETCH_FAILED: 'IMPORT_FETCH_FAILED',
  IMPORT_TOO_LARGE: 'IMPORT_TOO_LARGE',
  UNSUPPORTED_CONTENT_TYPE: 'UNSUPPORTED_CONTENT_TYPE',
  INVALID_OPENAPI: 'INVALID_OPENAPI',
  INVALID_FILE: 'INVALID_FILE',
  /** No API key, or an unknown or revoked one, while authentication is on. */
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  /** The key's role is below what the operation needs. */
  FORBIDDEN: 'FORBIDDEN',
  /** The key (or client address) spent its request budget; retry after `retryAfterSeconds`. */
  RATE_LIMITED: 'RATE_LIMITED',
  /** A write would take its space past a quota (CAIRN_SPACE_MAX_DOCUMENTS, CAIRN_SPACE_MAX_CHUNKS). */
  QUOTA_EXCEEDED: 'QUOTA_EXCEEDED',
  /** The operation exceeds a static limit (depth, cost, aliases, directives, tokens). */
  QUERY_TOO_COMPLEX: 'QUERY_TOO_COMPLEX',
  /** The HTTP request body exceeds CAIRN_MAX_BODY_BYTES. */
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  /** Work passed its time limit (e.g. both enrichContext lanes); retrying later may succeed. */
  TIMEOUT: 'TIMEOUT',
  /** The HTTP request is malformed (bad JSON, a batch). */
  BAD_REQUEST: 'BAD_REQUEST',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
} as const;

/** One of the known error codes. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Details attached to an error and exposed to clients in `extensions`. */
export type ErrorDetails = Record<string, unknown>;

/** An error whose message is safe to show to clients, tagged with an `ErrorCode`. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }
}

/** Builds a `BAD_USER_INPUT` error that names the offending field. */
export function badInput(field: string, reason: string, details: ErrorDetails = {}): AppError {
  return new AppError(ErrorCode.BAD_USER_INPUT, `${field}: ${reason}`, { field, ...details });
}

/** Builds a `NOT_FOUND` error for a missing record. */
export function notFound(kind: string, id: string): AppError {
  const shown = redactAndTruncate(id);
  return new AppError(ErrorCode.NOT_FOUND, `${kind} "${shown}" does not exist`, { kind, id: shown });
}

/** Longest piece of client input an error message repeats. */
const MAX_REPEATED_INPUT = 200;

/**
 * Client input as an error may repeat it: URL credentials hidden, then cut to MAX_REPEATED_INPUT characters, so a huge value is
 * not sent back twice.
 */
export function redactAndTruncate(value: string): string {
  const shown = redactCredentials(value);
  return shown.length <= MAX_REPEATED_INPUT
    ? shown
    : `${shown.slice(0, MAX_REPEATED_INPUT)}… (${value.length} characters)`;
}

/** What replaces the user name and password of a URL in text shown or logged (as the importers show URLs). */
export const HIDDEN_CREDENTIALS = '***';

/** What replaces a private key (a PEM or OpenSSH block, such as a deploy key) in text shown or logged. */
export const HIDDEN_PRIVATE_KEY = '[private key redacted]';

// A private key block, up to its END line or, cut short, to the end of the text: one pass, as each match ends at
// the first END line (or consumes the rest).
const PRIVATE_KEY = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----|$)/g;

// Where a URL's authority ends: userinfo is everything after "://" up to the last "@" before one of these.
const AUTHORITY_END = /[/?#\s]/;

/**
 * `text` with private key blocks hidden and the userinfo of every URL replaced (`https://user:secret@host/` →
 * `https://***@host/`), so a
 * password typed into a URL never reaches an error message or a log line. One linear pass with no backtracking (a
 * regular expression over 200,000 characters of `a://a://…` would take seconds); it may also hide a little text
 * that only looked like userinfo (`"http://host","a@b"`), which is the safe side.
 */
export function redactCredentials(raw: string): string {
  const text = raw.includes('PRIVATE KEY-----') ? raw.replace(PRIVATE_KEY, HIDDEN_PRIVATE_KEY) : raw;
  let out = '';
  let copied = 0;
  for (let i = text.indexOf('://'); i !== -1;) {
    const start = i + 3;
    let end = start;
    let at = -1;
    for (; end < text.length && !AUTHORITY_END.test(text[end]!); end++) if (text[end] === '@') at = end;
    if (at !== -1) {
      out += `${text.slice(copied, start)}${HIDDEN_CREDENTIALS}`;
      copied = at;
    }
    i = text.indexOf('://', Math.max(end, start));
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** An unexpected error as it is logged: its message and stack may quote client input, so credentials are hidden. */
export function loggableError(err: unknown): unknown {
  if (!(err instanceof Error)) return typeof err === 'string' ? redactCredentials(err) : err;
  const code = (err as { code?: unknown }).code;
  return {
    type: err.name,
    message: redactCredentials(err.message),
    stack: err.stack === undefined ? undefined : redactCredentials(err.stack),
    ...(code === undefined ? {} : { code }),
  };
}

/** True when the value is an `AppError`. */
export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
