import { badInput } from '../errors.js';

/** One slice of a text: `text.slice(charStart, charEnd) === content`, offsets in UTF-16 code units. */
export interface TextChunk {
  ordinal: number;
  content: string;
  charStart: number;
  charEnd: number;
}

/** Chunk size and overlap, both in UTF-16 code units. */
export interface ChunkOptions {
  size: number;
  overlap: number;
}

// Break classes, best first. A chunk ends at the latest break of the best class found in the
// second half of its window, so chunks are never shorter than half a window unless forced.
const PARAGRAPH = 3;
const SENTENCE = 2;
const WORD = 1;

// How far a whitespace run is scanned for a blank line. Bounds the work per window, so very long
// whitespace runs cannot make chunking quadratic.
const MAX_PARAGRAPH_SCAN = 256;

/**
 * Splits `text` into overlapping chunks of at most `size` code units, breaking at a paragraph, then a sentence,
 * then a word boundary, and hard-cutting only when the window has none of these.
 *
 * Guarantees: contents are exact slices; no chunk starts or ends inside a surrogate pair; chunks start on
 * non-whitespace and end after non-whitespace; starts and ends strictly increase; each start is at least
 * `previous end - overlap`; and anything between one chunk's end and the next one's start is whitespace
 * (normally the next start is at or before the previous end). The one exception to the size limit: with
 * `size` 1, an astral character (a surrogate pair) forms a chunk of 2 code units rather than being split.
 */
export function chunkText(text: string, options: ChunkOptions): TextChunk[] {
  const { size, overlap } = options;
  if (!Number.isInteger(size) || size < 1) throw badInput('size', 'must be an integer >= 1', { size });
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= size) {
    throw badInput('overlap', 'must be an integer >= 0 and < size', { size, overlap });
  }

  const n = text.length;
  let contentEnd = n; // just after the last non-whitespace unit
  while (contentEnd > 0 && isWs(text.charCodeAt(contentEnd - 1))) contentEnd--;
  const chunks: TextChunk[] = [];
  let start = skipWs(text, 0);
  // `fresh` is the first non-whitespace unit not yet in any chunk; every chunk must include it.
  let fresh = start;
  const half = Math.ceil(size / 2);

  while (start < contentEnd) {
    const limit = start + size;
    let end: number;
    if (limit >= contentEnd) {
      end = contentEnd;
    } else {
      end = findBreak(text, Math.max(fresh + 1, start + half), limit);
      if (end < 0) end = hardCut(text, fresh, limit);
    }
    chunks.push({ ordinal: chunks.length, content: text.slice(start, end), charStart: start, charEnd: end });
    if (end >= contentEnd) break;

    fresh = skipWs(text, end);
    // The next window must still fit the first fresh code point; after a long whitespace gap, overlap is dropped.
    const low = Math.max(start + 1, end - overlap, fresh + codePointLength(text, fresh) - size);
    start = fresh - end <= size / 2 && low <= end ? overlapStart(text, low, end) : fresh;
  }
  return chunks;
}

/**
 * Returns the end of the latest break of the best class at a position in [low, limit], or -1 if there is none.
 * Scans backwards so it can stop at the first (latest) paragraph break.
 */
function findBreak(text: string, low: number, limit: number): number {
  let sentence = -1;
  let word = -1;
  for (let i = limit; i >= low; i--) {
    const kind = breakKind(text, i);
    if (kind === PARAGRAPH) return i;
    if (kind === SENTENCE && sentence < 0) sentence = i;
    else if (kind === WORD && word < 0) word = i;
  }
  return sentence >= 0 ? sentence : word;
}

/** Classifies ending a chunk just before index `i` (i >= 1, i < text.length). */
function breakKind(text: string, i: number): number {
  const prev = text.charCodeAt(i - 1);
  if (prev === 0x3002 || prev === 0xff01 || prev === 0xff1f) return SENTENCE; // 。！？ need no space after them
  if (!isWs(text.charCodeAt(i)) || isWs(prev)) return 0;
  if (isBlankLineAt(text, i)) return PARAGRAPH;
  if (isSentenceEnd(prev)) return SENTENCE;
  if (isClosing(prev) && i >= 2 && isSentenceEnd(text.charCodeAt(i - 2))) return SENTENCE; // e.g. `done.")`
  return WORD;
}

/** True when the whitespace run starting at `i` contains a blank line (two line breaks). */
function isBlankLineAt(text: string, i: number): boolean {
  let newlines = 0;
  const stop = Math.min(text.length, i + MAX_PARAGRAPH_SCAN);
  for (let j = i; j < stop; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x0a || c === 0x2028 || (c === 0x0d && text.charCodeAt(j + 1) !== 0x0a)) newlines++;
    else if (c === 0x2029) newlines += 2;
    else if (!isWs(c)) return false;
    if (newlines >= 2) return true;
  }
  return false;
}

/** Ends a chunk at `limit` (never inside a surrogate pair), dropping trailing whitespace; the result is > `fresh`. */
function hardCut(text: string, fresh: number, limit: number): number {
  let end = limit;
  if (splitsPair(text, end)) end--;
  while (end > fresh + 1 && isWs(text.charCodeAt(end - 1))) end--;
  // Only reachable with size 1 on an astral character: keep the pair whole rather than split it.
  if (end <= fresh) end = fresh + codePointLength(text, fresh);
  return end;
}

/**
 * Picks where the next chunk starts within [low, end]: the earliest word start, so the overlap does not begin
 * mid-word; failing that `low` itself (moved off a surrogate pair), skipping any whitespace.
 */
function overlapStart(text: string, low: number, end: number): number {
  for (let p = low; p < end; p++) {
    if (!isWs(text.charCodeAt(p)) && (p === 0 || isWs(text.charCodeAt(p - 1)))) return p;
  }
  let p = low;
  if (splitsPair(text, p)) p++;
  return skipWs(text, p);
}

/** Index of the first non-whitespace unit at or after `i` (or `text.length`). */
function skipWs(text: string, i: number): number {
  const n = text.length;
  while (i < n && isWs(text.charCodeAt(i))) i++;
  return i;
}

/** True when a boundary at `i` would separate a high surrogate from its low surrogate. */
function splitsPair(text: string, i: number): boolean {
  if (i <= 0 || i >= text.length) return false;
  const hi = text.charCodeAt(i - 1);
  const lo = text.charCodeAt(i);
  return hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff;
}

/** Number of code units (1 or 2) of the code point starting at `i`. */
function codePointLength(text: string, i: number): number {
  return splitsPair(text, i + 1) ? 2 : 1;
}

/** Matches exactly the characters of the regex class `\s`, without a regex. */
function isWs(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** `.`, `!`, `?` (and the ellipsis `…`). */
function isSentenceEnd(c: number): boolean {
  return c === 0x2e || c === 0x21 || c === 0x3f || c === 0x2026;
}

/** Closing quotes and brackets that may follow a sentence's final punctuation. */
function isClosing(c: number): boolean {
  return c === 0x22 || c === 0x27 || c === 0x29 || c === 0x5d || c === 0x2019 || c === 0x201d || c === 0xbb;
}
