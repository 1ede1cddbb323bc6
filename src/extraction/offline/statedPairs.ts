/**
 * Which pairs of names in one sentence the sentence states a relation between, rather than lists together.
 * "Kiss and Tell is a 1945 film starring Shirley Temple" states one: the two names are linked by a verb or a
 * preposition. "Storybook, SvelteKit and Astro support Vite" lists three names; no pair of it is stated, not even
 * SvelteKit–Vite, since a listed name stands for its list. A pair is stated when:
 * - the sentence is running text (not a list item, a table cell or a heading) naming at most MAX_STATED_MENTIONS
 *   names and terms (more: it enumerates them);
 * - neither name is an item of a list: a chain of names and nouns joined by commas and a conjunction ("and", "or"),
 *   or by slashes;
 * - the words between them hold a verb or a preposition, and no clause break (";", ":", ", and"); or the two are in
 *   one apposition, a chain joined by commas alone ("Nashville, Tennessee").
 */
import type { Sentence, Token } from './sentences.js';

/** A sentence naming more than this many things enumerates them. */
export const MAX_STATED_MENTIONS = 5;

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

const isJoiner = (token: Token): boolean =>
  token.pos === 'CCONJ' || LIST_JOINERS.has(token.text) || LIST_WORDS.has(token.lower);
const isNominal = (token: Token): boolean => token.code || token.pos === 'NOUN' || token.pos === 'PROPN';

/** How the words between two items join them: as items of one list or apposition chain, or not at all. */
function joinOf(between: readonly Token[]): 'list' | 'apposition' | undefined {
  const words = between.map((token) => token.lower).join(' ');
  const rest = words.includes('as well as') ? between.filter((t) => !['as', 'well'].includes(t.lower)) : between;
  if (rest.length === 0 || !rest.every((token) => isJoiner(token) || token.pos === 'DET')) return undefined;
  if (!rest.some(isJoiner)) return undefined;
  return rest.length === between.length && rest.every((token) => token.text === ',' || token.pos === 'DET')
    ? 'apposition'
    : 'list';
}

interface Chains {
  /** Names that are items of a list (a chain joined by "and", "or", a slash …). */
  listed: Set<string>;
  /** The apposition chain (joined by commas alone: "Nashville, Tennessee") of each name in one. */
  apposition: Map<string, number>;
}

/**
 * Chains of items (the names, and the nouns outside them) joined by commas, "and", "or", slashes: a chain with a
 * conjunction is a list ("Storybook, SvelteKit and Astro"); one of commas alone is an apposition ("McDowell County,
 * West Virginia, United States"; "Kiss and Tell, a film").
 */
function chainsOf(tokens: readonly Token[], located: readonly Located[]): Chains {
  const inName = new Set(located.flatMap((m) => Array.from({ length: m.end - m.start }, (_, i) => m.start + i)));
  const items: { name?: string; start: number; end: number }[] = [
    ...located,
    ...tokens.flatMap((token, i) => (!inName.has(i) && isNominal(token) ? [{ start: i, end: i + 1 }] : [])),
  ].sort((a, b) => a.start - b.start);
  const chains: { names: string[]; list: boolean }[] = [];
  let current = { names: [] as string[], list: false };
  for (const [i, item] of items.entries()) {
    const previous = items[i - 1];
    const join = previous && previous.end <= item.start ? joinOf(tokens.slice(previous.end, item.start)) : undefined;
    if (!join) {
      chains.push(current);
      current = { names: [], list: false };
    }
    if (join === 'list') current.list = true;
    if (item.name !== undefined) current.names.push(item.name);
  }
  chains.push(current);
  const result: Chains = { listed: new Set(), apposition: new Map() };
  chains.forEach((chain, index) => {
    for (const name of chain.names)
      if (chain.list) result.listed.add(name);
      else if (chain.names.length > 1) result.apposition.set(name, index);
  });
  return result;
}

/** Whether the words between two names link them in one statement: a verb or a preposition, no clause break. */
function links(between: readonly Token[]): boolean {
  if (between.some((token) => CLAUSE_BREAKS.has(token.text))) return false;
  // ", and" / ", but" joins two clauses: each says its own thing.
  if (between.some((token, i) => token.pos === 'CCONJ' && between[i - 1]?.text === ',')) return false;
  return between.some((token) => LINKING_TAGS.has(token.pos));
}

/** The pairs (pairKey) of `names`, all mentioned in `sentence`, that the sentence states a relation between. */
export function statedPairs(sentence: Sentence, names: readonly string[]): Set<string> {
  const stated = new Set<string>();
  const distinct = [...new Set(names)];
  if (sentence.block !== 'paragraph' || distinct.length < 2 || distinct.length > MAX_STATED_MENTIONS) return stated;
  const located = locate(sentence, distinct);
  if (!located) return stated;
  const { listed, apposition } = chainsOf(sentence.tokens, located);
  for (const [i, a] of located.entries()) {
    for (const b of located.slice(i + 1)) {
      if (listed.has(a.name) || listed.has(b.name) || b.start < a.end) continue;
      const chain = apposition.get(a.name);
      const appositive = chain !== undefined && chain === apposition.get(b.name);
      if (appositive || links(sentence.tokens.slice(a.end, b.start))) stated.add(pairKey(a.name, b.name));
    }
  }
  return stated;
}
