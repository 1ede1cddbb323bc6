import { parseHTML } from 'linkedom';

// The project compiles without the DOM lib, so linkedom's types resolve to `any`: these are the parts we use.

/** A DOM node as linkedom exposes it. */
export interface DomNode {
  readonly nodeType: number;
  readonly nodeName: string;
  readonly parentNode: DomNode | null;
  readonly childNodes: ArrayLike<DomNode>;
  textContent: string | null;
  remove(): void;
}

/** A DOM element as linkedom exposes it. */
export interface DomElement extends DomNode {
  readonly localName: string;
  readonly children: ArrayLike<DomElement>;
  readonly parentElement: DomElement | null;
  readonly firstElementChild: DomElement | null;
  readonly ownerDocument: DomDocument;
  outerHTML: string;
  innerHTML: string;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  hasAttribute(name: string): boolean;
  querySelector(selectors: string): DomElement | null;
  querySelectorAll(selectors: string): ArrayLike<DomElement>;
  closest(selectors: string): DomElement | null;
  replaceWith(...nodes: DomNode[]): void;
  prepend(...nodes: DomNode[]): void;
  append(...nodes: DomNode[]): void;
  after(...nodes: DomNode[]): void;
}

/** A DOM document as linkedom exposes it. */
export interface DomDocument {
  readonly documentElement: DomElement | null;
  readonly head: DomElement | null;
  readonly body: DomElement | null;
  querySelector(selectors: string): DomElement | null;
  querySelectorAll(selectors: string): ArrayLike<DomElement>;
  createElement(localName: string): DomElement;
}

const ELEMENT_NODE = 1;

/** True for element nodes. */
export function isElement(node: DomNode): node is DomElement {
  return node.nodeType === ELEMENT_NODE;
}

/** Text of a node with whitespace collapsed and trimmed. */
export function collapsedText(node: DomNode | null): string {
  return (node?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

// Tokens that may precede <body> and belong in <head>, matched at `lastIndex` (sticky).
const HEAD_TOKEN =
  /\s+|<!--[\s\S]*?-->|<!doctype[^>]*>|<\?xml[^>]*>|<\/?head\b[^>]*>|<(title|style|script|noscript|template)\b[^>]*>[\s\S]*?<\/\1\s*>|<(?:meta|link|base)\b[^>]*>/iy;
const HTML_OPEN = /^(?:\s|<!--(?:[^-]|-(?!->))*-->|<!doctype[^>]*>|<\?xml[^>]*>)*(<html\b[^>]*>)/i;
const HTML_CLOSE = /<\/html\s*>\s*$/i;

// linkedom builds the tree exactly as written and does not imply missing html/head/body elements, so
// without this a fragment has no usable body and head tags after `<html>` are not in `head`.
/** Rewrites any HTML (full page or fragment) as `<html><head>…</head><body>…</body></html>`. */
export function normaliseDocumentHtml(html: string): string {
  let rest = html;
  let htmlOpen = '<html>';
  const open = HTML_OPEN.exec(rest);
  if (open?.[1] !== undefined) {
    htmlOpen = open[1];
    rest = rest.slice(open[0].length);
  }
  rest = rest.replace(HTML_CLOSE, '');
  let head = '';
  HEAD_TOKEN.lastIndex = 0;
  let end = 0;
  for (let match = HEAD_TOKEN.exec(rest); match; match = HEAD_TOKEN.exec(rest)) {
    if (!/^<\/?head\b|^<!doctype|^<\?xml/i.test(match[0])) head += match[0];
    end = HEAD_TOKEN.lastIndex;
  }
  const body = rest.slice(end);
  const bodyHtml = /^<body\b/i.test(body) ? body : `<body>${body}</body>`;
  return `<!DOCTYPE html>${htmlOpen}<head>${head}</head>${bodyHtml}</html>`;
}

/** Parses HTML into a linkedom document that always has a head and a body. */
export function parseDocument(html: string): DomDocument {
  const { document } = parseHTML(normaliseDocumentHtml(html)) as unknown as { document: DomDocument };
  return document;
}
