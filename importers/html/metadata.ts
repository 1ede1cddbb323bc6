import { collapsedText, type DomDocument, type DomElement } from './dom.js';
import { openGraphTitleWithoutSite, pageTitleWithoutSite, type TitleHints } from './title.js';

/** What the page says about itself, read before any cleaning touches the tree. */
export interface PageMetadata {
  title: string | undefined;
  language: string | undefined;
  description: string | undefined;
  siteName: string | undefined;
  author: string | undefined;
  /** The `<base href>` value, unresolved. */
  baseHref: string | undefined;
}

/** Collapses whitespace; blank becomes undefined. */
function clean(value: string | null | undefined): string | undefined {
  const text = value?.replace(/\s+/g, ' ').trim();
  return text ? text : undefined;
}

/** Reads `<meta>` content by lower-cased `property`/`name`/`http-equiv`; the first non-blank value wins. */
function metaIndex(doc: DomDocument): Map<string, string> {
  const index = new Map<string, string>();
  const metas = doc.querySelectorAll('meta[content]');
  for (let i = 0; i < metas.length; i++) {
    const meta = metas[i];
    const content = clean(meta?.getAttribute('content'));
    if (!meta || !content) continue;
    for (const attr of ['property', 'name', 'http-equiv']) {
      const key = meta.getAttribute(attr)?.trim().toLowerCase();
      if (key && !index.has(`${attr}:${key}`)) index.set(`${attr}:${key}`, content);
    }
  }
  return index;
}

/** The first `<title>` that is not inside an inline `<svg>` (those name icons, not the page). */
function pageTitleElement(doc: DomDocument): DomElement | undefined {
  const titles = doc.querySelectorAll('title');
  for (let i = 0; i < titles.length; i++) {
    const title = titles[i];
    if (title && !title.closest('svg')) return title;
  }
  return undefined;
}

/** BCP 47 style: og:locale uses `en_GB`. */
function normaliseLanguage(value: string | undefined): string | undefined {
  // content-language may list several languages; the first is the primary one.
  const first = value?.split(',')[0]?.trim().replace(/_/g, '-');
  return first ? first : undefined;
}

/** Extracts title (without a site suffix), language, description, site name, author and base href from the page head. */
export function extractMetadata(doc: DomDocument): PageMetadata {
  const meta = metaIndex(doc);
  const property = (key: string): string | undefined => meta.get(`property:${key}`) ?? meta.get(`name:${key}`);
  const named = (key: string): string | undefined => meta.get(`name:${key}`) ?? meta.get(`property:${key}`);
  const titleElement = pageTitleElement(doc);
  const siteName = property('og:site_name');
  const hints: TitleHints = {
    siteName: siteName ?? named('application-name'),
    headings: Array.from(doc.querySelectorAll('h1'), (h) => collapsedText(h)),
  };
  const ogTitle = property('og:title');
  const pageTitle = clean(titleElement?.textContent);
  return {
    title:
      (ogTitle && openGraphTitleWithoutSite(ogTitle, hints)) ??
      (pageTitle && pageTitleWithoutSite(pageTitle, hints)) ??
      clean(collapsedText(doc.querySelector('h1'))),
    language: normaliseLanguage(
      clean(doc.documentElement?.getAttribute('lang')) ??
        property('og:locale') ??
        meta.get('http-equiv:content-language'),
    ),
    description: named('description') ?? property('og:description'),
    siteName,
    author: named('author'),
    baseHref: clean(doc.querySelector('base[href]')?.getAttribute('href')),
  };
}
