import { isSentenceStart } from './sentences.js';

/**
 * An excerpt of a passage for the end of the budget: when a weaker hit's whole passage no longer fits, the run of its
 * whole sentences that fits and holds the most of the query's words is shown rather than nothing, so the budget left
 * goes to one more matching document. Plain word matching, no database round trip: it only chooses which sentences.
 */

/** Question and filler words that say nothing about what a passage must hold. */
const FILLER = new Set(
  'about after also been before does from have into many much only other over such than that their them then there these they this what when where which while whom whose with would your'.split(
    ' ',
  ),
);

/** The query's words that a matching sentence may hold: lower-case, 4 characters or more, not filler. */
export function queryWords(query: string): Set<string> {
  return new Set(wordsOf(query).filter((w) => w.length >= 4 && !FILLER.has(w)));
}

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Whether `word` is a form of query word `q` (the same word, or the same first five letters of two long words). */
function sameWord(word: string, q: string): boolean {
  return word === q || (word.length >= 5 && q.length >= 5 && word.slice(0, 5) === q.slice(0, 5));
}

/** The passage's sentences as [start, end) offsets, each ending where the next sentence starts (white space dropped). */
function sentenceSpans(passage: string): [number, number][] {
  const starts = [0];
  for (let p = 1; p < passage.length; p++) if (isSentenceStart(passage, p)) starts.push(p);
  return starts.map((s, i) => [s, passage.slice(0, starts[i + 1] ?? passage.length).trimEnd().length]);
}

/**
 * The run of whole sentences of `passage` (which starts and ends at sentence or line edges) of at most `maxChars`
 * that holds the most distinct query words, earliest first among equals; null when no such run holds one.
 */
export function bestExcerpt(passage: string, words: ReadonlySet<string>, maxChars: number): string | null {
  if (words.size === 0) return null;
  const spans = sentenceSpans(passage);
  const matches = spans.map(([s, e]) => {
    const found = wordsOf(passage.slice(s, e));
    return new Set([...words].filter((q) => found.some((w) => sameWord(w, q))));
  });
  let best: { score: number; s: number; e: number } | undefined;
  for (let i = 0; i < spans.length; i++) {
    const held = new Set<string>();
    for (let j = i; j < spans.length; j++) {
      const s = (spans[i] as [number, number])[0];
      const e = (spans[j] as [number, number])[1];
      if (e - s > maxChars) break;
      for (const q of matches[j] as Set<string>) held.add(q);
      if (held.size > (best?.score ?? 0)) best = { score: held.size, s, e };
    }
  }
  return best ? passage.slice(best.s, best.e) : null;
}
