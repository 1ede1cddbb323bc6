/** RELATED_TO candidates between entity candidates named in the same sentence, names first, at most 10 a chunk. */
import type { RelationshipCandidate } from '../types.js';
import { quoteOf } from './quote.js';

export const MAX_PAIRS_PER_CHUNK = 10;
export const COOCCURRENCE_CONFIDENCE = 0.5;

export interface SentenceMentions {
  sentence: string;
  /** Candidate names in order of appearance, each with whether it is a proper name. */
  mentions: { name: string; isName: boolean }[];
}

interface Pair {
  from: string;
  to: string;
  /** 0: two names, 1: a name and a term, 2: two terms. */
  rank: number;
  order: number;
  quote: string;
}

export function cooccurrences(sentences: readonly SentenceMentions[]): RelationshipCandidate[] {
  const pairs = new Map<string, Pair>();
  for (const { sentence, mentions } of sentences) {
    for (const [i, from] of mentions.entries()) {
      for (const to of mentions.slice(i + 1)) {
        if (from.name === to.name) continue;
        const key = [from.name, to.name].sort().join('\u0000');
        if (pairs.has(key)) continue;
        const rank = (from.isName ? 0 : 1) + (to.isName ? 0 : 1);
        pairs.set(key, { from: from.name, to: to.name, rank, order: pairs.size, quote: quoteOf(sentence, from.name) });
      }
    }
  }
  return [...pairs.values()]
    .sort((a, b) => a.rank - b.rank || a.order - b.order)
    .slice(0, MAX_PAIRS_PER_CHUNK)
    .map((pair) => ({
      from: pair.from,
      to: pair.to,
      type: 'RELATED_TO',
      quote: pair.quote,
      confidence: COOCCURRENCE_CONFIDENCE,
    }));
}
