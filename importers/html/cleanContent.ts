import { collapsedText, isElement, type DomElement } from './dom.js';
import { codeLanguage } from './codeLanguage.js';
import { isMathContainer, replaceMath, replaceMathContainer } from './math.js';
import { normaliseTable } from './tables.js';

/** Attribute that keeps an element's original heading level (Readability turns h1 into h2). */
export const LEVEL_ATTRIBUTE = 'data-cairn-level';
/** Attribute that carries a code block's language through Readability, which strips classes. */
export const LANGUAGE_ATTRIBUTE = 'data-cairn-lang';

// Never content: scripts, styles, embeds, media (images are dropped), widgets and navigation.
const DROPPED_TAGS = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'button',
  'select',
  'textarea',
  'datalist',
  'nav',
  'svg',
  'canvas',
  'img',
  'picture',
  'source',
  'video',
  'audio',
  'track',
  'map',
  'area',
  'dialog',
  'link',
  'meta',
  'base',
  'title',
  'head',
]);
const DROPPED_ROLES = new Set(['navigation', 'search', 'menu', 'menubar', 'dialog', 'alertdialog']);
const CONTENT_ROLES = new Set(['main', 'article']);
const CONSENT_PATTERN =
  /cookie-?(?:banner|bar|notice|consent|law|popup|modal|message|warning|wall)|consent|gdpr|onetrust|cookiebot|didomi/i;
const BOILERPLATE_PATTERN =
  /(?:^|[\s_-])(?:share|sharing|social|newsletter|subscribe|breadcrumbs?|related|comments|comment-(?:form|list|section)|disqus|sidebar|skip-?link|advert(?:isement)?s?|ad-?slot|ads|promo|popup|modal|toc|table-of-contents|feedback|edit-?(?:link|page)|pagination|pager|navbar|mega-?(?:menu|footer))(?:$|[\s_-])/i;
const SAFE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:', 'tel:', 'ftp:']);
// Text of heading permalinks such as `<a class="anchor" href="#x">#</a>`.
const PERMALINK_TEXT = new Set(['', '#', '¶', '§', '🔗', '∞']);
const RELATIVE_PLACEHOLDER = 'http://relative.invalid/';

interface WalkContext {
  base: URL | undefined;
  /** Text length of the whole body: a block holding most of it is never boilerplate. */
  bodyTextLength: number;
  inContent: boolean;
  inHeading: boolean;
}

/** Resolves a link against the base; undefined when the scheme is unsafe or the link is empty. */
function resolveHref(href: string, base: URL | undefined): string | undefined {
  const trimmed = href.trim();
  if (!trimmed) return undefined;
  let url: URL;
  try {
    url = new URL(trimmed, base ?? RELATIVE_PLACEHOLDER);
  } catch {
    return undefined;
  }
  if (!SAFE_PROTOCOLS.has(url.protocol)) return undefined;
  return base ? url.href : trimmed;
}

/** Share of an element's text that sits inside links. */
function linkDensity(element: DomElement): number {
  const total = collapsedText(element).length;
  if (total === 0) return 1;
  let linked = 0;
  const links = element.querySelectorAll('a');
  for (let i = 0; i < links.length; i++) linked += collapsedText(links[i] ?? null).length;
  return linked / total;
}

function isHidden(element: DomElement): boolean {
  const hidden = element.getAttribute('hidden');
  const style = element.getAttribute('style');
  // `until-found` content is collapsed but searchable, so it is real content.
  const hiddenByAttribute = hidden !== null && hidden.toLowerCase() !== 'until-found';
  if (!hiddenByAttribute && !(style !== null && /(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style)))
    return false;
  // Wikipedia hides the MathML copy of a formula and shows an image, which is dropped: the MathML is the formula.
  return element.querySelector('math') === null;
}

/** Lower-case ASCII words of a name or heading, accents dropped: "Sharing with a dev¶" → sharing, with, a, dev. */
function words(text: string): string[] {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/** An id made of these words alone (`comments`, `related-posts`) names chrome even when a heading says the same. */
const CHROME_WORDS =
  /^(?:share|sharing|social|newsletter|subscribe|breadcrumbs?|related|comments?|disqus|sidebar|toc|table|of|contents|feedback|ads?|adverts?|advertisements?|promo|popup|modal|pagination|pager|navbar|skip|links?|edit|page|posts?|articles?|stories|more|reading|section|box|widget|area|container|wrapper|list|block|bar|buttons?|form|thread|\d+)$/;

/**
 * True when the element's id is the slug of its own heading (`<h2 id="sharing-with-a-single-developer">`, or a
 * section holding that heading), as docs generators write them: a content section, whatever words the slug holds.
 */
function idSlugsOwnHeading(element: DomElement, id: string): boolean {
  const idWords = words(id);
  const isHeading = /^h[1-6]$/.test(element.localName);
  // A heading is never chrome itself; a block is, when its slug says nothing but chrome (`comments`).
  if (!isHeading && idWords.every((w) => CHROME_WORDS.test(w))) return false;
  const headings = isHeading ? [element] : Array.from(element.querySelectorAll('h1, h2, h3, h4, h5, h6'));
  return headings.some((heading) => {
    const headingWords = words(collapsedText(heading));
    // Generators number repeated slugs: `setup`, `setup-1`.
    const extra = idWords.slice(headingWords.length);
    return (
      headingWords.length > 0 &&
      headingWords.every((w, i) => idWords[i] === w) &&
      (extra.length === 0 || (extra.length === 1 && /^\d+$/.test(extra[0] ?? '')))
    );
  });
}

/**
 * Class/id says banner, share bar, newsletter, sidebar…, and it does not hold the page's main content. An id that is
 * the slug of the element's own heading names a section, not chrome, and is removed.
 */
function isBoilerplateBlock(element: DomElement, context: WalkContext): boolean {
  const classes = element.getAttribute('class') ?? '';
  const id = element.getAttribute('id') ?? '';
  const classSaysChrome = CONSENT_PATTERN.test(classes) || BOILERPLATE_PATTERN.test(classes);
  let idSaysChrome = CONSENT_PATTERN.test(id) || BOILERPLATE_PATTERN.test(id);
  if (idSaysChrome && idSlugsOwnHeading(element, id)) {
    // Readability drops blocks on the same words ("related-work"); the id is only an anchor, so it goes instead.
    element.removeAttribute('id');
    idSaysChrome = false;
  }
  if (!classSaysChrome && !idSaysChrome) return false;
  if (CONTENT_ROLES.has(element.localName) || element.querySelector('main, article, [role="main"], h1')) return false;
  return collapsedText(element).length <= context.bodyTextLength / 2;
}

type Action = 'drop' | 'unwrap' | 'keep';

/** What to do with one element, before looking at its children. */
function classify(element: DomElement, context: WalkContext): Action {
  const tag = element.localName;
  if (tag === 'input') return element.getAttribute('type') === 'checkbox' && element.closest('li') ? 'keep' : 'drop';
  if (DROPPED_TAGS.has(tag) || isHidden(element)) return 'drop';
  // ASP.NET-style pages wrap the whole page in one form: keep its content, drop real forms.
  if (tag === 'form') return element.querySelector('main, article, [role="main"], h1') ? 'unwrap' : 'drop';
  const role = element.getAttribute('role')?.trim().toLowerCase() ?? '';
  if (DROPPED_ROLES.has(role)) return 'drop';
  // Outside the main content these are site chrome; inside an article they may be its header or notes.
  if (tag === 'header' || role === 'banner') return context.inContent ? 'keep' : 'drop';
  if (tag === 'footer' || tag === 'aside' || role === 'contentinfo' || role === 'complementary') {
    return context.inContent && linkDensity(element) < 0.5 ? 'keep' : 'drop';
  }
  return isBoilerplateBlock(element, context) ? 'drop' : 'keep';
}

/** Makes a link absolute or, for unsafe or empty targets, replaces it with its text. */
function rewriteLink(link: DomElement, context: WalkContext): void {
  const href = link.getAttribute('href');
  if (href === null) return;
  const resolved = resolveHref(href, context.base);
  if (resolved === undefined) link.replaceWith(...Array.from(link.childNodes));
  else link.setAttribute('href', resolved);
}

/** Handles an element whose children are already clean. */
function finish(element: DomElement, context: WalkContext): void {
  switch (element.localName) {
    case 'a': {
      const text = collapsedText(element);
      if (PERMALINK_TEXT.has(text) && (context.inHeading || text === '')) element.remove();
      else rewriteLink(element, context);
      return;
    }
    case 'pre': {
      const language = codeLanguage(element);
      if (language) element.setAttribute(LANGUAGE_ATTRIBUTE, language);
      return;
    }
    case 'table':
      normaliseTable(element);
      return;
    case 'h1':
      element.setAttribute(LEVEL_ATTRIBUTE, '1');
      return;
    default:
      return;
  }
}

function walk(parent: DomElement, context: WalkContext): void {
  for (const node of Array.from(parent.childNodes)) {
    if (!isElement(node)) continue;
    if (node.localName === 'math') {
      replaceMath(node);
      continue;
    }
    if (isMathContainer(node) && replaceMathContainer(node)) continue;
    const action = classify(node, context);
    if (action === 'drop') {
      node.remove();
      continue;
    }
    const tag = node.localName;
    const role = node.getAttribute('role');
    const inner: WalkContext = {
      ...context,
      inContent: context.inContent || CONTENT_ROLES.has(tag) || (role !== null && CONTENT_ROLES.has(role)),
      inHeading: context.inHeading || /^h[1-6]$/.test(tag),
    };
    walk(node, inner);
    finish(node, inner);
    if (action === 'unwrap') node.replaceWith(...Array.from(node.childNodes));
  }
}

/** Removes boilerplate, media and unsafe links from `body` in place, and marks code languages and h1s. */
export function cleanContent(body: DomElement, base: URL | undefined): void {
  walk(body, { base, bodyTextLength: collapsedText(body).length, inContent: false, inHeading: false });
}
