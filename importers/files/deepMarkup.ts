import { Parser } from 'htmlparser2';
import { lineAt, MAX_NESTING } from './nesting.js';

/** What `flattenDeepHtml` returns: the HTML to convert, and where (if anywhere) tags were removed. */
export interface FlattenedHtml {
  html: string;
  /** The first removed element, as `<div> at line 12`; undefined when nothing nests too deeply. */
  flattenedAt: string | undefined;
}

// Elements whose content is not markup: removing only their tags would turn scripts and styles into text.
const RAW_TEXT = new Set([
  'script',
  'style',
  'template',
  'textarea',
  'title',
  'noscript',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
]);
// Void elements never hold others, so they do not count as a level.
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
]);

/**
 * `html` with the start and end tags of every element nested deeper than `max` removed, so that their text joins the
 * element `max` levels down (raw-text elements such as script and style are removed with their content). linkedom,
 * Readability and turndown recurse per level and overflow the stack on a few thousand; the nesting is read with
 * htmlparser2, the tokenizer linkedom itself parses with, which keeps its own stack.
 */
export function flattenDeepHtml(html: string, max: number): FlattenedHtml {
  const open: { name: string; dropped: boolean; start: number }[] = [];
  const cuts: [number, number][] = [];
  let first: number | undefined;
  let firstName = '';
  const parser: Parser = new Parser(
    {
      onopentag(name, _attribs, isImplied) {
        const dropped = !VOID.has(name) && open.length >= max;
        open.push({ name, dropped, start: parser.startIndex });
        if (!dropped || isImplied) return;
        if (first === undefined) [first, firstName] = [parser.startIndex, name];
        if (!RAW_TEXT.has(name)) cuts.push([parser.startIndex, parser.endIndex + 1]);
      },
      onclosetag(name, isImplied) {
        const entry = open.pop();
        if (!entry?.dropped || isImplied) return;
        if (RAW_TEXT.has(name)) cuts.push([entry.start, parser.endIndex + 1]);
        else cuts.push([parser.startIndex, parser.endIndex + 1]);
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  if (first === undefined) return { html, flattenedAt: undefined };
  cuts.sort((a, b) => a[0] - b[0]);
  const parts: string[] = [];
  let at = 0;
  for (const [start, end] of cuts) {
    if (start >= at) parts.push(html.slice(at, start));
    at = Math.max(at, end);
  }
  parts.push(html.slice(at));
  return { html: parts.join(''), flattenedAt: `<${firstName}> at line ${lineAt(html, first)}` };
}

/**
 * How deep `xml` nests elements, counted without recursion, stopping as soon as it passes `max`: the line where it
 * did, or undefined. Comments, CDATA, processing instructions and quoted attribute values are skipped.
 */
export function deepXmlLine(xml: string, max: number): number | undefined {
  let depth = 0;
  let i = xml.indexOf('<');
  while (i !== -1) {
    const skip = (close: string): number => {
      const end = xml.indexOf(close, i);
      return end === -1 ? xml.length : end + close.length;
    };
    let next: number;
    if (xml.startsWith('<!--', i)) next = skip('-->');
    else if (xml.startsWith('<![CDATA[', i)) next = skip(']]>');
    else if (xml.startsWith('<?', i)) next = skip('?>');
    else if (xml.startsWith('<!', i)) next = skip('>');
    else if (xml.startsWith('</', i)) {
      depth--;
      next = skip('>');
    } else {
      let j = i + 1;
      let quote = '';
      for (; j < xml.length; j++) {
        const c = xml[j];
        if (quote) {
          if (c === quote) quote = '';
        } else if (c === '"' || c === "'") quote = c;
        else if (c === '>') break;
      }
      if (xml[j - 1] !== '/' && ++depth > max) return lineAt(xml, i);
      next = j + 1;
    }
    i = xml.indexOf('<', next);
  }
  return undefined;
}

/** The warning for HTML whose deepest elements were flattened, if any were. */
export function flattenWarning(flattenedAt: string | undefined): string[] {
  return flattenedAt === undefined
    ? []
    : [
        `elements nested deeper than ${MAX_NESTING} levels were flattened into their ancestor (from ${flattenedAt}); their text was kept`,
      ];
}
