import type { EntityCandidate } from '../types.js';
import { quoteAt } from './markdown.js';
import { isSpecificName } from './names.js';
import { wordRanks } from '../offline/commonWords.js';

/** Bold labels of fields, not terms: `- **Type:** string`, `**Default:** 'localhost'`. */
const FIELD_LABELS = new Set(
  `type types default defaults related example examples note notes warning warnings tip tips experimental deprecated
  since see also returns return parameters params usage important kind caution danger info details info tl;dr
  tldr update updated edit source sources status version versions author authors date platform platforms result
  results input output answer question q a pros cons before after step recommended required optional wins issues
  compatibility yes no good bad`.split(/\s+/),
);
/** Labels that open a condition or a step, not a term: "**During dev:**", "**When building:**". */
const LEADING_WORDS = new Set(['during', 'when', 'before', 'after', 'if', 'for', 'with', 'without', 'in', 'on', 'by']);
const STOPWORDS = new Set(['a', 'an', 'the', 'and', 'or', 'of', 'for', 'to', 'in', 'on', 'with', 'by', 'from', 'at']);

// A bold phrase at the start of a line or list item; the separator decides whether it is a term.
const BOLD_START = /^[ \t]*(?:[-*+][ \t]+|\d+\.[ \t]+)?(\*\*|__)([^*_\n]{2,62}?)\1(.*)$/gm;
const SEPARATOR = /^[ \t]*(?::|—|–|-(?=\s))[ \t]*/;
// A definition list: "Term" on one line, ": definition" on the next.
const DEFINITION_LIST = /^([^\s:#>|`*-][^\n]{0,58})\n:[ \t]+(\S[^\n]*)$/gm;

/** Defined terms of a chunk (prose with code blanked): bold definitions, definition lists, glossary headings. */
export function extractDefinedTerms(prose: string, text: string, glossary: boolean): EntityCandidate[] {
  const terms: EntityCandidate[] = [];
  for (const m of prose.includes('**') || prose.includes('__') ? prose.matchAll(BOLD_START) : []) {
    const inside = (m[2] ?? '').trim();
    const rest = m[3] ?? '';
    const separator = SEPARATOR.exec(rest);
    if (!inside.endsWith(':') && !separator) continue;
    const term = inside.replace(/:$/, '').replace(/\s+/g, ' ').trim();
    const definition = (separator ? rest.slice(separator[0].length) : rest).trim();
    if (!isTerm(term) || !isDefinition(definition)) continue;
    terms.push(definedTerm(term, definition, quoteAt(text, m.index, m[0].length)));
  }
  for (const m of prose.includes('\n:') ? prose.matchAll(DEFINITION_LIST) : []) {
    const term = (m[1] ?? '').trim();
    const definition = (m[2] ?? '').trim();
    if (isTerm(term) && isDefinition(definition))
      terms.push(definedTerm(term, definition, quoteAt(text, m.index, m[0].length)));
  }
  if (glossary) {
    for (const m of prose.matchAll(/^#{2,4}[ \t]+(.+?)[ \t]*$/gm)) {
      const term = (m[1] ?? '').replace(/\{#[^}]*\}$/, '').trim();
      if (isTerm(term)) terms.push({ ...definedTerm(term, '', quoteAt(text, m.index, m[0].length)), confidence: 0.8 });
    }
  }
  return terms;
}

function isTerm(term: string): boolean {
  const words = term.split(/\s+/);
  if (words.length > 6 || term.length < 2 || /[.!?,;]$/.test(term) || !/^\p{Lu}/u.test(term)) return false;
  if (FIELD_LABELS.has(term.toLowerCase()) || LEADING_WORDS.has(words[0]?.toLowerCase() ?? '')) return false;
  // A one-word label ("**Compatibility**: …") defines a term only when the word itself names something.
  return words.length > 1 || isSpecificName(term);
}

/** Prose of a few words, not a value (`string`, a link only, a number). */
function isDefinition(definition: string): boolean {
  const words = definition
    .replace(/`[^`]*`/g, ' ')
    .replace(/\[[^\]]*\]\([^)]*\)/g, ' ')
    .split(/\s+/)
    .filter((w) => /\p{L}{2}/u.test(w));
  return words.length >= 3;
}

function definedTerm(term: string, definition: string, quote: string): EntityCandidate {
  const description = definition.replace(/\s+/g, ' ').slice(0, 300);
  return {
    name: term,
    type: 'Concept',
    kind: 'name',
    ...(description ? { description } : {}),
    quote,
    confidence: 0.85,
  };
}

const ACRONYM_IN_PARENS = /\(([A-Z][A-Za-z0-9]{1,9}?)s?\)/g;
const ACRONYM_THEN_PARENS = /\b([A-Z][A-Z0-9]{1,9})s?[ \t]+\(([^()\n]{3,120})\)/g;
const WORD = /^[\p{L}][\p{L}\p{N}'’-]*$/u;

/** "Hot Module Replacement (HMR)" and "HMR (Hot Module Replacement)": the expansion, with the acronym as alias. */
export function extractAcronyms(prose: string, text: string): EntityCandidate[] {
  const found: EntityCandidate[] = [];
  if (!prose.includes('(')) return found;
  for (const m of prose.matchAll(ACRONYM_IN_PARENS)) {
    const acronym = m[1] ?? '';
    const lineStart = prose.lastIndexOf('\n', m.index) + 1;
    const before = prose.slice(Math.max(lineStart, m.index - 160), m.index);
    if (!/[ \t]$/.test(before)) continue;
    const words: string[] = [];
    for (const token of before
      .trim()
      .split(/[ \t]+/)
      .reverse()) {
      if (!WORD.test(token) || words.length === 10) break;
      words.unshift(token);
    }
    const expansion = expansionFor(acronym, words);
    if (expansion) {
      const start = m.index - before.length + before.lastIndexOf(expansion);
      found.push(acronymCandidate(expansion, acronym, quoteAt(text, start, m.index + m[0].length - start)));
    }
  }
  for (const m of prose.matchAll(ACRONYM_THEN_PARENS)) {
    const acronym = m[1] ?? '';
    const words = (m[2] ?? '').trim().split(/[ \t]+/);
    if (words.length < 2 || !words.every((w) => WORD.test(w))) continue;
    const expansion = expansionFor(acronym, words);
    if (expansion && expansion === words.join(' ')) {
      found.push(acronymCandidate(expansion, acronym, quoteAt(text, m.index, m[0].length)));
    }
  }
  return found;
}

function acronymCandidate(name: string, acronym: string, quote: string): EntityCandidate {
  const aliases = namesOnlyThis(acronym) ? [acronym] : [];
  return { name, type: 'Concept', aliases, kind: 'name', quote, confidence: 0.85 };
}

/**
 * Whether an acronym can stand as a name: names are matched in text without regard to case, so an acronym that is a
 * common word ("OF" for osteitis fibrosa, "ARE", "IS", "US") would be found in nearly every passage.
 */
export function namesOnlyThis(acronym: string): boolean {
  return !wordRanks().isCommon(acronym.replace(/s$/, '').toLowerCase()) && !wordRanks().isCommon(acronym.toLowerCase());
}

/** The shortest run of trailing words whose initials spell the acronym (stopwords may be skipped), or undefined. */
function expansionFor(acronym: string, words: string[]): string | undefined {
  if (!/[A-Z].*[A-Z]/.test(acronym)) return undefined;
  const letters = acronym.toUpperCase();
  for (let k = 1; k <= words.length; k++) {
    const run = words.slice(words.length - k);
    const first = run[0] ?? '';
    if (STOPWORDS.has(first.toLowerCase())) continue;
    if (spells(letters, run)) return run.join(' ');
  }
  return undefined;
}

/** Whether the words' initials (a word may give its parts' initials too: Server-Side, JavaScript) spell `letters`. */
function spells(letters: string, words: string[]): boolean {
  const options = words.map((w) => {
    const parts = w.split('-').filter((p) => p !== '');
    const initials = parts.map((p) => p[0]?.toUpperCase() ?? '').join('');
    const capitals = (w.match(/\p{Lu}/gu) ?? []).join('');
    const first = w[0]?.toUpperCase() ?? '';
    return {
      initials: [...new Set([first, initials, capitals].filter((x) => x !== ''))],
      stop: STOPWORDS.has(w.toLowerCase()),
    };
  });
  const match = (i: number, at: number): boolean => {
    if (i === options.length) return at === letters.length;
    const option = options[i];
    if (!option) return false;
    if (option.stop && match(i + 1, at)) return true;
    return option.initials.some((init) => letters.startsWith(init, at) && match(i + 1, at + init.length));
  };
  return match(0, 0);
}
