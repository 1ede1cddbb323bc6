import path from 'node:path';

/** Document extensions a link may leave out or swap ("./config" and "./config.html" name "config.md"). */
const PAGE_SUFFIXES = [
  '',
  '.md',
  '.mdx',
  '.markdown',
  '.html',
  '.htm',
  '.txt',
  '/index.md',
  '/README.md',
  '/index.html',
];

function variants(target: string): string[] {
  const bare = target.replace(/\/+$/, '').replace(/\.(?:md|mdx|markdown|html?|txt)$/i, '');
  return [...new Set([target, ...PAGE_SUFFIXES.map((s) => `${bare}${s}`), `${bare}/`])].filter((t) => t !== '');
}

/**
 * The `source` values a link in a document from `source` may point to: resolved against a URL (site, URL and git web
 * pages), a `<repository>#<path>` git source, or a relative path (folder imports), with the usual page extensions
 * swapped. Empty for links that leave the corpus or point inside the page.
 */
export function linkTargetSources(source: string | null, href: string): string[] {
  const link = href.trim();
  if (link === '' || link.startsWith('#') || /^(?:mailto|javascript|tel|data):/i.test(link)) return [];
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(link)) return variants(stripFragment(link));
  if (source === null) return [];
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source) && !source.includes('#')) {
    try {
      return variants(stripFragment(new URL(link, source).toString()));
    } catch {
      return [];
    }
  }
  const hash = source.indexOf('#');
  const base = hash >= 0 ? source.slice(0, hash + 1) : '';
  const file = hash >= 0 ? source.slice(hash + 1) : source;
  const target = stripFragment(link);
  if (target === '') return [];
  const joined = target.startsWith('/')
    ? path.posix.normalize(target.slice(1))
    : path.posix.join(path.posix.dirname(file), target);
  if (joined.startsWith('..')) return [];
  return variants(joined.replace(/^\.\//, '')).map((v) => `${base}${v}`);
}

function stripFragment(href: string): string {
  return decodeURIComponentSafe(href.replace(/[?#].*$/, ''));
}

function decodeURIComponentSafe(s: string): string {
  try {
    return /^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? s : decodeURIComponent(s);
  } catch {
    return s;
  }
}
