/** A timestamp as a driver returns it: PGlite and pg give Date, JSON paths give ISO strings. */
export const toDate = (v: Date | string): Date => (v instanceof Date ? v : new Date(v));

/** `toDate` for nullable columns. */
export const toDateOrNull = (v: Date | string | null): Date | null => (v === null ? null : toDate(v));

/**
 * JSON text for a jsonb parameter (e.g. rows for `jsonb_to_recordset`). An unpaired UTF-16 surrogate (text cut inside
 * a pair) is written as U+FFFD, as a text parameter stores it: JSON can only escape it, and jsonb refuses the escape.
 */
export function jsonParam(value: unknown): string {
  // JSON.stringify writes paired surrogates as they are and an unpaired one as `\udXXX`; an even run of backslashes
  // before it is escaped backslashes, not an escape.
  return JSON.stringify(value).replace(/(\\+)u(d[89a-f][0-9a-f]{2})/g, (match: string, slashes: string) =>
    slashes.length % 2 === 1 ? `${slashes.slice(1)}\\ufffd` : match,
  );
}
