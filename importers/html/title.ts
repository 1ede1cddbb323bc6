/** What else the page says, to tell a site suffix from part of the title. */
export interface TitleHints {
  /** og:site_name or application-name. */
  siteName: string | undefined;
  /** Texts of the page's h1 elements. */
  headings: string[];
}

// Readability's separators, with the en and em dashes sites use as often; spaces around them tell them from hyphens.
const SEPARATOR = / [|\-–—\\/>»] /g;
const HIERARCHICAL = / [\\/>»] /;
const LEADING_PART = /^[^|\-–—\\/>»]*[|\-–—\\/>»]/;
const SEPARATOR_CHARS = /[|\-–—\\/>»]+/g;

const wordCount = (text: string): number => text.trim().split(/\s+/).length;
/** Lower-case letters and digits only: "Factorio.com" and "factorio" compare by `sameName`. */
const squash = (text: string): string =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^\p{L}\p{N}]+/gu, '');

function sameName(part: string, name: string | undefined): boolean {
  if (name === undefined) return false;
  const a = squash(part);
  const b = squash(name);
  // `Factorio` names the site `Factorio.com`, `The Guardian` the site `the Guardian`.
  return a !== '' && (a === b || b === `${a}com` || b === `${a}org` || b === `the${a}` || a === `the${b}`);
}

/** The title before its last separator, and the part after it; undefined when there is no separator. */
function splitLast(title: string): { head: string; tail: string } | undefined {
  const separators = Array.from(title.matchAll(SEPARATOR));
  const last = separators.at(-1);
  if (last?.index === undefined) return undefined;
  return { head: title.slice(0, last.index).trim(), tail: title.slice(last.index + last[0].length).trim() };
}

/**
 * The part before the last separator when the part after it names the site or the rest is the page's own heading
 * ("Mozilla - Wikipedia" on a page whose h1 is "Mozilla"); undefined when neither says so.
 */
function knownSuffixStripped(title: string, hints: TitleHints): string | undefined {
  const parts = splitLast(title);
  if (!parts || parts.head === '') return undefined;
  if (sameName(parts.tail, hints.siteName)) return parts.head;
  const head = squash(parts.head);
  return hints.headings.some((h) => squash(h) === head) ? parts.head : undefined;
}

/**
 * Readability's rule for a `<title>`: drop the part after the last separator; when fewer than three words are left,
 * drop the first part instead; when four words or fewer remain and the separators were not hierarchical
 * (`\ / > »`), or more than one word went, keep the whole title.
 */
function readabilityStripped(title: string): string {
  const parts = splitLast(title);
  if (!parts) return title;
  const hierarchical = HIERARCHICAL.test(title);
  let stripped = parts.head;
  if (wordCount(stripped) < 3) stripped = title.replace(LEADING_PART, '');
  stripped = stripped.replace(/\s+/g, ' ').trim();
  const words = wordCount(stripped);
  if (words <= 4 && (!hierarchical || words !== wordCount(title.replace(SEPARATOR_CHARS, '')) - 1)) return title;
  return stripped;
}

/** A `<title>` without its site suffix ("… - BBC News", "… | Site"), the way Readability strips it. */
export function pageTitleWithoutSite(title: string, hints: TitleHints): string {
  return knownSuffixStripped(title, hints) ?? readabilityStripped(title);
}

/**
 * An og:title without a site suffix. Authors write og:title for sharing, so only a suffix that names the site (or
 * leaves the page's heading) goes: "How we designed Dropbox's ATF - an async task framework" stays whole.
 */
export function openGraphTitleWithoutSite(title: string, hints: TitleHints): string {
  return knownSuffixStripped(title, hints) ?? title;
}
