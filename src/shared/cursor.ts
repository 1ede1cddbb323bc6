import { badInput } from '../errors.js';

/** Position of a row in a (created_at DESC, id DESC) ordering. */
export interface KeysetCursor {
  createdAt: string;
  id: string;
}

/** Encodes a keyset position (a pair of strings) as an opaque cursor. */
export function encodePair(first: string, second: string): string {
  return Buffer.from(JSON.stringify([first, second]), 'utf8').toString('base64url');
}

/** Decodes a cursor made by `encodePair`; anything else is `BAD_USER_INPUT`. */
export function decodePair(value: string, field = 'after'): [string, string] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === 'string' && typeof parsed[1] === 'string') {
    return [parsed[0], parsed[1]];
  }
  throw badInput(field, 'not a cursor returned by this API; pass pageInfo.endCursor from the previous page');
}

/** Encodes a document keyset position as an opaque cursor. */
export function encodeCursor(cursor: KeysetCursor): string {
  return encodePair(cursor.createdAt, cursor.id);
}

/** Decodes a document cursor; anything else is `BAD_USER_INPUT`. */
export function decodeCursor(value: string, field = 'after'): KeysetCursor {
  const [createdAt, id] = decodePair(value, field);
  if (Number.isNaN(Date.parse(createdAt)))
    throw badInput(field, 'not a cursor returned by this API; pass pageInfo.endCursor from the previous page');
  return { createdAt, id };
}
