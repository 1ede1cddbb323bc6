// Markdown → safe HTML: `marked` renders, DOMPurify sanitises (no scripts, handlers or javascript: URLs), links open
// in a new tab without an opener, and nothing loads from another origin (the CSP would block it anyway).
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

function sameOriginOrData(url: string): boolean {
  if (/^data:image\//i.test(url)) return true;
  try {
    return new URL(url, window.location.href).origin === window.location.origin;
  } catch {
    return false;
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// Chrome reports a CSP violation as soon as any parser (even DOMPurify's inert DOMParser) meets an on* attribute, so
// raw HTML gets those renamed first; DOMPurify then drops the unknown attribute. Only noise control: DOMPurify is the
// safety boundary.
const EVENT_HANDLER_ATTR = /([\s/"'])(on[a-z]+\s*=)/gi;

// Markdown images from elsewhere become links: the page's img-src is 'self', and a broken image helps nobody.
const marked = new Marked({
  gfm: true,
  async: false,
  walkTokens(token) {
    if (token.type === 'html') token.text = token.text.replace(EVENT_HANDLER_ATTR, '$1x-$2');
  },
  renderer: {
    image({ href, title, text }) {
      if (sameOriginOrData(href)) return false; // the default renderer
      const label = `🖼 ${text || 'image'}`;
      return `<a href="${escapeHtml(href)}"${title ? ` title="${escapeHtml(title)}"` : ''}>${escapeHtml(label)}</a>`;
    },
  },
});

const purify = DOMPurify(window);
purify.addHook('afterSanitizeAttributes', (node) => {
  // nodeName, not instanceof: DOMPurify works in a detached document.
  if (node.nodeName === 'A' && node.hasAttribute('href') && !node.getAttribute('href')?.startsWith('#')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
  if (node.nodeName === 'IMG') {
    node.removeAttribute('srcset');
    const src = node.getAttribute('src');
    if (src !== null && !sameOriginOrData(src)) {
      node.removeAttribute('src');
      node.setAttribute('data-blocked-src', src);
      node.setAttribute('title', `Not loaded from another site: ${src}`);
    }
  }
});

/** The sanitised HTML of a markdown text (raw HTML in it is allowed through DOMPurify). */
export function renderMarkdown(markdown: string): string {
  const html = marked.parse(markdown) as string;
  return purify.sanitize(html, {
    USE_PROFILES: { html: true },
    // Inline styles could dress content up as the admin UI; media would load from other origins.
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'video', 'audio', 'source', 'picture'],
    FORBID_ATTR: ['style'],
  });
}
