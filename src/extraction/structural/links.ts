import type { LinkCandidate } from '../types.js';
import { scanChunk, type ScannedChunk } from './markdown.js';

// [text](href "title"), the text allowing one level of nested brackets ([`x`](y), [![badge](a)](b)).
const MARKDOWN_LINK =
  /(!?)\[((?:[^[\]\n]|\[[^[\]\n]*\])*)\]\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?\s*\)/g;
// [text]: href: a reference definition; its references carry the text.
const REFERENCE_DEFINITION = /^ {0,3}\[([^\]\n]+)\]:\s*<?([^\s>]+)>?/gm;
// `href`, not a template binding such as Vue's `:href="dep.url"`.
const HTML_LINK = /<a\s[^>]*?(?<![:\w-])href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))[^>]*>([\s\S]*?)<\/a\s*>/gi;
const NOT_A_DOCUMENT = /^(mailto|tel|javascript|data|sms|ftp|file):/i;

/** Links of a chunk's markdown, in order, each (href, text) once; no images, none inside code. */
export function extractLinks(chunk: ScannedChunk | string): LinkCandidate[] {
  const scanned = typeof chunk === 'string' ? scanChunk(chunk) : chunk;
  const text = scanned.withoutBlocks;
  const inCode = (index: number) => scanned.spans.some((s) => s.index <= index && index < s.end);
  const found: { index: number; link: LinkCandidate }[] = [];
  for (const m of text.includes('](') ? text.matchAll(MARKDOWN_LINK) : []) {
    if (m[1] === '!') continue;
    found.push({ index: m.index, link: { href: (m[3] ?? '').replace(/^<|>$/g, ''), text: linkText(m[2] ?? '') } });
  }
  for (const m of text.includes(']:') ? text.matchAll(REFERENCE_DEFINITION) : []) {
    found.push({ index: m.index, link: { href: m[2] ?? '', text: linkText(m[1] ?? '') } });
  }
  for (const m of /<a\s/i.test(text) ? text.matchAll(HTML_LINK) : []) {
    const href = decodeEntities(m[1] ?? m[2] ?? m[3] ?? '');
    found.push({ index: m.index, link: { href, text: linkText(m[4] ?? '') } });
  }
  found.sort((a, b) => a.index - b.index);
  const seen = new Set<string>();
  const links: LinkCandidate[] = [];
  for (const { index, link } of found) {
    const href = link.href.trim();
    if (!isDocumentLink(href) || inCode(index)) continue;
    const key = `${href}\u0000${link.text}`;
    if (seen.has(key)) continue;
    seen.add(key);
    links.push({ href, text: link.text });
  }
  return links;
}

function isDocumentLink(href: string): boolean {
  return href !== '' && !href.startsWith('#') && !NOT_A_DOCUMENT.test(href);
}

function linkText(raw: string): string {
  return decodeEntities(
    raw
      .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
      .replace(/<[^>]+>/g, '')
      .replace(/[`*_~]+/g, '')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

function decodeEntities(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** `https://github.com/o/r/blob/<ref>/` (also GitLab's `/-/blob/` and Bitbucket's `/src/`) and the path after it. */
const REPOSITORY_FILE_URL = /^(https?:\/\/[^/]+\/(?:[^/]+\/)+?(?:-\/)?(?:blob|src)\/[^/]+\/)(.*)$/;
const PAGE_EXTENSION = /\.(md|mdx|markdown|html?)$/i;

/**
 * The `source` values the document a link points to may have, most likely first; [] for links to no document
 * (mail, anchors on the same page). Sources are relative paths (folder imports: `guide/features.md`), a repository
 * file's web URL or `<repository url>#<path>` (git imports) or a canonical URL (URL and site imports). The fragment
 * and query are dropped, and a path is tried as written, with and without `.md`/`.mdx`/`.html`, and as a folder's
 * index page. A root-relative link (`/guide/features`) from a file is tried against every folder above the file,
 * since the site's root may be any of them.
 */
export function resolveLinkTarget(href: string, fromSource: string | null): string[] {
  const target = href.trim().replace(/^<|>$/g, '');
  if (!isDocumentLink(target)) return [];
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return absoluteTargets(target, fromSource);
  const path = stripQueryAndFragment(target);
  if (path === '') return [];
  // Canonical URLs have no fragment, so a source with one is a repository's `<url>#<path>`.
  const hash = fromSource?.indexOf('#') ?? -1;
  if (fromSource && hash > 0 && /^[a-z][a-z0-9+.-]*:|^[\w.-]+@/i.test(fromSource)) {
    return underPrefix(`${fromSource.slice(0, hash)}#`, path, fromSource.slice(hash + 1));
  }
  if (fromSource && /^https?:\/\//i.test(fromSource)) {
    const repositoryFile = REPOSITORY_FILE_URL.exec(fromSource);
    if (repositoryFile?.[1] !== undefined)
      return underPrefix(repositoryFile[1], path, decodePath(repositoryFile[2] ?? ''));
    return urlTargets(path, fromSource);
  }
  // A document with no source (written through the API) has no place for a relative link to start from.
  if (!fromSource && !path.startsWith('/')) return [];
  return filePathTargets(decodePath(path), fromSource ?? '');
}

function absoluteTargets(target: string, fromSource: string | null): string[] {
  let url: URL;
  try {
    url = new URL(target, fromSource && /^https?:/i.test(fromSource) ? fromSource : 'https://invalid.invalid/');
  } catch {
    return [];
  }
  if (!/^https?:$/.test(url.protocol)) return [stripQueryAndFragment(target)];
  url.hash = '';
  const withQuery = url.search !== '' ? [url.href] : [];
  url.search = '';
  return unique([...withQuery, ...pathVariants(url.pathname).map((p) => `${url.origin}${p}`)]);
}

function urlTargets(path: string, fromSource: string): string[] {
  try {
    const url = new URL(path, fromSource);
    return unique(pathVariants(url.pathname).map((p) => `${url.origin}${p}`));
  } catch {
    return [];
  }
}

/** A link inside a repository: resolved like a file path, then put back under the repository's prefix. */
function underPrefix(prefix: string, path: string, fromPath: string): string[] {
  const encoded = /^https?:/.test(prefix) && !prefix.endsWith('#');
  return filePathTargets(decodePath(path), fromPath).map((p) => prefix + (encoded ? encodePath(p) : p));
}

function filePathTargets(path: string, fromPath: string): string[] {
  const fromDir = fromPath.includes('/') ? fromPath.slice(0, fromPath.lastIndexOf('/')) : '';
  if (path.startsWith('/')) {
    // The site root may be the folder or any folder above the file: `docs/guide/x.md` links `/config/` to docs/config.
    const roots = [''];
    const parts = fromDir === '' ? [] : fromDir.split('/');
    for (let i = 1; i <= parts.length; i++) roots.push(parts.slice(0, i).join('/'));
    return unique(roots.flatMap((root) => fileVariants(normalise(`${root}${path}`))));
  }
  const joined = normalise(fromDir === '' ? path : `${fromDir}/${path}`);
  return joined === undefined ? [] : fileVariants(joined);
}

/** Resolves `.` and `..`; undefined when the path climbs above the root. */
function normalise(path: string): string | undefined {
  const out: string[] = [];
  const parts = path.split('/');
  parts.forEach((part, i) => {
    if (part === '..') out.push('\u0000');
    else if (part !== '.' && (part !== '' || i === parts.length - 1)) out.push(part);
  });
  const resolved: string[] = [];
  for (const part of out) {
    if (part === '\u0000') {
      if (resolved.length === 0) return undefined;
      resolved.pop();
    } else resolved.push(part);
  }
  return resolved.join('/');
}

function fileVariants(path: string | undefined): string[] {
  if (path === undefined) return [];
  return unique(pathVariants(`/${path}`).map((p) => p.slice(1)));
}

/** A path (with a leading slash) as written, with and without page extensions, and as a folder's index page. */
function pathVariants(path: string): string[] {
  const dir = path.endsWith('/');
  const base = dir ? path.replace(/\/+$/, '') : path;
  const index = /^(.*)\/index\.(md|mdx|markdown|html?)$/i.exec(base);
  if (index) return folderVariants(index[1] ?? '');
  if (dir) return folderVariants(base);
  const ext = PAGE_EXTENSION.exec(base);
  const stem = ext ? base.slice(0, -ext[0].length) : base;
  const pages = [`${stem}.md`, `${stem}.mdx`, `${stem}.html`, `${stem}.htm`, stem];
  return [base, ...pages.filter((p) => p !== base), ...folderVariants(stem)];
}

function folderVariants(dir: string): string[] {
  const root = dir === '' ? '' : dir;
  return [`${root}/index.md`, `${root}/index.mdx`, `${root}/index.html`, `${root}/`, ...(root ? [root] : [])];
}

function stripQueryAndFragment(href: string): string {
  return href.replace(/[#?].*$/, '');
}

function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

function unique(values: string[]): string[] {
  return [...new Set(values.filter((v) => v !== ''))];
}
