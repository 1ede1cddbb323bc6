/** Sentences and tagged tokens of prose, by wink-nlp with its English lite model (no network, pure JS). */
import winkNLP from 'wink-nlp';
import model from 'wink-eng-lite-web-model';
import { CODE_PLACEHOLDER, type BlockKind, type ProseText } from './proseText.js';

export interface Token {
  text: string;
  lower: string;
  /** Universal POS tag (NOUN, PROPN, ADJ, VERB …). */
  pos: string;
  /** wink's token type: word, number, punctuation, url … */
  type: string;
  /** The spaces before the token in the text. */
  space: string;
  /** A code span or identifier: never part of a name or a term. */
  code: boolean;
}

export interface Sentence {
  tokens: Token[];
  /** The sentence as written, code spans put back. */
  text: string;
  /** The kind of block it is in: running text, or a list item, a table cell, a heading. */
  block: BlockKind;
}

type Nlp = ReturnType<typeof winkNLP>;
let engine: Nlp | undefined;

function nlp(): Nlp {
  engine ??= winkNLP(model, ['sbd', 'pos']);
  return engine;
}

function renderSentence(tokens: readonly Token[]): string {
  return tokens
    .map((token, index) => (index === 0 ? token.text : token.space + token.text))
    .join('')
    .trim();
}

/** Splits tagged tokens into sentences at wink's boundaries and at every line break (one block per line). */
export function toSentences(prose: ProseText): Sentence[] {
  const nlpEngine = nlp();
  const its = nlpEngine.its;
  const doc = nlpEngine.readDoc(prose.text);
  const tokens = doc.tokens();
  const texts = tokens.out();
  const tags = tokens.out(its.pos);
  const types = tokens.out(its.type);
  const spaces = tokens.out(its.precedingSpaces);
  const ends = new Set<number>();
  for (const span of doc.sentences().out(its.span) as unknown as number[][]) {
    if (span[1] !== undefined) ends.add(span[1]);
  }
  const sentences: Sentence[] = [];
  let current: Token[] = [];
  let codeIndex = 0;
  let line = 0;
  const close = (): void => {
    const block = prose.kinds[line] ?? 'paragraph';
    if (current.length > 0) sentences.push({ tokens: current, text: renderSentence(current), block });
    current = [];
  };
  for (const [index, text] of texts.entries()) {
    const type = types[index] ?? '';
    if (type === 'tabCRLF' && text.includes('\n')) {
      close();
      line += text.split('\n').length - 1;
      continue;
    }
    const code = text === CODE_PLACEHOLDER;
    const shown = code ? (prose.codes[codeIndex++] ?? text) : text;
    const space = spaces[index] ?? '';
    current.push({ text: shown, lower: shown.toLowerCase(), pos: tags[index] ?? 'X', type, space, code });
    if (ends.has(index)) close();
  }
  close();
  return sentences;
}
