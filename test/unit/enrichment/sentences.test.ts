import { describe, expect, it } from '@jest/globals';
import { alignToSentences, isSentenceStart } from '../../../src/enrichment/sentences.js';

describe('sentence edges', () => {
  it('starts a sentence after a sentence end and white space, or at a line start, never at a lower-case word', () => {
    const text = 'First one. Second one\nthird line\n# Heading\ne.g. lower';
    expect(isSentenceStart(text, text.indexOf('Second'))).toBe(true);
    expect(isSentenceStart(text, text.indexOf('third'))).toBe(false);
    expect(isSentenceStart(text, text.indexOf('#'))).toBe(true);
    expect(isSentenceStart(text, text.indexOf('lower'))).toBe(false);
  });

  it('widens a span to the sentences it cuts when the text around is known', () => {
    const text = 'Alpha is first. Beta comes next here. Gamma ends it.';
    const s = text.indexOf('comes');
    const e = text.indexOf('ends');
    const [a, b] = alignToSentences(text, s, e, { docStart: true, docEnd: true }) ?? [0, 0];
    expect(text.slice(a, b)).toBe('Beta comes next here. Gamma ends it.');
  });

  it('narrows a span to its whole sentences where the text around is unknown', () => {
    const text = 'tail of a sentence. Whole one here. Another whole. start of';
    const [a, b] = alignToSentences(text, 0, text.length, { docStart: false, docEnd: false }) ?? [0, 0];
    expect(text.slice(a, b)).toBe('Whole one here. Another whole.');
  });

  it('aligns to line edges where no sentence edge exists (lines of code, table rows)', () => {
    const text = 'st x = load(a)\nconst y = x + 1\nreturn y * 2\nexport default y';
    const s = text.indexOf('= x');
    const e = text.indexOf('* 2');
    const [a, b] = alignToSentences(text, s, e, { docStart: false, docEnd: false }) ?? [0, 0];
    expect(text.slice(a, b)).toBe('const y = x + 1\nreturn y * 2');
  });

  it('finds no passage in a flattened table cut on both sides, and the whole table when its edges are known', () => {
    // A cast list flattened to one line: no sentence end and no line break inside.
    const text = 'Amy Adams as Susan Morrow Jake Gyllenhaal as Edward Sheffield Michael Shannon as Bobby Andes';
    const s = text.indexOf('Jake');
    const e = text.indexOf('Michael');
    expect(alignToSentences(text, s, e, { docStart: false, docEnd: false })).toBeNull();
    expect(alignToSentences(text, s, e, { docStart: true, docEnd: false })).toBeNull();
    expect(alignToSentences(text, s, e, { docStart: true, docEnd: true })).toEqual([0, text.length]);
  });
});
