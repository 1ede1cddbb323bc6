/**
 * Which pairs of names in one sentence the sentence states a relation between, rather than lists together.
 * "Kiss and Tell is a 1945 film starring Shirley Temple" states one: the two names are linked by a verb or a
 * preposition. "Storybook, SvelteKit and Astro support Vite" lists three names; no pair of it is stated, not even
 * SvelteKit–Vite, since a listed name stands for the whole list. A pair is stated when:
 * - the sentence is running text (not a list item, a table cell or a heading) naming at most MAX_STATED_MENTIONS
 *   names and terms;
 * - neither name is listed: joined to a neighbouring name only by commas, "and", "or", slashes and the like;
 * - the words between them hold a verb or a preposition, and no clause break (";", ":").
 */
import type { Sentence, Token } from './sentences.js';

/** A sentence naming more than this many things enumerates them. */
export const MAX_STATED_MENTIONS = 3;

/** Words that join the items of a list. */
const LIST_WORDS = new Set(['and', 'or', 'nor', '&', '/', 'plus', 'vs', 'vs.', 'versus']);
/** Punctuation that separates clauses or cells, not the two ends of one statement. */
const CLAUSE_BREAKS = new Set([';', ':', '|']);
/** Punctuation that joins the items of a list. */
const LIST_JOINERS = new Set([',', '/', '&']);
const LINKING_TAGS = new Set(['VERB', 'AUX', 'ADP']);

interface Located {
  name: string;
  /** Token indexes [start, end) of its first mention. */
  start: number;
  end: number;
}

/** The key of an unordered pair of names. */
export function pairKey(a: string, b: string): string {
  return [a, b].sort().join('\u0000');
}

/** Token index ranges of each name's first mention; undefined when one cannot be placed on whole tokens. */
function locate(sentence: Sentence, names: readonly string[]): Located[] | undefined {
  const starts: number[] = [];
  let rendered = '';
  for (const [index, token] of sentence.tokens.entries()) {
    rendered += index === 0 ? '' : token.space;
    starts.push(rendered.length);
    rendered += token.text;
  }
  const tokenAt = new Map(starts.map((at, index) => [at, index]));
  const located: Located[] = [];
  for (const name of names) {
    const at = rendered.indexOf(name);
    const start = tokenAt.get(at);
    if (at < 0 || start === undefined) return undefined;
    let end = start;
    while (end < starts.length && (starts[end] as number) < at + name.length) end += 1;
    located.push({ name, start, end });
  }
  return located.sort((a, b) => a.start - b.start);
}

/** Whether the words between two names only join items of a list ("Nuxt, SvelteKit and Astro", "Vite/Rollup"). */
function joinsList(between: readonly Token[]): boolean {
  const words = between.map((token) => token.lower).join(' ');
  const rest = words.includes('as well as') ? between.filter((t) => !['as', 'well'].includes(t.lower)) : between;
  return rest.every(
    (token) => token.pos === 'PUNCT' || token.pos === 'CCONJ' || token.pos === 'DET' || LIST_WORDS.has(token.lower),
  );
}

/** Whether the words between two names link them in one statement: a verb or a preposition, no clause break. */
function links(between: readonly Token[]): boolean {
  if (between.some((token) => CLAUSE_BREAKS.has(token.text))) return false;
  // ", and" / ", but" joins two clauses: each says its own thing.
  if (between.some((token, i) => token.pos === 'CCONJ' && between[i - 1]?.text === ',')) return false;
  return !joinsList(between) && between.some((token) => LINKING_TAGS.has(token.pos));
}

const isJoiner = (token: Token | undefined): boolean =>
  token !== undefined && (token.pos === 'CCONJ' || LIST_JOINERS.has(token.text));
const isNominal = (token: Token | undefined): boolean =>
  token !== undefined && (token.code || token.pos === 'NOUN' || token.pos === 'PROPN');

/**
 * Whether the mention [start, end) is an item of a list: joined by a comma, "and", "or", a slash to a noun or a name
 * on either side ("Bluesky, X, or Mastodon"). An apposition ("French Polynesia, an overseas territory") is not one.
 */
function inList(tokens: readonly Token[], start: number, end: number): boolean {
  let after = end;
  while (isJoiner(tokens[after])) after += 1;
  if (after > end && tokens[after]?.pos === 'DET' && tokens[after - 1]?.pos === 'CCONJ') after += 1;
  if (after > end && isNominal(tokens[after])) return true;
  let before = start - 1;
  while (isJoiner(tokens[before])) before -= 1;
  return before < start - 1 && isNominal(tokens[before]);
}

/** The pairs (pairKey) of `names`, all mentioned in `sentence`, that the sentence states a relation between. */
export function statedPairs(sentence: Sentence, names: readonly string[]): Set<string> {
  const stated = new Set<string>();
  const distinct = [...new Set(names)];
  if (sentence.block !== 'paragraph' || distinct.length < 2 || distinct.length > MAX_STATED_MENTIONS) return stated;
  const located = locate(sentence, distinct);
  if (!located) return stated;
  const between = (a: Located, b: Located) => sentence.tokens.slice(a.end, Math.max(a.end, b.start));
  const listed = new Set(located.filter((m) => inList(sentence.tokens, m.start, m.end)).map((m) => m.name));
  for (const [i, a] of located.entries()) {
    const b = located[i + 1];
    if (b && (b.start < a.end || joinsList(between(a, b)))) [a.name, b.name].forEach((name) => listed.add(name));
  }
  for (const [i, a] of located.entries()) {
    for (const b of located.slice(i + 1)) {
      if (listed.has(a.name) || listed.has(b.name) || b.start < a.end) continue;
      if (links(between(a, b))) stated.add(pairKey(a.name, b.name));
    }
  }
  return stated;
}
