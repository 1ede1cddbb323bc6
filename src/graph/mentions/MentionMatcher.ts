import AhoCorasick from 'modern-ahocorasick';

/** A name or alias of an entity, to look for in text. */
export interface EntityName {
  entityId: string;
  name: string;
  aliases: string[];
  /** False: not matched in text (explicit links only); undefined keeps the recorded choice when names are written. */
  linkByName?: boolean;
}

/**
 * Finds entity names and aliases in text in one Aho-Corasick pass, case-insensitively and on whole words only, so
 * "ACH" does not match inside "achievement" or "ACH2" but does in "ACH's".
 *
 * Names and text are compared after `foldForMatching` (NFKC plus case folding). Whole words are decided by the
 * characters next to a match: a match that begins or ends with a letter, digit or underscore must not touch another
 * one there, so "C++" and ".NET" match as written. Scripts written without spaces (Han, kana, Thai and their
 * neighbours) need no boundary, since their words are not delimited.
 */
export class MentionMatcher {
  private readonly matcher: AhoCorasick<string> | undefined;

  constructor(names: readonly EntityName[]) {
    const patterns = names.flatMap((n) =>
      [n.name, ...n.aliases]
        .map((p) => foldForMatching(p.trim()))
        .filter((p) => p.length >= 2)
        .map((pattern) => ({ pattern, data: n.entityId })),
    );
    this.matcher = patterns.length > 0 ? new AhoCorasick(patterns) : undefined;
  }

  /** Ids of the entities mentioned in `text`. */
  entitiesIn(text: string): Set<string> {
    const found = new Set<string>();
    if (!this.matcher) return found;
    const folded = foldForMatching(text);
    for (const m of this.matcher.iterate(folded)) {
      if (m.data !== undefined && !found.has(m.data) && isWholeWord(folded, m.start, m.end)) found.add(m.data);
    }
    return found;
  }
}

/**
 * NFKC, then case folding (upper- then lower-casing, which folds "ß" with "SS" as full case folding does), then NFKC
 * again, natively on the whole text (a per-grapheme transform cost ten times more). Superscripts, subscripts and
 * other non-decimal numbers are kept as written, so "Ca²⁺" still names "Ca" instead of becoming the word "ca2".
 */
export function foldForMatching(text: string): string {
  return nfkcExceptOtherNumbers(nfkcExceptOtherNumbers(text).toUpperCase().toLowerCase());
}

function nfkcExceptOtherNumbers(text: string): string {
  return OTHER_NUMBER.test(text) ? text.replace(NOT_OTHER_NUMBER, (run) => run.normalize('NFKC')) : text.normalize('NFKC');
}

const OTHER_NUMBER = /\p{No}/u;
const NOT_OTHER_NUMBER = /[^\p{No}]+/gu;

/** Whether [start, end) of `text` is bounded by non-word characters at each edge that is itself a word character. */
function isWholeWord(text: string, start: number, end: number): boolean {
  if (start > 0 && joinsWord(codePointBefore(text, start)) && joinsWord(text.codePointAt(start))) return false;
  if (end < text.length && joinsWord(text.codePointAt(end)) && joinsWord(codePointBefore(text, end))) return false;
  return true;
}

/** The code point that ends just before UTF-16 offset `i`. */
function codePointBefore(text: string, i: number): number | undefined {
  const low = text.charCodeAt(i - 1);
  return low >= 0xdc00 && low <= 0xdfff && i >= 2 ? text.codePointAt(i - 2) : low;
}

const WORD = /[\p{L}\p{M}\p{Nd}\p{Nl}_]/u;
const UNSPACED = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}\p{sc=Tibetan}]/u;

/** Letters, marks, decimal digits and underscore of scripts that separate words with spaces. */
function joinsWord(cp: number | undefined): boolean {
  if (cp === undefined) return false;
  if (cp < 0x80) return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || cp === 0x5f;
  const ch = String.fromCodePoint(cp);
  return WORD.test(ch) && !UNSPACED.test(ch);
}
