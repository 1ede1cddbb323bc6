import { Readability } from '@mozilla/readability';
import { cleanContent, LEVEL_ATTRIBUTE } from './cleanContent.js';
import { collapsedText, parseDocument, type DomDocument, type DomElement } from './dom.js';
import { convertToMarkdown } from './markdown.js';
import { extractMetadata } from './metadata.js';

/** Decodes response bytes to the HTML text `htmlToMarkdown` takes. */
export { decodeHtmlBody } from './decodeHtmlBody.js';

/** A web page as clean markdown plus what the page says about itself. */
export interface HtmlConversion {
  title: string | undefined;
  markdown: string;
  language: string | undefined;
  description: string | undefined;
  siteName: string | undefined;
  byline: string | undefined;
}

/** Options of `htmlToMarkdown`. */
export interface HtmlToMarkdownOptions {
  /** The page's URL: relative links are made absolute against it (and against `<base href>`). */
  baseUrl?: string;
  /** Keep only the main content via Readability (default true); false for documents with no chrome, such as docx. */
  extractMain?: boolean;
}

// Below Readability's own default threshold it cannot tell content from chrome, and the cleaned page is the content.
const READABILITY_MIN_CHARS = 500;
// Readability sometimes keeps one small block of a page made of many short sections (FAQs, changelogs).
const READABILITY_MIN_SHARE = 0.2;

/** `<base href>` resolved against the page URL; invalid values are ignored. */
function resolveBase(baseHref: string | undefined, baseUrl: string | undefined): URL | undefined {
  const parse = (value: string | undefined, against?: URL): URL | undefined => {
    if (value === undefined) return undefined;
    try {
      return new URL(value, against);
    } catch {
      return undefined;
    }
  };
  const page = parse(baseUrl);
  return parse(baseHref, page) ?? page;
}

/** The element holding the page content once chrome is gone: `<main>` when the page has one, else the body. */
function contentRoot(doc: DomDocument, body: DomElement): DomElement {
  const main = doc.querySelector('main, [role="main"]');
  return main && collapsedText(main) !== '' ? main : body;
}

interface Extracted {
  html: string;
  byline: string | undefined;
}

/** Runs Readability over the cleaned page; undefined when it finds nothing worth keeping. */
function readabilityContent(
  doc: DomDocument,
  body: DomElement,
  root: DomElement,
  rootText: number,
): Extracted | undefined {
  if (root !== body) {
    // Keep Readability from picking leftovers outside <main>.
    for (const child of Array.from(body.childNodes)) child.remove();
    body.append(root);
  }
  const heading = collapsedText(root.querySelector('h1'));
  const article = new Readability<DomElement>(doc, { serializer: (node) => node as DomElement }).parse();
  const content = article?.content;
  if (!article || !content || collapsedText(content).length < rootText * READABILITY_MIN_SHARE) return undefined;
  let html = content.outerHTML;
  // Readability drops the h1 that repeats the title; the document should still open with it.
  if (heading && !content.querySelector(`[${LEVEL_ATTRIBUTE}="1"]`) && repeats(article.title ?? '', heading)) {
    html = `<h1>${escapeHtml(heading)}</h1>${html}`;
  }
  return { html, byline: article.byline?.replace(/\s+/g, ' ').trim() || undefined };
}

/** True when one text contains the other, ignoring case and spacing (`Title | Site` repeats `Title`). */
function repeats(title: string, heading: string): boolean {
  const a = title.replace(/\s+/g, ' ').trim().toLowerCase();
  const b = heading.toLowerCase();
  return a !== '' && (a.includes(b) || b.includes(a));
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Converts an HTML page to clean markdown (main content only) and extracts its title, language and description. */
export function htmlToMarkdown(html: string, options: HtmlToMarkdownOptions = {}): HtmlConversion {
  const doc = parseDocument(html);
  const metadata = extractMetadata(doc);
  const body = doc.body;
  let markdown = '';
  let byline: string | undefined;
  if (body) {
    cleanContent(body, resolveBase(metadata.baseHref, options.baseUrl));
    const root = contentRoot(doc, body);
    // Serialised before Readability runs, because it rewrites the tree it reads.
    const cleaned = root.outerHTML;
    const rootText = collapsedText(root).length;
    const extracted =
      options.extractMain !== false && rootText >= READABILITY_MIN_CHARS
        ? readabilityContent(doc, body, root, rootText)
        : undefined;
    markdown = convertToMarkdown(extracted?.html ?? cleaned);
    byline = extracted?.byline;
  }
  return {
    title: metadata.title,
    markdown,
    language: metadata.language,
    description: metadata.description,
    siteName: metadata.siteName,
    byline: metadata.author ?? byline,
  };
}
