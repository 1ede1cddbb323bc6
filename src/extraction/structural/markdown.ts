/** A fenced code block of a chunk: its info string's language (lower case, '' when none) and its body. */
export interface CodeBlock {
  lang: string;
  body: string;
  /** Offset of the body in the chunk. */
  start: number;
}

/** An inline code span: its text (trimmed) and where it starts in the chunk. */
export interface CodeSpan {
  code: string;
  index: number;
  /** Offset just after the closing backticks. */
  end: number;
}

/** A chunk split into what is code and what is prose. */
export interface ScannedChunk {
  text: string;
  blocks: CodeBlock[];
  /** The chunk with code blocks and inline code blanked out (same length), for prose patterns. */
  prose: string;
  /** The chunk with only code blocks blanked out: inline code and links are read from it. */
  withoutBlocks: string;
  spans: CodeSpan[];
}

const FENCE = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`{]*)?.*$/;

/**
 * Finds fenced code blocks and inline code. A chunk may start inside a block (chunks are plain slices of the
 * document): when its fences are odd in number and the first has no language, the text before it is code.
 */
export function scanChunk(text: string): ScannedChunk {
  const lines = text.split('\n');
  const fences: { line: number; marker: string; lang: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (!line.includes('``') && !line.includes('~~')) continue;
    const m = FENCE.exec(line);
    if (m?.[1]) fences.push({ line: i, marker: m[1], lang: fenceLanguage(m[2] ?? '') });
  }
  const startsInside = fences.length % 2 === 1 && fences[0]?.lang === '' && fences[0].line > 0;
  const offsets: number[] = [];
  let offset = 0;
  for (const line of lines) {
    offsets.push(offset);
    offset += line.length + 1;
  }
  const lineStart = (i: number) => offsets[i] ?? text.length;
  const blocks: CodeBlock[] = [];
  let fenceIndex = 0;
  if (startsInside && fences[0]) {
    blocks.push({ lang: '', body: text.slice(0, Math.max(0, lineStart(fences[0].line) - 1)), start: 0 });
    fenceIndex = 1;
  }
  while (fenceIndex < fences.length) {
    const open = fences[fenceIndex];
    if (!open) break;
    let close = fenceIndex + 1;
    while (close < fences.length && !closes(fences[close]?.marker, open.marker, fences[close]?.lang)) close++;
    const bodyStart = lineStart(open.line + 1);
    const closeFence = fences[close];
    const bodyEnd = closeFence ? Math.max(bodyStart, lineStart(closeFence.line) - 1) : text.length;
    blocks.push({ lang: open.lang, body: text.slice(bodyStart, bodyEnd), start: bodyStart });
    fenceIndex = close + 1;
  }
  const withoutBlocks = blank(text, blocks, lines, fences, lineStart);
  const spans = inlineCode(withoutBlocks);
  const prose = blankRanges(
    withoutBlocks,
    spans.map((span) => [span.index, span.end] as const),
  );
  return { text, blocks, prose, withoutBlocks, spans };
}

/** The language of an info string; a bare title ("```[.env]", as VitePress writes) says only whether it is env. */
function fenceLanguage(info: string): string {
  const lang = info.toLowerCase();
  if (!lang.startsWith('[')) return lang;
  return /^\[\.env\b/.test(lang) ? 'env' : '';
}

function closes(marker: string | undefined, open: string, lang: string | undefined): boolean {
  return marker !== undefined && marker[0] === open[0] && marker.length >= open.length && lang === '';
}

function blank(
  text: string,
  blocks: CodeBlock[],
  lines: string[],
  fences: { line: number }[],
  lineStart: (i: number) => number,
): string {
  const ranges = [
    ...blocks.map((b) => [b.start, b.start + b.body.length] as const),
    ...fences.map((f) => [lineStart(f.line), lineStart(f.line) + (lines[f.line]?.length ?? 0)] as const),
  ];
  return blankRanges(text, ranges);
}

/** `text` with the given ranges replaced by spaces (newlines kept), so offsets stay valid. */
function blankRanges(text: string, ranges: readonly (readonly [number, number])[]): string {
  if (ranges.length === 0) return text;
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [from, to] of sorted) {
    const start = Math.max(from, at);
    if (to <= start) continue;
    out += text.slice(at, start) + spaces(text.slice(start, to));
    at = to;
  }
  return out + text.slice(at);
}

function spaces(text: string): string {
  if (!text.includes('\n')) return ' '.repeat(text.length);
  return text
    .split('\n')
    .map((line) => ' '.repeat(line.length))
    .join('\n');
}

const INLINE_CODE = /(`+)([^`\n](?:[^\n]*?[^`\n])?)\1(?!`)/g;

function inlineCode(text: string): CodeSpan[] {
  const spans: CodeSpan[] = [];
  if (!text.includes('`')) return spans;
  for (const m of text.matchAll(INLINE_CODE)) {
    const code = (m[2] ?? '').trim();
    if (code) spans.push({ code, index: m.index, end: m.index + m[0].length });
  }
  return spans;
}

const MAX_QUOTE = 200;

/** A quote of at most 200 characters from `text` around [index, index + length): its line, or a window of it. */
export function quoteAt(text: string, index: number, length = 0): string {
  const lineStart = text.lastIndexOf('\n', Math.max(0, index - 1)) + 1;
  let lineEnd = text.indexOf('\n', index + length);
  if (lineEnd < 0) lineEnd = text.length;
  if (lineEnd - lineStart <= MAX_QUOTE) return text.slice(lineStart, lineEnd).trim();
  const mid = index + Math.floor(length / 2);
  let from = Math.max(lineStart, mid - MAX_QUOTE / 2);
  const to = Math.min(lineEnd, from + MAX_QUOTE);
  from = Math.max(lineStart, to - MAX_QUOTE);
  let quote = text.slice(from, to);
  // Cut at word boundaries when that still keeps the match.
  const firstSpace = quote.indexOf(' ');
  if (from > lineStart && firstSpace > 0 && from + firstSpace < index) quote = quote.slice(firstSpace + 1);
  const lastSpace = quote.lastIndexOf(' ');
  if (to < lineEnd && lastSpace > 0 && to - (quote.length - lastSpace) >= index + length) {
    quote = quote.slice(0, lastSpace);
  }
  return quote.trim();
}

/** The first non-empty line of a chunk, at most 200 characters. */
export function firstLineQuote(text: string): string {
  const index = text.search(/\S/);
  return index < 0 ? '' : quoteAt(text, index, 0);
}
