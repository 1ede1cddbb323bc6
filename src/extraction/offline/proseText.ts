/**
 * Turns a chunk (markdown or plain text) into prose for the NLP: one block (paragraph, list item, table cell,
 * heading) per line, without front matter, code blocks, HTML, URLs and markdown syntax. Code spans and dotted
 * identifiers (vite.config.ts) are replaced by a placeholder word so they split names and terms and do not end a
 * sentence; the placeholder is put back when a quote is written.
 */

/** A word the tokenizer keeps whole; it stands for the code span at the same position in `codes`. */
export const CODE_PLACEHOLDER = 'zqcodespanzq';

/** What a block of prose was in the chunk: running text, or markup that lists things (a list item, a table cell, a heading). */
export type BlockKind = 'paragraph' | 'list' | 'table' | 'heading';

export interface ProseText {
  /** Blocks separated by '\n'. */
  text: string;
  /** The code spans, in the order their placeholders appear in `text`. */
  codes: string[];
  /** The kind of each block (line) of `text`, in order. */
  kinds: BlockKind[];
}

interface Block {
  text: string;
  kind: BlockKind;
}

const FENCE = /^\s{0,3}(```|~~~)/;
const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?/;
const SKIPPED_LINE = /^\s*(?::::|\[[^\]]+\]:\s|\|?\s*:?-{3,}:?\s*(?:\||$)|<!--|-->)/;
/** A line of code outside a fence (a chunk cut inside a code block): a statement start or a brace at the end. */
const CODE_LINE = /^\s*(?:(?:import|export|const|let|var|function|return|if|await)\s|\/\/|[})\]])|[{;,(]\s*$/;
/** An indented YAML entry (front matter a chunk is cut inside of): "    - property: og:title". */
const YAML_LINE = /^[ \t]{2,}(?:-[ \t]+)*[\w.-]+:(?:[ \t]|$)/;
const CODE_SYMBOLS = /[{}[\]()<>=;:|*/'"$#]/g;

/** Code left outside a fence: a statement, or a line dense with code symbols ("html: string tags: X[]"). */
function looksLikeCode(line: string): boolean {
  if (CODE_LINE.test(line) || YAML_LINE.test(line)) return true;
  if (line.trim().startsWith('|')) return false;
  const prose = line
    .replace(/`[^`]*`/g, '')
    .replace(/\]\([^)]*\)/g, ']')
    .replace(/<?\b(?:https?|ftp):\/\/[^\s>]*>?/g, '')
    .trim();
  const symbols = prose.match(CODE_SYMBOLS)?.length ?? 0;
  return symbols / Math.max(1, prose.length) > 0.1;
}

const DOTTED_IDENTIFIER = /(?<![\w.$/-])[A-Za-z_$][\w$-]+(?:\.[A-Za-z_$][\w$-]*)+(?![\w$/-])/g;

/** The end of front matter when a chunk begins inside it: a cut line, YAML-like lines, a closing '---'. */
const FRONT_MATTER_TAIL = /^[^\n]*\n(?:[\w.-]+:(?:[ \t][^\n]*)?\n|[ \t]+\S[^\n]*\n|-[ \t]+-[^\n]*\n)*---[ \t]*(?:\n|$)/;
/** A chunk that starts inside a link ("Import Guide](/guide/features.md)"): half a link text names nothing. */
const CUT_LINK_TAIL = /^[^[\]\n]{0,200}\]\([^)\s]*\)/;

/** Removes what can never be prose and spans several lines: front matter, comments, script and style elements. */
function dropMultilineNoise(chunk: string): string {
  return chunk
    .replace(/\r\n?/g, '\n')
    .replace(/^---\n(?=[\w.-]+:)(?:[\s\S]*?\n---(?:\n|$)|[\s\S]*$)/, '')
    .replace(FRONT_MATTER_TAIL, '')
    .replace(CUT_LINK_TAIL, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<\/?(?:h[1-6]|p|div|br|li|ul|ol|tr|td|th|table|section|template|blockquote)\b[^>]*>/gi, '\n\n');
}

/** Keeps link texts, drops the syntax of emphasis, images, HTML, URLs and template interpolation. */
function dropInlineSyntax(line: string): string {
  return line
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
    .replace(/<(?:https?|mailto):[^>]*>/g, ' ')
    .replace(/<\/?[A-Za-z][^>]*>/g, ' ')
    .replace(/\{\{[^}]*\}\}/g, ' ')
    .replace(/\b(?:https?|ftp):\/\/\S+|\bwww\.\S+|\S+@\S+\.\w+/g, ' ')
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '$2')
    .replace(/(^|[^\w*])[*_](?=\S)([^*_]+?)(?<=\S)[*_](?![\w*])/g, '$1$2')
    .replace(/~~/g, '')
    .replace(/&(?:nbsp|#160);/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\\([\\`*_{}[\]()#+\-.!|])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Headings are title-cased: lower-case their capitalised words so they yield terms, not names. */
function foldHeadingCase(heading: string): string {
  return heading.replace(/\{#[^}]*\}/g, '').replace(/\b\p{Lu}\p{Ll}+\b/gu, (word) => word.toLowerCase());
}

/** Replaces code spans and dotted identifiers by the placeholder, recording them in order. */
function maskCode(line: string, codes: string[]): string {
  const masked = line.replace(/(`+)(.+?)\1/g, (_match, _ticks: string, code: string) => {
    codes.push(`\`${code.trim()}\``);
    return ` ${CODE_PLACEHOLDER} `;
  });
  return masked.replace(DOTTED_IDENTIFIER, (identifier) => {
    codes.push(identifier);
    return CODE_PLACEHOLDER;
  });
}

/**
 * A chunk may begin inside a code block (chunks are cut anywhere). Opening fences usually name a language and
 * closing ones are bare: a bare first fence followed by a named one (or by none) closes a block begun before.
 */
function startsInsideFence(lines: readonly string[]): boolean {
  const fences = lines.filter((line) => FENCE.test(line)).slice(0, 2);
  const bare = (line: string): boolean => /^\s*(```|~~~)\s*$/.test(line);
  const [first, second] = fences;
  return first !== undefined && bare(first) && (second === undefined || !bare(second));
}

/** Splits a markdown chunk into its prose blocks: one per paragraph, list item, table cell or heading. */
function proseBlocks(chunk: string): Block[] {
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  let kind: BlockKind = 'paragraph';
  const flush = (): void => {
    if (paragraph.length > 0) blocks.push({ text: paragraph.join(' '), kind });
    paragraph = [];
    kind = 'paragraph';
  };
  const lines = dropMultilineNoise(chunk).split('\n');
  let inFence = startsInsideFence(lines);
  for (const rawLine of lines) {
    if (FENCE.test(rawLine)) {
      flush();
      inFence = !inFence;
      continue;
    }
    if (inFence || SKIPPED_LINE.test(rawLine) || looksLikeCode(rawLine)) continue;
    const line = rawLine.replace(/^\s*(?:>\s?)+/, '');
    if (line.trim() === '') {
      flush();
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      blocks.push({ text: foldHeadingCase(heading[1] ?? ''), kind: 'heading' });
    } else if (line.trim().startsWith('|')) {
      flush();
      for (const cell of line.split('|').filter((c) => c.trim() !== '')) blocks.push({ text: cell, kind: 'table' });
    } else if (LIST_ITEM.test(line)) {
      flush();
      kind = 'list';
      paragraph.push(line.replace(LIST_ITEM, ''));
    } else {
      paragraph.push(line);
    }
  }
  flush();
  return blocks;
}

/** The prose of a chunk, ready for the NLP. Deterministic. */
export function toProse(chunk: string): ProseText {
  const codes: string[] = [];
  const lines: string[] = [];
  const kinds: BlockKind[] = [];
  for (const block of proseBlocks(chunk)) {
    const blockCodes: string[] = [];
    const line = dropInlineSyntax(maskCode(block.text, blockCodes));
    if (!/\p{L}/u.test(line.replaceAll(CODE_PLACEHOLDER, ''))) continue;
    lines.push(line);
    kinds.push(block.kind);
    // A placeholder inside dropped syntax (an image's alt text) would shift the others: keep them aligned.
    const left = line.split(CODE_PLACEHOLDER).length - 1;
    codes.push(...(left === blockCodes.length ? blockCodes : Array.from({ length: left }, () => '`…`')));
  }
  return { text: lines.join('\n'), codes, kinds };
}
