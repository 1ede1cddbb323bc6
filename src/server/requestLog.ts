import { redactCredentials } from '../errors.js';

/** What a logged secret is replaced with (the same marker the request log has always used for Authorization). */
export const REDACTED = '[redacted]';

// Headers that carry credentials, whether Cairn reads them (authorization) or a client sent a key the wrong way.
const SECRET_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'x-auth-token',
  'x-access-token',
  'cookie',
];

// Query parameters clients put keys in; Cairn never reads them, but a key there must still stay out of the log.
const SECRET_PARAMS: readonly string[] = [
  'api_key',
  'apikey',
  'api-key',
  'access_token',
  'token',
  'key',
  'auth_token',
  'password',
  'secret',
];

/** True when a (raw, possibly percent-encoded) query parameter name is one that carries secrets, in any case. */
function isSecretParam(rawName: string): boolean {
  let name = rawName.replace(/\+/g, ' ');
  try {
    name = decodeURIComponent(name);
  } catch {
    // A malformed escape stays as sent; the plain comparison below still applies.
  }
  // `api_key[]=…` reaches a handler as api_key[] with some parsers; it is still the same secret.
  return SECRET_PARAMS.includes(
    name
      .trim()
      .toLowerCase()
      .replace(/\[[^\]]*\]$/, ''),
  );
}

/**
 * A (raw) query parameter value with URL credentials hidden: GET /graphql carries its variables in the query string,
 * percent-encoded, so a password typed into a URL variable would otherwise be logged with the request.
 */
function redactValue(raw: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return redactCredentials(raw);
  }
  const redacted = redactCredentials(decoded);
  return redacted === decoded ? redactCredentials(raw) : encodeURIComponent(redacted);
}

/**
 * `text` (a query string) with the value of every `name=value` pair whose name carries secrets replaced, and URL
 * credentials hidden in the others.
 */
function redactPairs(text: string): string {
  // `;` separates too: some servers split on it, so `?a=1;api_key=…` may have been meant as two parameters.
  return text.replace(
    /([^&;=]*)=([^&;]*)/g,
    (_pair, name: string, value: string) => `${name}=${isSecretParam(name) ? REDACTED : redactValue(value)}`,
  );
}

/** `url` with the value of every query parameter that carries a secret replaced by [redacted], and URL credentials hidden. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : `${url.slice(0, q + 1)}${redactPairs(url.slice(q + 1))}`;
}

/** Express's parsed query, redacted alike (its parser leaves `1;token=…` inside the previous value). */
function redactQuery(query: Record<string, unknown>): Record<string, unknown> {
  const value = (v: unknown): unknown =>
    typeof v === 'string' ? redactCredentials(redactPairs(v)) : Array.isArray(v) ? v.map(value) : v;
  return Object.fromEntries(
    Object.entries(query).map(([name, v]) => [name, isSecretParam(name) ? REDACTED : value(v)]),
  );
}

/** The request as pino-http logs it, without credentials in headers, the URL or the parsed query. */
export function redactedRequest(req: { url?: unknown; query?: unknown; headers?: unknown }): unknown {
  const out: Record<string, unknown> = { ...req };
  if (typeof req.url === 'string') out.url = redactUrl(req.url);
  if (req.query && typeof req.query === 'object') out.query = redactQuery(req.query as Record<string, unknown>);
  if (req.headers && typeof req.headers === 'object') {
    const headers = Object.entries(req.headers as Record<string, unknown>);
    out.headers = Object.fromEntries(
      headers.map(([name, v]) => [name, SECRET_HEADERS.includes(name.toLowerCase()) ? REDACTED : v]),
    );
  }
  return out;
}
