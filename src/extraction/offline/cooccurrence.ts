/**
 * RELATED_TO candidates between entity candidates named in the same sentence, at most 10 a chunk: pairs the sentence
 * states (statedPairs.ts) first, then names before terms.
 */
import type { RelationshipCandidate } from '../types.js';
import { quoteOf } from './quote.js';
import { pairKey } from './statedPairs.js';

export const MAX_PAIRS_PER_CHUNK = 10;
export const COOCCURRENCE_CONFIDENCE = 0.5;

export interface SentenceMentions {
  sentence: string;
  /** Candidate names in order of appearance, each with whether it is a proper name. */
  mentions: { name: string; isName: boolean }[];
  /** The pairs (pairKey) the sentence states a relation between, rather than lists together. */
  stated?: ReadonlySet<string>;
}

interface Pair {
  from: string;
  to: string;
  /** 0: two names, 1: a name and a term, 2: two terms. */
  rank: number;
  order: number;
  quote: string;
  stated: boolean;
}

export function cooccurrences(sentences: readonly SentenceMentions[]): RelationshipCandidate[] {
  const pairs = new Map<string, Pair>();
  for (const { sentence, mentions, stated } of sentences) {
    for (const [i, from] of mentions.entries()) {
      for (const to of mentions.slice(i + 1)) {
        if (from.name === to.name) continue;
        const key = pairKey(from.name, to.name);
        const isStated = stated?.has(key) ?? false;
        const seen = pairs.get(key);
        // A pair first seen in a list keeps its place but takes the sentence that states it.
        if (seen && (seen.stated || !isStated)) continue;
        const rank = (from.isName ? 0 : 1) + (to.isName ? 0 : 1);
        const quote = quoteOf(sentence, from.name);
        pairs.set(key, {
          from: from.name,
          to: to.name,
          rank,
          order: seen?.order ?? pairs.size,
          quote,
          stated: isStated,
        });
      }
    }
  }
  return [...pairs.values()]
    .sort((a, b) => Number(b.stated) - Number(a.stated) || a.rank - b.rank || a.order - b.order)
    .slice(0, MAX_PAIRS_PER_CHUNK)
    .map((pair) => ({
      from: pair.from,
      to: pair.to,
      type: 'RELATED_TO',
      quote: pair.quote,
      confidence: COOCCURRENCE_CONFIDENCE,
      ...(pair.stated ? { stated: true } : {}),
    }));
}
