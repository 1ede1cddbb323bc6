import TurndownService from 'turndown';
import { strikethrough, tables, taskListItems } from 'turndown-plugin-gfm';
import { LANGUAGE_ATTRIBUTE, LEVEL_ATTRIBUTE } from './cleanContent.js';
import { MATH_ATTRIBUTE } from './math.js';

/** The parts of turndown's (domino) nodes that our rules read. */
interface TurndownNode {
  readonly nodeName: string;
  readonly textContent: string | null;
  readonly previousElementSibling: TurndownNode | null;
  readonly nextSibling: TurndownNode | null;
  readonly parentNode: TurndownNode | null;
  readonly children: ArrayLike<TurndownNode>;
  getAttribute(name: string): string | null;
}

// @types/turndown types nodes as DOM lib classes, which this project does not load.
function asNode(node: unknown): TurndownNode {
  return node as TurndownNode;
}

/** The shortest backtick fence longer than any backtick run in the code. */
function fenceFor(code: string): string {
  let longest = 0;
  for (const run of code.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

function createService(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    hr: '---',
    bulletListMarker: '-',
    codeBlockStyle: 'fenced',
    emDelimiter: '_',
    strongDelimiter: '**',
  });
  service.use([tables, strikethrough, taskListItems]);
  // Rules added later win, so these replace turndown's and the plugin's own.
  service.addRule('fencedCode', {
    filter: 'pre',
    replacement: (_content, raw) => {
      const node = asNode(raw);
      const code = (node.textContent ?? '').replace(/^\n/, '').replace(/\s+$/, '');
      if (!code) return '';
      const fence = fenceFor(code);
      return `\n\n${fence}${node.getAttribute(LANGUAGE_ATTRIBUTE) ?? ''}\n${code}\n${fence}\n\n`;
    },
  });
  service.addRule('math', {
    filter: (raw) => asNode(raw).getAttribute(MATH_ATTRIBUTE) !== null,
    replacement: (_content, raw) => {
      const node = asNode(raw);
      // The TeX as written: turndown would escape its `_`, `*` and `\\`.
      const tex = (node.textContent ?? '').trim();
      return node.getAttribute(MATH_ATTRIBUTE) === 'block' ? `\n\n$$${tex}$$\n\n` : `$${tex}$`;
    },
  });
  service.addRule('heading', {
    filter: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'],
    replacement: (content, raw) => {
      const node = asNode(raw);
      const level = Number(node.getAttribute(LEVEL_ATTRIBUTE) ?? node.nodeName.charAt(1));
      // A heading is one line in markdown.
      const text = content.replace(/\s+/g, ' ').trim();
      return text ? `\n\n${'#'.repeat(level)} ${text}\n\n` : '';
    },
  });
  service.addRule('listItem', {
    filter: 'li',
    replacement: (content, raw) => {
      // Turndown pads markers to four columns (`-   item`); one space is the common, equally valid form.
      const node = asNode(raw);
      const parent = node.parentNode;
      let prefix = '- ';
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? '1');
        prefix = `${(Number.isFinite(start) ? start : 1) + Array.prototype.indexOf.call(parent.children, raw)}. `;
      }
      const paragraph = /\n$/.test(content);
      const body = content.replace(/^\n+|\n+$/g, '') + (paragraph ? '\n' : '');
      return prefix + body.replace(/\n/g, `\n${' '.repeat(prefix.length)}`) + (node.nextSibling ? '\n' : '');
    },
  });
  service.addRule('tableCell', {
    filter: ['th', 'td'],
    replacement: (content, raw) => {
      // A cell is one line in GFM, and a bare pipe would end it.
      const text = content
        .replace(/\s*\n+\s*/g, ' ')
        .replace(/\|/g, '\\|')
        .trim();
      return `${asNode(raw).previousElementSibling ? ' ' : '| '}${text} |`;
    },
  });
  return service;
}

const service = createService();

// A line that opens or closes a fenced code block (possibly indented inside a list item).
const FENCE_LINE = /^\s*(`{3,}|~{3,})/;

/** Collapses runs of blank lines to one and turns non-breaking spaces into spaces, outside code blocks. */
function tidyLines(markdown: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  let blanks = 0;
  for (const line of markdown.split('\n')) {
    const marker = FENCE_LINE.exec(line)?.[1];
    if (marker && (!fence || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence ? undefined : marker;
    } else if (!fence && line.trim() === '') {
      if (++blanks > 1) continue;
      out.push('');
      continue;
    }
    blanks = 0;
    // Outside code, non-breaking spaces are layout: plain spaces search and chunk better.
    out.push(fence ? line : line.replace(/\u00a0/g, ' '));
  }
  return out.join('\n');
}

/** Converts cleaned HTML to markdown: ATX headings, fenced code with languages, GFM tables, `-` bullets. */
export function convertToMarkdown(html: string): string {
  return tidyLines(service.turndown(html)).trim();
}
