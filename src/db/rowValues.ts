/** A timestamp as a driver returns it: PGlite and pg give Date, JSON paths give ISO strings. */
export const toDate = (v: Date | string): Date => (v instanceof Date ? v : new Date(v));

/** `toDate` for nullable columns. */
export const toDateOrNull = (v: Date | string | null): Date | null => (v === null ? null : toDate(v));
