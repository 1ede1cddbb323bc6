/** Quotes are at most this long (EntityCandidate.quote). */
export const MAX_QUOTE_LENGTH = 200;

/** The sentence, or a window of it around `mention` when the sentence is too long. */
export function quoteOf(sentence: string, mention: string): string {
  if (sentence.length <= MAX_QUOTE_LENGTH) return sentence;
  const at = Math.max(0, sentence.indexOf(mention));
  const start = Math.max(0, Math.min(at - 60, sentence.length - (MAX_QUOTE_LENGTH - 2)));
  const end = Math.min(sentence.length, start + MAX_QUOTE_LENGTH - 2);
  return `${start > 0 ? '…' : ''}${sentence.slice(start, end).trim()}${end < sentence.length ? '…' : ''}`;
}
