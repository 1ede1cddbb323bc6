import { badInput } from './errors.js';

/**
 * The path (below `field`) of the first string in `value` that Postgres cannot store as given: one holding a NUL
 * character or an unpaired surrogate, as a value or as an object key. Undefined when every string is storable.
 */
export function unstorableTextPath(value: unknown, field: string): string | undefined {
  if (typeof value === 'string') return isStorable(value) ? undefined : field;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = unstorableTextPath(item, `${field}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (!isStorable(key)) return `${field} (a key)`;
      const found = unstorableTextPath(item, `${field}.${key}`);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * Rejects input holding text Postgres cannot store, naming the field, before anything is written. Without it the
 * database refuses the write midway (NUL), or stores a replacement character where the client sent a lone surrogate.
 */
export function assertStorableText(value: unknown, field: string): void {
  const path = unstorableTextPath(value, field);
  if (path !== undefined) throw badInput(path, 'contains a NUL character (\\u0000) or an unpaired surrogate, which cannot be stored; remove it or send valid UTF-16');
}

/**
 * Repairs text from third-party sources (imported pages, files, specs) so it can be stored: drops NUL characters and
 * replaces unpaired surrogates with U+FFFD, in strings at any depth. Client input is rejected instead (above).
 */
export function toStorableText<T>(value: T): T {
  if (typeof value === 'string') return (UNSTORABLE.test(value) ? value.replace(/\u0000/g, '').replace(/\p{Cs}/gu, '\uFFFD') : value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => toStorableText(item)) as T;
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [toStorableText(k), toStorableText(v)])) as T;
  }
  return value;
}

// With the u flag a surrogate pair is one code point, so \p{Cs} matches only unpaired halves.
const UNSTORABLE = /[\u0000\p{Cs}]/u;

function isStorable(s: string): boolean {
  return !UNSTORABLE.test(s);
}
