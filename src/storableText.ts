import { badInput } from './errors.js';

/**
 * The path (below `field`) of the first string in `value` that Postgres cannot store as given: one holding a NUL
 * character or an unpaired surrogate, as a value or as an object key. Undefined when every string is storable.
 */
export function unstorableTextPath(value: unknown, field: string): string | undefined {
  return unstorable(value, field, 0)?.path;
}

/** Deepest nesting of objects and arrays that Cairn stores in JSON fields (metadata, properties). */
export const MAX_JSON_DEPTH = 64;

function unstorable(value: unknown, field: string, depth: number): { path: string; tooDeep: boolean } | undefined {
  if (typeof value === 'string') return isStorable(value) ? undefined : { path: field, tooDeep: false };
  if (value === null || typeof value !== 'object') return undefined;
  // Checked before descending, so that no input can exhaust the stack (thousands of levels did, as an internal error).
  if (depth >= MAX_JSON_DEPTH) return { path: field, tooDeep: true };
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = unstorable(item, `${field}[${i}]`, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    if (!isStorable(key)) return { path: `${field} (a key)`, tooDeep: false };
    const found = unstorable(item, `${field}.${key}`, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Rejects input holding text Postgres cannot store, or JSON nested deeper than MAX_JSON_DEPTH, naming the field,
 * before anything is written. Without it the database refuses the write midway (NUL), or stores a replacement
 * character where the client sent a lone surrogate.
 */
export function assertStorableText(value: unknown, field: string): void {
  const found = unstorable(value, field, 0);
  if (found?.tooDeep)
    throw badInput(
      found.path,
      `is nested more than ${MAX_JSON_DEPTH} levels deep; at most ${MAX_JSON_DEPTH} are accepted`,
    );
  if (found !== undefined)
    throw badInput(
      found.path,
      'contains a NUL character (\\u0000) or an unpaired surrogate, which cannot be stored; remove it or send valid UTF-16',
    );
}

/**
 * Repairs text from third-party sources (imported pages, files, specs) so it can be stored: drops NUL characters and
 * replaces unpaired surrogates with U+FFFD, in strings at any depth. Client input is rejected instead (above).
 */
export function toStorableText<T>(value: T): T {
  if (typeof value === 'string')
    return (UNSTORABLE.test(value) ? value.replaceAll('\u0000', '').replace(/\p{Cs}/gu, '\uFFFD') : value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => toStorableText(item)) as T;
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [toStorableText(k), toStorableText(v)])) as T;
  }
  return value;
}

// With the u flag a surrogate pair is one code point, so \p{Cs} matches only unpaired halves.
// eslint-disable-next-line no-control-regex -- NUL is one of the characters Postgres cannot store
const UNSTORABLE = /[\u0000\p{Cs}]/u;

function isStorable(s: string): boolean {
  return !UNSTORABLE.test(s);
}
