/**
 * Sentence edges in document text, for building context from chunks. The chunker breaks at paragraphs and sentences,
 * but adjacent chunks overlap, so a chunk after the first usually begins inside the previous chunk's last sentence.
 *
 * A sentence starts at a character that is not a lower-case letter and follows either a line break or, on the same
 * line, a sentence end (`.`, `!`, `?`, `…`, possibly followed by closing quotes or brackets) and white space. Line starts
 * count so that headings, list items and table rows are edges too; a line of code starting with a lower-case word is
 * not one. The document's own start and end are edges. Where a passage has no sentence edge to align to, a line edge
 * (any line's start or end) stands in; where it has neither, it is not shown (see alignToSentences).
 */

const SENTENCE_END = new Set(['.', '!', '?', '…', '。', '！', '？']);
const CLOSING = new Set(['"', "'", ')', ']', '’', '”', '»', '*', '_', '`']);

function isSpace(ch: string | undefined): boolean {
  return ch !== undefined && /\s/.test(ch);
}

function isLower(ch: string): boolean {
  return /\p{Ll}/u.test(ch);
}

/** Whether `text` ends with a sentence end (closing quotes or brackets allowed after it). */
export function endsWithSentenceEnd(text: string): boolean {
  let i = text.trimEnd().length - 1;
  while (i >= 0 && CLOSING.has(text[i] as string)) i--;
  return i >= 0 && SENTENCE_END.has(text[i] as string);
}

/**
 * Whether a sentence starts at `p`, judged from `text` alone: false at a position whose preceding text is not in
 * `text` (the caller knows whether that is the document's start).
 */
export function isSentenceStart(text: string, p: number): boolean {
  const ch = text[p];
  if (ch === undefined || isSpace(ch) || isLower(ch)) return false;
  let q = p - 1;
  let newline = false;
  while (q >= 0 && isSpace(text[q])) {
    if (text[q] === '\n' || text[q] === '\r') newline = true;
    q--;
  }
  if (q < 0) return false;
  if (newline) return true;
  if (q === p - 1) return false; // no white space between
  return endsWithSentenceEnd(text.slice(Math.max(0, q - 3), q + 1));
}

/** What is known about the text around a span: whether `text` begins at the document's start and ends at its end. */
export interface SpanEdges {
  docStart: boolean;
  docEnd: boolean;
}

/** Sentence starts in `text`, ascending (0 first when `text` begins the document). */
function sentenceStarts(text: string, docStart: boolean): number[] {
  const starts: number[] = [];
  const first = text.search(/\S/);
  if (first < 0) return starts;
  if (docStart) starts.push(first);
  for (let p = first + 1; p < text.length; p++) if (isSentenceStart(text, p)) starts.push(p);
  return starts;
}

/** The end of the text before `p` without its trailing white space. */
function endBefore(text: string, p: number): number {
  let e = p;
  while (e > 0 && isSpace(text[e - 1])) e--;
  return e;
}

/**
 * Moves the span [s, e) of `text` to sentence edges: its start back to the sentence it is in (when that sentence's start
 * is in `text`), else forward to the next sentence; its end forward to the end of its sentence (when that is in `text`),
 * else back to the last whole sentence. When `text` ends where the span does, a span ending in a sentence end counts as
 * whole. On a side where no sentence edge is found (a flattened table, a line of code), the nearest line edge stands in
 * (see `lineEdges`). Returns null when a side has neither: no passage of `text` around the span starts and ends at an
 * edge, so showing it would show a fragment.
 */
export function alignToSentences(text: string, s: number, e: number, edges: SpanEdges): [number, number] | null {
  const starts = sentenceStarts(text, edges.docStart);
  const lines = lineEdges(text, edges);
  const start =
    latestAtOrBefore(starts, s) ??
    starts.find((p) => p > s && p < e) ??
    latestAtOrBefore(lines.starts, s) ??
    lines.starts.find((p) => p > s && p < e);
  if (start === undefined) return null;
  const textEnd = endBefore(text, text.length);
  const next = starts.find((p) => p > start && endBefore(text, p) >= e);
  let end: number | undefined;
  if (next !== undefined) end = endBefore(text, next);
  else if (edges.docEnd) end = textEnd;
  else if (e >= textEnd && endsWithSentenceEnd(text.slice(start, e))) end = e;
  else
    end =
      lastSentenceEnd(text, start, e, starts) ??
      lines.ends.find((p) => p >= e) ??
      latestAtOrBefore(
        lines.ends.filter((p) => p > start),
        e,
      );
  return end === undefined || end <= start ? null : [start, end];
}

function latestAtOrBefore(sorted: readonly number[], p: number): number | undefined {
  let best: number | undefined;
  for (const x of sorted) {
    if (x > p) break;
    best = x;
  }
  return best;
}

/**
 * Line edges in `text`, ascending: where a line's first non-blank character is (at any case, so a line of code or a
 * table row counts) and where a line's last non-blank character ends; the document's own start and end when `text`
 * holds them. A line that `text` cuts (its first line unless `docStart`, its last unless `docEnd`) gives no edge on the
 * cut side.
 */
function lineEdges(text: string, edges: SpanEdges): { starts: number[]; ends: number[] } {
  const starts: number[] = [];
  const ends: number[] = [];
  const first = text.search(/\S/);
  if (first < 0) return { starts, ends };
  if (edges.docStart) starts.push(first);
  // A run of white space holding a line break, between two non-blank characters: a line ends before it, one starts after.
  for (const m of text.slice(first).matchAll(/[^\S\n]*\n\s*(?=\S)/g)) {
    ends.push(first + m.index);
    starts.push(first + m.index + m[0].length);
  }
  if (edges.docEnd) ends.push(endBefore(text, text.length));
  return { starts, ends };
}

const END_MARK = /[.!?…。！？]["'’”»)\]*_`]*(?=\s|$)/g;

/** The latest sentence end in text[start, e): after end punctuation, or before a line that starts a sentence. */
function lastSentenceEnd(text: string, start: number, e: number, starts: readonly number[]): number | undefined {
  let best: number | undefined;
  for (const m of text.slice(start, e).matchAll(END_MARK)) best = start + m.index + m[0].length;
  for (const p of starts) {
    const before = endBefore(text, p);
    if (p > start && p <= e && before > start && (best === undefined || before > best)) best = before;
  }
  return best;
}
