import AhoCorasick from 'modern-ahocorasick';
import type { Origin } from '../types.js';

/** A name or alias of an entity, to look for in text. */
export interface EntityName {
  entityId: string;
  name: string;
  aliases: string[];
  /** False: not matched in text (explicit links only); undefined keeps the recorded choice when names are written. */
  linkByName?: boolean;
  /** The entity's type and origin, recorded for extraction's entity resolution (undefined: keep what is recorded). */
  type?: string;
  origin?: Origin;
}

/** One whole-word occurrence of a name or alias in (folded) text. */
export interface NameMatch {
  entityId: string;
  /** UTF-16 offsets in the folded text. */
  start: number;
  end: number;
  /** The folded pattern that matched. */
  pattern: string;
}

/**
 * The forms of a name to look for, as written: the name and its aliases, each also without a trailing parenthetical
 * disambiguator ("Mercury (planet)" is written "Mercury" in running text).
 */
export function nameForms(name: string, aliases: readonly string[]): string[] {
  return [
    ...new Set(
      [name, ...aliases].flatMap((p) => {
        const bare = p.replace(TRAILING_PARENTHETICAL, '').trim();
        return bare !== p.trim() && bare.length >= 2 ? [p.trim(), bare] : [p.trim()];
      }),
    ),
  ];
}

/** `nameForms`, folded for matching, at least two characters each. */
export function namePatterns(name: string, aliases: readonly string[]): string[] {
  return [
    ...new Set(
      nameForms(name, aliases)
        .map(foldForMatching)
        .filter((p) => p.length >= 2),
    ),
  ];
}

const TRAILING_PARENTHETICAL = /\s*\([^()]*\)\s*$/u;

/**
 * Finds entity names and aliases in text in one Aho-Corasick pass, case- and accent-insensitively and on whole words
 * only, so "ACH" does not match inside "achievement" or "ACH2" but does in "ACH's". A name with a trailing
 * parenthetical ("Up (film)") also matches without it.
 *
 * Names and text are compared after `foldForMatching` (NFKC, case folding, Latin-style diacritics removed). Whole words
 * are decided by the characters next to a match: a match that begins or ends with a letter, digit or underscore must
 * not touch another one there, so "C++" and ".NET" match as written. Scripts written without spaces (Han, kana, Thai
 * and their neighbours) need no boundary, since their words are not delimited.
 */
export class MentionMatcher {
  private readonly matcher: AhoCorasick<Pattern> | undefined;

  /** A matcher of `names`; `patterns`, when given, are theirs already (`matchPatterns`), so they are not folded again. */
  constructor(names: readonly EntityName[], patterns: readonly MatchPattern[] = names.flatMap(matchPatterns)) {
    this.matcher = patterns.length > 0 ? new AhoCorasick([...patterns]) : undefined;
  }

  /** Ids of the entities mentioned in `text`. */
  entitiesIn(text: string): Set<string> {
    return new Set(this.matchesIn(text).map((m) => m.entityId));
  }

  /** Every whole-word occurrence of a name in `text` (offsets in the folded text), in order of its end. */
  matchesIn(text: string): NameMatch[] {
    return this.matchesInFolded(text, foldForMatching(text)).sort(byPosition);
  }

  /** `matchesIn` over text already folded (`foldForMatching(text)`), in no particular order. */
  matchesInFolded(text: string, folded: string): NameMatch[] {
    if (!this.matcher) return [];
    // Offsets map back to the original text only when folding kept its length (nearly always).
    const aligned = folded.length === text.length;
    const out: NameMatch[] = [];
    for (const m of this.matcher.iterate(folded)) {
      if (m.data === undefined || !isWholeWord(folded, m.start, m.end)) continue;
      // A one-word name stripped of its disambiguator ("Big" of "Big (film)") is often a common word: only a
      // capitalised occurrence counts.
      if (m.data.capitalOnly && aligned && !isUpperCase(text.codePointAt(m.start))) continue;
      out.push({ entityId: m.data.entityId, start: m.start, end: m.end, pattern: folded.slice(m.start, m.end) });
    }
    return out;
  }
}

/**
 * Orders matches by end, then start (the longer first), then entity id: one order whatever order the names were
 * given in, so matchers built from the same names in any order, or in parts, agree.
 */
export function byPosition(a: NameMatch, b: NameMatch): number {
  return a.end - b.end || a.start - b.start || (a.entityId < b.entityId ? -1 : a.entityId > b.entityId ? 1 : 0);
}

interface Pattern {
  entityId: string;
  capitalOnly: boolean;
}

/** A folded form of an entity's name and how it matches. */
export interface MatchPattern {
  pattern: string;
  data: Pattern;
}

/** The patterns a matcher looks for to find `name` (its `namePatterns`). */
export function matchPatterns(name: EntityName): MatchPattern[] {
  const full = new Set([name.name, ...name.aliases].map((p) => foldForMatching(p.trim())));
  return namePatterns(name.name, name.aliases).map((pattern) => ({
    pattern,
    data: { entityId: name.entityId, capitalOnly: !full.has(pattern) && !/\s/u.test(pattern) },
  }));
}

function isUpperCase(cp: number | undefined): boolean {
  if (cp === undefined) return false;
  const ch = String.fromCodePoint(cp);
  return ch !== ch.toLowerCase();
}

/**
 * NFKC, then case folding (upper- then lower-casing, which folds "ß" with "SS" as full case folding does), then NFKC
 * again, natively on the whole text (a per-grapheme transform cost ten times more); then combining diacritics
 * (U+0300–U+036F) go, so "Beyoncé" and "Beyonce" fold alike. Marks of other scripts stay: they change words there.
 * Superscripts, subscripts and other non-decimal numbers are kept as written, so "Ca²⁺" still names "Ca" instead of
 * becoming the word "ca2".
 */
export function foldForMatching(text: string): string {
  const folded = nfkcExceptOtherNumbers(nfkcExceptOtherNumbers(text).toUpperCase().toLowerCase());
  return LATIN_DIACRITIC_BASE.test(folded) ? stripDiacritics(folded) : folded;
}

/** Letters that NFD splits into a base and a U+0300–U+036F mark; cheap test before the slower path. */
// eslint-disable-next-line no-misleading-character-class -- the marks are a range of their own, not joined to a letter
const LATIN_DIACRITIC_BASE = /[\u00c0-\u024f\u0300-\u036f\u0370-\u03ff\u0400-\u04ff\u1e00-\u1fff]/u;
const COMBINING_DIACRITICS = /[\u0300-\u036f]/gu;

function stripDiacritics(text: string): string {
  return text.normalize('NFD').replace(COMBINING_DIACRITICS, '').normalize('NFC');
}

function nfkcExceptOtherNumbers(text: string): string {
  return OTHER_NUMBER.test(text)
    ? text.replace(NOT_OTHER_NUMBER, (run) => run.normalize('NFKC'))
    : text.normalize('NFKC');
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
const UNSPACED =
  /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}\p{sc=Tibetan}]/u;

/** Letters, marks, decimal digits and underscore of scripts that separate words with spaces. */
function joinsWord(cp: number | undefined): boolean {
  if (cp === undefined) return false;
  if (cp < 0x80)
    return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || cp === 0x5f;
  const ch = String.fromCodePoint(cp);
  return WORD.test(ch) && !UNSPACED.test(ch);
}
