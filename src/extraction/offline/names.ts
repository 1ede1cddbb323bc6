/**
 * Proper names in a sentence: runs of capitalised words ("Shirley Temple", "Columbia Pictures"), joined across
 * "of", "de", "von" … ("University of Oxford") and across "and" between two single words that are not names by
 * themselves ("Kiss and Tell", not "Vite and Rollup"). A single word is a name only when it is not the first word of
 * its sentence, is tagged a proper noun, and is not a common word, a plural or a demonym ("Ghana", "Rollup"; not
 * "English", "Releases", "Canadian").
 */
import type { WordRanks } from './commonWords.js';
import type { Sentence, Token } from './sentences.js';

export interface FoundName {
  name: string;
  type: string;
  /** Words in the name. */
  words: number;
}

const CONNECTORS = new Set('of de del della des di da du la le van von der den'.split(' '));
/** Longer "words" are data (hashes, base64), not names. */
const MAX_WORD_LENGTH = 40;
const ARTICLE_AFTER_CONNECTOR = new Set(['the']);
const NOT_NAMES = new Set(['i', "i'm", 'ok']);

const ORGANIZATION_WORDS = new Set(
  (
    'inc corp corporation company co ltd llc plc gmbh university college institute foundation association society ' +
    'party council committee ministry department agency bank group records pictures studios studio club church ' +
    'school academy press network airlines army navy court parliament congress senate commission union league ' +
    'federation organization organisation fc team band orchestra hospital laboratory labs government'
  ).split(' '),
);
const LOCATION_WORDS = new Set(
  (
    'river lake mountain mountains island islands county city province valley bay sea ocean street avenue road ' +
    'park bridge district region desert canyon peninsula states kingdom republic gulf strait coast village town'
  ).split(' '),
);
const PERSON_TITLES = new Set(
  'mr mrs ms dr sir lady lord king queen prince princess president senator governor saint pope general captain'.split(
    ' ',
  ),
);

function isCapitalised(token: Token): boolean {
  return (
    !token.code &&
    token.type === 'word' &&
    token.text.length <= MAX_WORD_LENGTH &&
    /^\p{Lu}/u.test(token.text) &&
    !NOT_NAMES.has(token.lower)
  );
}

function isAcronym(token: Token): boolean {
  return /^\p{Lu}[\p{Lu}\d]+s?$/u.test(token.text);
}

/** Where the run of name words starting at `start` ends (exclusive), following connectors and "and". */
function runEnd(tokens: readonly Token[], start: number): number {
  let end = start + 1;
  for (;;) {
    const next = tokens[end];
    if (!next) return end;
    if (isCapitalised(next) && next.space !== '') {
      end += 1;
      continue;
    }
    // "Server-Side Rendering": a hyphen without spaces between capitalised words is inside the name.
    const joined = tokens[end + 1];
    if (next.text === '-' && next.space === '' && joined && joined.space === '' && isCapitalised(joined)) {
      end += 2;
      continue;
    }
    const skip = connectorLength(tokens, start, end);
    if (skip === 0) return end;
    end += skip + 1;
  }
}

/** How many connector tokens at `at` join the run [start, at) to a following capitalised word (0: none). */
function connectorLength(tokens: readonly Token[], start: number, at: number): number {
  const connector = tokens[at];
  if (!connector || connector.code) return 0;
  if (CONNECTORS.has(connector.text)) {
    const article = tokens[at + 1];
    const articleLength = article && ARTICLE_AFTER_CONNECTOR.has(article.text) ? 1 : 0;
    const after = tokens[at + 1 + articleLength];
    return after && isCapitalised(after) ? 1 + articleLength : 0;
  }
  if (connector.text !== 'and' || at - start !== 1) return 0;
  const left = tokens[start];
  const right = tokens[at + 1];
  const beyond = tokens[at + 2];
  if (!left || !right || !isCapitalised(right) || (beyond && isCapitalised(beyond))) return 0;
  // "Kiss and Tell": a title whose words are not names by themselves; "Vite and Rollup" stays two names.
  return left.pos !== 'PROPN' || right.pos !== 'PROPN' ? 1 : 0;
}

function nameType(words: readonly Token[]): string {
  const first = words[0]?.lower ?? '';
  const last = words[words.length - 1]?.lower ?? '';
  if (PERSON_TITLES.has(first.replace(/\.$/, '')) && words.length > 1) return 'Person';
  if (ORGANIZATION_WORDS.has(last) || (ORGANIZATION_WORDS.has(first) && words.length > 2)) return 'Organization';
  if (LOCATION_WORDS.has(last) || first === 'mount' || first === 'lake') return 'Location';
  return 'Concept';
}

/**
 * Trims a run to a name: drops a sentence-initial word that is not a proper noun, or that is a common word before
 * another capitalised one (an imperative: "Select Create", "Use CSS"; the tagger calls it a proper noun), and a
 * trailing connector.
 */
function trimRun(tokens: readonly Token[], start: number, end: number, firstWord: number, ranks: WordRanks): Token[] {
  let words = tokens.slice(start, end);
  const first = words[0];
  const second = words[1];
  const commonOpener =
    first !== undefined && second !== undefined && isCapitalised(second) && ranks.isCommon(first.lower);
  if (start === firstWord && (first?.pos !== 'PROPN' || commonOpener)) words = words.slice(1);
  // "The Rolldown binary": an article opens a noun phrase, not a name.
  while (words.length > 0 && (!isCapitalised(words[0] as Token) || words[0]?.pos === 'DET')) words = words.slice(1);
  while (words.length > 0 && !isCapitalised(words[words.length - 1] as Token)) words = words.slice(0, -1);
  return words;
}

/** A generated id ("EZ-rFJn4pDW3tUvp"): letters of both cases mixed with digits. */
function looksGenerated(token: Token): boolean {
  return /\d/.test(token.text) && /\p{Ll}/u.test(token.text) && /\p{Lu}.*\p{Lu}/u.test(token.text);
}

function acceptName(words: readonly Token[], atSentenceStart: boolean, ranks: WordRanks): boolean {
  if (words.length === 0 || words.every(isAcronym) || words.some(looksGenerated)) return false;
  if (words.length > 1) {
    // "Strongly Cached" opening a sentence is emphasis, not a name; "Kiss and Tell" is a title.
    const joined = words.some((word) => word.text === 'and' || CONNECTORS.has(word.text));
    const allCommon = words.every((word) => ranks.isCommon(word.lower));
    return words.length <= 8 && (joined || !atSentenceStart || !allCommon);
  }
  const word = words[0] as Token;
  // A capitalised English plural mid-sentence ("Environments", "Releases") names a section, not a thing.
  const plural = word.lower.endsWith('s') && !ranks.isRare(word.lower);
  // Demonyms and language names ("Swedish", "Canadian", "European") qualify other names.
  const demonym = /(?:an|ish|ese)$/.test(word.lower) && !ranks.isRare(word.lower);
  return (
    !atSentenceStart &&
    !plural &&
    !demonym &&
    word.pos === 'PROPN' &&
    word.text.length > 1 &&
    !ranks.isCommon(word.lower)
  );
}

function joinWords(words: readonly Token[]): string {
  return words.map((word, index) => (index === 0 ? word.text : word.space + word.text)).join('');
}

/**
 * How many words at `start` are a heading in capitals run into the text ("METHODS In", "AIMS AND OBJECTIVES
 * Following", as structured abstracts and text taken from PDFs write them): capitalised English words, one of at least
 * five letters, before a word that is not in capitals. An acronym ("NASA Ames", "USA Today") is shorter or no word.
 */
function headingLength(tokens: readonly Token[], start: number, end: number, ranks: WordRanks): number {
  let n = 0;
  const inCapitals = (t: Token | undefined) =>
    t !== undefined && /^\p{Lu}{2,}$/u.test(t.text) && !ranks.isRare(t.lower);
  while (start + n < end && inCapitals(tokens[start + n])) n += 1;
  if (n === 0 || start + n >= end) return 0;
  return tokens.slice(start, start + n).some((t) => t.text.length >= 5) ? n : 0;
}

/** The proper names of one sentence, in order of appearance. */
export function findNames(sentence: Sentence, ranks: WordRanks): FoundName[] {
  const tokens = sentence.tokens;
  const firstWord = tokens.findIndex((token) => token.type === 'word' || token.code);
  const names: FoundName[] = [];
  let index = 0;
  while (index < tokens.length) {
    const token = tokens[index] as Token;
    if (!isCapitalised(token)) {
      index += 1;
      continue;
    }
    const end = runEnd(tokens, index);
    // After a heading in capitals, the text's own sentence starts.
    const from = index + headingLength(tokens, index, end, ranks);
    const opener = from > index ? from : firstWord;
    const words = trimRun(tokens, from, end, opener, ranks);
    const atSentenceStart = words[0] !== undefined && words[0] === tokens[opener];
    // A word left after dropping the sentence's first word ("Strongly Cached") is a label, not a name.
    const labelRest = from === opener && words.length === 1 && words[0] !== tokens[from];
    if (!labelRest && acceptName(words, atSentenceStart, ranks)) {
      names.push({ name: joinWords(words), type: nameType(words), words: words.length });
    }
    index = end;
  }
  return names;
}
