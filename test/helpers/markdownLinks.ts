import fs from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import { marked, type Token, type Tokens } from 'marked';

/** A relative link or #anchor in a markdown file that leads nowhere. */
export interface BrokenLink {
  file: string;
  href: string;
  reason: string;
}

/** The plain text of inline tokens, as GitHub renders a heading before slugging it. */
function plainText(tokens: Token[] | undefined, fallback: string): string {
  if (!tokens) return fallback;
  return tokens
    .map((t) => ('tokens' in t && t.tokens ? plainText(t.tokens, '') : 'text' in t ? String(t.text) : ''))
    .join('');
}

/** GitHub's anchors of a markdown file: heading slugs, with -1, -2 … for repeated headings. */
export function anchorsOf(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  marked.walkTokens(marked.lexer(markdown), (token) => {
    if (token.type === 'heading')
      anchors.add(slugger.slug(plainText((token as Tokens.Heading).tokens, (token as Tokens.Heading).text)));
  });
  return anchors;
}

/** Every link and image target of a markdown file. */
export function linksOf(markdown: string): string[] {
  const hrefs: string[] = [];
  marked.walkTokens(marked.lexer(markdown), (token) => {
    if (token.type === 'link' || token.type === 'image') hrefs.push((token as Tokens.Link).href);
  });
  return hrefs;
}

const isExternal = (href: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(href);

/**
 * Checks the relative links and anchors of `files` (paths relative to `root`). `pending` names pages that other work
 * is adding: a link to one of them passes while it is missing, and is checked like any other once it exists.
 */
export function brokenLinks(root: string, files: string[], pending: readonly string[] = []): BrokenLink[] {
  const broken: BrokenLink[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchors = (file: string): Set<string> => {
    let cached = anchorCache.get(file);
    if (!cached) anchorCache.set(file, (cached = anchorsOf(fs.readFileSync(path.join(root, file), 'utf8'))));
    return cached;
  };
  for (const file of files) {
    for (const href of linksOf(fs.readFileSync(path.join(root, file), 'utf8'))) {
      if (isExternal(href)) continue;
      const [target = '', anchor] = href.split('#', 2);
      const targetFile =
        target === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(target)));
      if (!fs.existsSync(path.join(root, targetFile))) {
        if (!pending.includes(targetFile)) broken.push({ file, href, reason: `${targetFile} does not exist` });
        continue;
      }
      if (anchor !== undefined && targetFile.endsWith('.md') && !anchors(targetFile).has(anchor)) {
        broken.push({ file, href, reason: `${targetFile} has no heading with the anchor #${anchor}` });
      }
    }
  }
  return broken;
}
