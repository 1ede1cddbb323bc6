import { createHash } from 'node:crypto';
import { ENTITY_ID_PATTERN } from '../graph/types.js';

/** A name that reads as code: no space, and a `.`/`_`/`/`/`:` inside, a leading `-`/`@`/`$`, `()` or a camelCase hump. */
const IDENTIFIER_LIKE = /^(?:[-@$.][^\s]*|[^\s]*[A-Za-z0-9][._/:][A-Za-z0-9][^\s]*|[^\s]*\(\)|[^\s]*[a-z][A-Z][^\s]*)$/;

/** True when `name` reads as a code identifier (its key keeps its punctuation). */
export function isIdentifierLike(name: string): boolean {
  return IDENTIFIER_LIKE.test(name.trim());
}

/** Case fold, compatibility forms (NFKC) and accents off. */
function fold(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .normalize('NFC');
}

/** The singular of an English word, by suffix (conservative: short words and `-ss`, `-us`, `-is` stay). */
export function singular(word: string): string {
  if (word.length <= 3 || /\d$/.test(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ss|x|ch|sh|zz)es$/.test(word)) return word.slice(0, -2);
  if (/(?:ss|us|is|ous)$/.test(word)) return word;
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}

/**
 * The normalised form two names of one thing share: NFKC, case folded, accents off; prose names also lose punctuation
 * and the last word's plural ("Hot-Module Replacements" → "hot module replacement"); identifiers keep their
 * punctuation but lose a trailing `()` ("defineConfig()" → "defineconfig"). '' when nothing is left.
 */
export function nameKey(name: string): string {
  let key = keys.get(name);
  if (key === undefined) {
    if (keys.size >= KEYS_KEPT) keys = new Map();
    key = computeNameKey(name);
    keys.set(name, key);
  }
  return key;
}

/** Keys of recent names: a batch's resolution asks for one name's key many times (candidates, look-ups, matches). */
const KEYS_KEPT = 50_000;
let keys = new Map<string, string>();

function computeNameKey(name: string): string {
  const trimmed = name.trim();
  if (isIdentifierLike(trimmed)) return fold(trimmed).replace(/\(\)$/, '');
  const words = fold(trimmed)
    .replace(/[^\p{L}\p{N}+#]+/gu, ' ')
    .trim()
    .split(' ')
    .filter((w) => w !== '');
  const last = words.pop();
  if (last === undefined) return '';
  // An acronym's plural ("APIs", "URLs") is its acronym and an s, whatever singular() says of "apis".
  const acronymPlural = /\b\p{Lu}{2,}s$/u.test(trimmed);
  return [...words, acronymPlural ? last.slice(0, -1) : singular(last)].join(' ');
}

/** The distinct non-empty keys of a name and its aliases, the name's first. */
export function nameKeys(name: string, aliases: readonly string[] = []): string[] {
  return [...new Set([name, ...aliases].map(nameKey).filter((k) => k !== ''))];
}

/** Longest slug kept in an extracted entity id; longer keys end in a hash. */
const MAX_SLUG = 80;

/**
 * The id of a new extracted entity: `x:<type lower>:<slug of key>` in the default space, `x@<space>:<type lower>:<slug>`
 * in another (entity ids are unique across spaces, so two spaces extracting one name need two ids); deterministic, so
 * every run agrees on it.
 */
export function extractedEntityId(type: string, key: string, space = 'default'): string {
  const slug = key
    .replace(/[^a-z0-9._\-/@#+]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^[-.]+|-+$/g, '');
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 12);
  const tail = slug === '' ? hash : slug.length > MAX_SLUG ? `${slug.slice(0, MAX_SLUG)}-${hash}` : slug;
  const prefix = space === 'default' ? 'x' : `x@${space}`;
  const id = `${prefix}:${type.toLowerCase()}:${tail}`;
  return ENTITY_ID_PATTERN.test(id) ? id : `${prefix}:${type.toLowerCase()}:${hash}`;
}

/** The trigrams of a key (padded words, as pg_trgm makes them). */
function trigrams(key: string): Set<string> {
  const out = new Set<string>();
  for (const word of key.split(/[^\p{L}\p{N}]+/u).filter((w) => w !== '')) {
    const padded = `  ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3));
  }
  return out;
}

/** What fuzzy matching compares of a key: its trigrams, its numbers and its word count. */
interface KeyFeatures {
  trigrams: Set<string>;
  digits: string;
  words: number;
}

/** Features of recent keys: resolving a batch compares each name with many recorded ones, again and again. */
const FEATURES_KEPT = 50_000;
let features = new Map<string, KeyFeatures>();

function featuresOf(key: string): KeyFeatures {
  let f = features.get(key);
  if (!f) {
    if (features.size >= FEATURES_KEPT) features = new Map();
    f = { trigrams: trigrams(key), digits: (key.match(/\d+/g) ?? []).join(' '), words: key.split(' ').length };
    features.set(key, f);
  }
  return f;
}

/** Trigram similarity of two keys, 0 to 1 (shared trigrams ÷ all trigrams, as pg_trgm's `similarity`). */
export function trigramSimilarity(a: string, b: string): number {
  return similarityOf(featuresOf(a).trigrams, featuresOf(b).trigrams);
}

function similarityOf(ta: ReadonlySet<string>, tb: ReadonlySet<string>): number {
  if (ta.size === 0 || tb.size === 0) return 0;
  let shared = 0;
  for (const t of ta) if (tb.has(t)) shared++;
  return shared / (ta.size + tb.size - shared);
}

/**
 * True when `a` and `b` may be fuzzy variants of one name: similar enough, and alike in what similarity ignores
 * (their numbers: "Vue 2" is not "Vue 3"; and their word count).
 */
export function fuzzyMatches(a: string, b: string, threshold: number): boolean {
  if (threshold >= 1 || a === b) return a === b;
  const fa = featuresOf(a);
  const fb = featuresOf(b);
  if (fa.digits !== fb.digits || fa.words !== fb.words) return false;
  // Shared ÷ all is at most the smaller set ÷ the larger: most pairs fail on their sizes alone.
  const [small, large] = [fa.trigrams.size, fb.trigrams.size].sort((x, y) => x - y) as [number, number];
  if (small < threshold * large) return false;
  return similarityOf(fa.trigrams, fb.trigrams) >= threshold;
}

/**
 * True when a name is specific enough that text naming it should link to it: several words, a code identifier, an
 * acronym or a word with inner capitals ("GraphQL"). A single plain word ("Features") is not.
 */
export function isSpecificName(name: string): boolean {
  const trimmed = name.trim();
  if (/\s/.test(trimmed)) return true;
  if (isIdentifierLike(trimmed)) return true;
  return /^\p{Lu}{2,}\d*$/u.test(trimmed) || /^\p{L}+\p{Lu}/u.test(trimmed.slice(1)) || /\d/.test(trimmed);
}
