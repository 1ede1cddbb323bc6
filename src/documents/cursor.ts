import { badInput } from '../errors.js';

/** Position of a row in a (created_at DESC, id DESC) ordering. */
export interface KeysetCursor {
  createdAt: string;
  id: string;
}

/** Encodes a keyset position as an opaque cursor. */
export function encodeCursor(cursor: KeysetCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id]), 'utf8').toString('base64url');
}

/** Decodes a cursor produced by `encodeCursor`; anything else is `BAD_USER_INPUT`. */
export function decodeCursor(value: string, field = 'after'): KeysetCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (
    Array.isArray(parsed) &&
    parsed.length === 2 &&
    typeof parsed[0] === 'string' &&
    typeof parsed[1] === 'string' &&
    !Number.isNaN(Date.parse(parsed[0]))
  ) {
    return { createdAt: parsed[0], id: parsed[1] };
  }
  throw badInput(field, 'not a cursor returned by this API; pass pageInfo.endCursor from the previous page');
}
