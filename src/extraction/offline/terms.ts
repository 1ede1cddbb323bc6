/**
 * Key terms in a sentence: noun phrases ("hot module replacement", "dependency pre-bundling", "server-side
 * rendering") that are specific: two to four words with at least one word outside the common English words, or one
 * word absent from the word list ("bundler") or an acronym ("HMR"). Capitalised words belong to names, code spans
 * to neither.
 */
import type { WordRanks } from './commonWords.js';
import type { Sentence, Token } from './sentences.js';

export interface FoundTerm {
  term: string;
  words: number;
}

const MAX_TERM_WORDS = 4;
/** Longer "words" are data (hashes, base64), not language. */
const MAX_WORD_LENGTH = 40;
/** Adjectives that qualify any noun and make no term of it ("new project", "same module"). */
const GENERIC_MODIFIERS = new Set(
  (
    'new other same different many several various own certain specific whole entire additional following previous ' +
    'next first last main more most such few possible available existing current single multiple simple good better ' +
    'best easy important large small big full further similar particular general common usual actual real extra ' +
    'separate necessary above below given initial final individual specified corresponding respective relevant'
  ).split(' '),
);

type Role = 'noun' | 'modifier' | 'gerund' | 'none';

/** A word of a phrase after joining hyphenated parts ("server" "-" "side" → "server-side"). */
interface Word {
  text: string;
  lower: string;
  role: Role;
  pos: string;
  parts: string[];
}

function isAcronym(text: string): boolean {
  return /^\p{Lu}[\p{Lu}\d]{1,5}s?$/u.test(text);
}

function roleOf(token: Token, sentenceStart: boolean, ranks: WordRanks): Role {
  if (
    GENERIC_MODIFIERS.has(token.lower) ||
    token.code ||
    token.text.length > MAX_WORD_LENGTH ||
    token.type !== 'word' ||
    !/^[\p{L}][\p{L}\d'-]*$/u.test(token.text)
  )
    return 'none';
  const lowerCase = token.text === token.lower;
  const acronym = isAcronym(token.text);
  // A sentence's capitalised first word may start a term when it is an English word ("Dependency", not "Vite").
  const capitalisedFirst = sentenceStart && /^\p{Lu}\p{Ll}+$/u.test(token.text) && !ranks.isRare(token.lower);
  if (!lowerCase && !acronym && !capitalisedFirst) return 'none';
  if (token.pos === 'NOUN' || (token.pos === 'PROPN' && (acronym || capitalisedFirst))) return 'noun';
  if (token.pos === 'ADJ') return 'modifier';
  if (token.pos === 'VERB' && /ing$/.test(token.lower)) return 'gerund';
  return 'none';
}

/** Joins "a" "-" "b" (no spaces) into one word whose role is the last part's. */
function toWords(tokens: readonly Token[], ranks: WordRanks): Word[] {
  const firstWord = tokens.findIndex((token) => token.type === 'word' || token.code);
  const words: Word[] = [];
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index] as Token;
    const next = tokens[index + 1];
    const previous = words[words.length - 1];
    const nextRole = next ? roleOf(next, false, ranks) : 'none';
    if (
      token.text === '-' &&
      token.space === '' &&
      next?.space === '' &&
      previous &&
      previous.role !== 'none' &&
      nextRole !== 'none'
    ) {
      words[words.length - 1] = {
        text: `${previous.text}-${next.text}`,
        lower: `${previous.lower}-${next.lower}`,
        role: nextRole === 'gerund' ? 'noun' : nextRole,
        pos: next.pos,
        parts: [...previous.parts, ...next.lower.split('-')],
      };
      index += 1;
      continue;
    }
    // Half of a compound that cannot join ("third" in "third-party") leaves the other half no term either.
    const hyphenBefore = tokens[index - 1]?.text === '-' && token.space === '';
    const role = hyphenBefore ? 'none' : roleOf(token, index === firstWord, ranks);
    if (token.text === '-' && token.space === '' && previous) previous.role = 'none';
    words.push({
      text: token.text,
      lower: token.lower,
      role,
      pos: token.code ? 'CODE' : token.pos,
      parts: token.lower.split('-'),
    });
  }
  return words;
}

const isCommonWord = (word: Word, ranks: WordRanks) => word.parts.every((part) => ranks.isCommon(part));

/**
 * Trims a run of phrase words to a noun phrase: no leading gerund, ends on a noun or on a rare gerund after a noun
 * ("dependency pre-bundling", not "CLI using"); a common adjective before one noun is dropped.
 */
function trimPhrase(run: readonly Word[], ranks: WordRanks): Word[] {
  let phrase = [...run];
  while (phrase.length > 0 && phrase[0]?.role === 'gerund') phrase = phrase.slice(1);
  while (phrase.length > 0) {
    const last = phrase[phrase.length - 1] as Word;
    // A gerund ends a term after a noun ("dependency pre-bundling"), not after an adjective ("worth supporting").
    const gerundEnd =
      last.role === 'gerund' && phrase[phrase.length - 2]?.role === 'noun' && !isCommonWord(last, ranks);
    if (last.role === 'noun' || gerundEnd) break;
    phrase = phrase.slice(0, -1);
  }
  // A leading participle qualifies, it does not name ("resolved plugins", "listed dependencies").
  while (phrase.length > 1 && /ed$/.test(phrase[0]?.lower ?? '')) phrase = phrase.slice(1);
  // Gerunds inside a phrase are verbs ("modules using"), except as its last word.
  const innerGerund = phrase.findIndex((word, index) => word.role === 'gerund' && index < phrase.length - 1);
  if (innerGerund >= 0) return trimPhrase(phrase.slice(innerGerund + 1), ranks);
  // A common adjective and one noun qualify the noun ("valuable feedback"); in a longer phrase ("hot module
  // replacement") the adjective belongs to the name.
  const first = phrase[0];
  if (phrase.length === 2 && first?.role === 'modifier' && isCommonWord(first, ranks)) return phrase.slice(1);
  return phrase.length > MAX_TERM_WORDS ? phrase.slice(-MAX_TERM_WORDS) : phrase;
}

/**
 * Nouns that, heading a phrase, make it an aspect, a description or a group of something rather than a thing: "plugin
 * side", "affected module list", "compatibility issues", "plugin authors", "CLI option", "dependency changes", "plugin
 * data". A plural head counts as its singular.
 */
const GENERIC_HEADS = new Set(
  (
    'side way list kind sort case part issue problem improvement change feature support result thing stuff area ' +
    'aspect point level bit lot number amount detail matter option version value step reason purpose example ' +
    'author user maintainer adopter partner project link discussion data field key setting information ' +
    'documentation docs type time order set'
  ).split(' '),
);

function hasGenericHead(phrase: readonly Word[]): boolean {
  const head = phrase[phrase.length - 1]?.parts.at(-1) ?? '';
  return GENERIC_HEADS.has(head) || GENERIC_HEADS.has(head.replace(/s$/, ''));
}

function isSpecific(phrase: readonly Word[], ranks: WordRanks): boolean {
  if (GENERIC_HEADS.has(phrase[phrase.length - 1]?.lower ?? '')) return false;
  // The rare word must name the thing: "consistent way" and "maximum number" are no terms.
  if (phrase.length > 1) {
    if (hasGenericHead(phrase)) return false;
    return phrase.some((word) => word.role !== 'modifier' && word.parts.some((part) => !ranks.isCommon(part)));
  }
  const word = phrase[0];
  if (!word || word.role !== 'noun') return false;
  // Two letters stand for too many things ("CI", "MS", "PR"); a lone plural names a kind, not a thing ("frameworks").
  if (isAcronym(word.text)) return word.text.replace(/s$/, '').length > 2 && !ranks.isCommon(word.lower);
  if (/[^s]s$/.test(word.lower)) return false;
  // Participles the tagger took for nouns ("invalidated") are no terms.
  if (word.text !== word.lower || /ed$/.test(word.lower)) return false;
  const rareParts = word.parts.filter((part) => part.length > 2 && !ranks.isCommon(part));
  return word.lower.length >= 4 && rareParts.length > 0 && ranks.isRare(word.lower);
}

/** Words that open an object: a phrase's last word followed by one of them is a verb ("starring Shirley Temple"). */
const OBJECT_OPENERS = new Set(['DET', 'PRON', 'PROPN', 'NUM', 'CODE']);

function dropVerbBeforeObject(run: readonly Word[], next: Word | undefined): Word[] {
  if (!next || !OBJECT_OPENERS.has(next.pos)) return [...run];
  const last = run[run.length - 1];
  return last && (last.role === 'gerund' || run.length > 1) ? run.slice(0, -1) : [...run];
}

/** The key terms of one sentence, in order of appearance. */
export function findTerms(sentence: Sentence, ranks: WordRanks): FoundTerm[] {
  const terms: FoundTerm[] = [];
  const words = toWords(sentence.tokens, ranks);
  let start = 0;
  while (start < words.length) {
    if (words[start]?.role === 'none') {
      start += 1;
      continue;
    }
    let end = start;
    while (end < words.length && words[end]?.role !== 'none') end += 1;
    const phrase = trimPhrase(dropVerbBeforeObject(words.slice(start, end), words[end]), ranks);
    if (phrase.length > 0 && isSpecific(phrase, ranks)) {
      terms.push({ term: phrase.map((word) => word.text).join(' '), words: phrase.length });
    }
    start = end;
  }
  return terms;
}
