import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { chunkText, type ChunkOptions, type TextChunk } from '../../../src/chunking/chunkText.js';
import { AppError, ErrorCode } from '../../../src/errors.js';

const WS_ONLY = /^\s*$/;

/** True when a boundary at `i` separates a high surrogate from its low surrogate. */
function splitsPair(text: string, i: number): boolean {
  if (i <= 0 || i >= text.length) return false;
  const hi = text.charCodeAt(i - 1);
  const lo = text.charCodeAt(i);
  return hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff;
}

/** Asserts every documented invariant of `chunkText` for one input. */
function checkInvariants(text: string, options: ChunkOptions, chunks: TextChunk[]): void {
  const { size, overlap } = options;
  if (chunks.length === 0) {
    expect(text).toMatch(WS_ONLY);
    return;
  }
  expect(text.slice(0, chunks[0]!.charStart)).toMatch(WS_ONLY);
  expect(text.slice(chunks[chunks.length - 1]!.charEnd)).toMatch(WS_ONLY);
  chunks.forEach((chunk, i) => {
    expect(chunk.ordinal).toBe(i);
    expect(text.slice(chunk.charStart, chunk.charEnd)).toBe(chunk.content);
    expect(chunk.charEnd).toBeGreaterThan(chunk.charStart);
    // The only allowed excess: size 1 cannot hold an astral character, which is kept whole.
    const astralAlone = size === 1 && chunk.content.length === 2 && splitsPair(text, chunk.charStart + 1);
    if (!astralAlone) expect(chunk.content.length).toBeLessThanOrEqual(size);
    expect(splitsPair(text, chunk.charStart)).toBe(false);
    expect(splitsPair(text, chunk.charEnd)).toBe(false);
    expect(chunk.content).not.toMatch(/^\s/);
    expect(chunk.content).not.toMatch(/\s$/);
    const prev = chunks[i - 1];
    if (prev) {
      expect(chunk.charStart).toBeGreaterThan(prev.charStart);
      expect(chunk.charEnd).toBeGreaterThan(prev.charEnd);
      expect(chunk.charStart).toBeGreaterThanOrEqual(prev.charEnd - overlap);
      // No gaps: the next chunk starts inside the previous one, or only whitespace lies between them.
      if (chunk.charStart > prev.charEnd) expect(text.slice(prev.charEnd, chunk.charStart)).toMatch(WS_ONLY);
    }
  });
}

const optionsArb: fc.Arbitrary<ChunkOptions> = fc
  .integer({ min: 1, max: 120 })
  .chain((size) => fc.record({ size: fc.constant(size), overlap: fc.integer({ min: 0, max: size - 1 }) }));

const word = fc.string({ unit: fc.constantFrom('a', 'b', 'é', 'z', '中', '😀', '1'), minLength: 1, maxLength: 12 });
const longWord = fc.string({ unit: fc.constantFrom('x', 'y', '😀'), minLength: 50, maxLength: 300 });
const separator = fc.constantFrom(
  ' ',
  '  ',
  '\n',
  '\n\n',
  '\r\n\r\n',
  '\t',
  '. ',
  '! ',
  '? ',
  '."\n',
  '。',
  '！',
  ' \u00a0 ',
);
const prose = fc
  .array(fc.oneof(word, word, longWord, separator, separator), { maxLength: 120 })
  .map((parts) => parts.join(''));

const textArb = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 400 }), // any code point, including astral ones
  fc.string({ unit: 'grapheme', maxLength: 150 }), // emoji and composite graphemes
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 300 }), // lone surrogates too
  fc.string({ unit: fc.constantFrom('a', '😀', '中'), maxLength: 500 }), // no whitespace at all
  fc.string({ unit: fc.constantFrom('a', ' ', '\n', '.', '😀'), maxLength: 500 }),
  fc.string({ unit: fc.constantFrom('\n', ' ', '\t', 'w'), maxLength: 400 }), // mostly newlines
  prose,
);

describe('chunkText properties', () => {
  it('holds every invariant for arbitrary text and options', () => {
    fc.assert(
      fc.property(textArb, optionsArb, (text, options) => {
        checkInvariants(text, options, chunkText(text, options));
      }),
      { numRuns: 1500 },
    );
  });

  it('holds every invariant for larger prose with the default-like options', () => {
    const opts = fc.record({ size: fc.integer({ min: 100, max: 600 }), overlap: fc.integer({ min: 0, max: 99 }) });
    fc.assert(
      fc.property(prose, opts, (text, options) => {
        checkInvariants(text, options, chunkText(text, options));
      }),
      { numRuns: 300 },
    );
  });

  it('is deterministic', () => {
    fc.assert(
      fc.property(textArb, optionsArb, (text, options) => {
        expect(chunkText(text, options)).toEqual(chunkText(text, options));
      }),
      { numRuns: 300 },
    );
  });
});

describe('chunkText examples', () => {
  const sentence = (n: number) => `Sentence number ${n} talks about things.`;

  it('returns no chunks for empty or whitespace-only text', () => {
    expect(chunkText('', { size: 10, overlap: 2 })).toEqual([]);
    expect(chunkText(' \n\t\u00a0\r\n ', { size: 10, overlap: 2 })).toEqual([]);
  });

  it('returns one chunk without surrounding whitespace for short text', () => {
    expect(chunkText('  hello world \n', { size: 500, overlap: 50 })).toEqual([
      { ordinal: 0, content: 'hello world', charStart: 2, charEnd: 13 },
    ]);
  });

  it('prefers a paragraph break over later sentence and word breaks', () => {
    const first = [1, 2].map(sentence).join(' '); // 83 chars
    const text = `${first}\n\n${[3, 4, 5].map(sentence).join(' ')}`;
    const chunks = chunkText(text, { size: 120, overlap: 0 });
    expect(chunks[0]!.content).toBe(first);
    expect(chunks[1]!.content.startsWith('Sentence number 3')).toBe(true);
  });

  it('prefers a sentence end over a later word break', () => {
    const first = `${sentence(1)} ${sentence(2)}`;
    const text = `${first} and then a long clause without any final stop that runs on and on`;
    const chunks = chunkText(text, { size: 120, overlap: 0 });
    expect(chunks[0]!.content).toBe(first);
  });

  it('ignores a break in the first half of the window when a later one exists', () => {
    const text = `Short. ${'word '.repeat(40)}`;
    const chunks = chunkText(text, { size: 100, overlap: 0 });
    expect(chunks[0]!.content.length).toBeGreaterThanOrEqual(50);
  });

  it('treats CJK full stops as sentence ends without following whitespace', () => {
    const text = '这是第一个句子。这是第二个句子！这是第三个句子？'.repeat(4);
    const chunks = chunkText(text, { size: 20, overlap: 0 });
    for (const chunk of chunks) expect(chunk.content).toMatch(/[。！？]$/);
  });

  it('falls back to word boundaries when there is no sentence end', () => {
    const text = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    const chunks = chunkText(text, { size: 50, overlap: 10 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.content).toMatch(/^word\d+( word\d+)*$/); // whole words only
      expect(chunk.content.length).toBeLessThanOrEqual(50);
    }
  });

  it('hard-cuts text without whitespace, keeping the overlap', () => {
    const chunks = chunkText('x'.repeat(250), { size: 100, overlap: 10 });
    expect(chunks.map((c) => [c.charStart, c.charEnd])).toEqual([
      [0, 100],
      [90, 190],
      [180, 250],
    ]);
  });

  it('never splits a surrogate pair when hard-cutting', () => {
    const chunks = chunkText('😀'.repeat(10), { size: 5, overlap: 1 });
    for (const chunk of chunks) expect(chunk.content).toMatch(/^(😀)+$/u);
    expect(chunkText('😀', { size: 1, overlap: 0 })).toEqual([{ ordinal: 0, content: '😀', charStart: 0, charEnd: 2 }]);
  });

  it('chunks realistic multi-paragraph text at 500/50 on sentence ends with word-aligned overlap', () => {
    const paragraphs = Array.from({ length: 12 }, (_, p) =>
      Array.from(
        { length: 3 + (p % 4) },
        (_, s) => `In paragraph ${p}, sentence ${s} explains how the platform indexes documents and answers questions.`,
      ).join(' '),
    );
    const text = paragraphs.join('\n\n');
    const options = { size: 500, overlap: 50 };
    const chunks = chunkText(text, options);
    checkInvariants(text, options, chunks);
    expect(chunks.length).toBeGreaterThan(text.length / 500);
    for (const [i, chunk] of chunks.entries()) {
      expect(chunk.content.endsWith('.')).toBe(true);
      if (i > 0) {
        expect(chunk.charStart).toBeLessThan(chunks[i - 1]!.charEnd); // overlaps
        expect(text[chunk.charStart - 1]).toMatch(/\s/); // overlap starts at a word
      }
    }
  });

  it('rejects invalid options with BAD_USER_INPUT', () => {
    const bad: ChunkOptions[] = [
      { size: 0, overlap: 0 },
      { size: -5, overlap: 0 },
      { size: 1.5, overlap: 0 },
      { size: Number.NaN, overlap: 0 },
      { size: 10, overlap: -1 },
      { size: 10, overlap: 10 },
      { size: 10, overlap: 2.5 },
    ];
    for (const options of bad) {
      let error: unknown;
      try {
        chunkText('some text', options);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe(ErrorCode.BAD_USER_INPUT);
    }
  });

  it('chunks 5 MB in linear time', () => {
    const text = `${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(4)}\n\n`.repeat(22_000);
    const started = performance.now();
    const chunks = chunkText(text, { size: 500, overlap: 50 });
    // A bound on a quadratic blow-up (minutes at 5 MB), not a measure of speed: linear takes well under a second,
    // and a loaded machine must not fail it.
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(chunks[chunks.length - 1]!.charEnd).toBe(text.trimEnd().length);
  });
});
