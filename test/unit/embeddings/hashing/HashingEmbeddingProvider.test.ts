import { describe, expect, it } from '@jest/globals';
import { HashingEmbeddingProvider } from '../../../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { FeatureHasher, normaliseForHashing } from '../../../../src/embeddings/hashing/FeatureHasher.js';

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

function norm(v: Float32Array): number {
  return Math.sqrt(cosine(v, v));
}

describe('HashingEmbeddingProvider', () => {
  const provider = new HashingEmbeddingProvider();

  it('describes itself and defaults to 1024 dimensions', async () => {
    expect(provider.dimensions).toBe(1024);
    expect(provider.info).toEqual({ provider: 'hashing', model: 'hashing-v1', dimensions: 1024 });
    expect(provider.id).toBe('hashing:hashing-v1:1024');
    await expect(provider.ready()).resolves.toBeUndefined();
    const small = new HashingEmbeddingProvider({ dimensions: 384 });
    expect(small.id).toBe('hashing:hashing-v1:384');
    const [v] = await small.embed(['graph databases store nodes and edges']);
    expect(v).toBeInstanceOf(Float32Array);
    expect(v!.length).toBe(384);
  });

  it('returns unit-length vectors of the configured size', async () => {
    const vectors = await provider.embed(['Knowledge graphs link entities.', 'a b', 'x'.repeat(10_000), '42']);
    for (const [i, v] of vectors.entries()) {
      expect(v.length).toBe(1024);
      if (i === 1) continue; // only stopwords and single letters: no features
      expect(norm(v)).toBeCloseTo(1, 5);
    }
  });

  it('embeds text without word tokens as the all-zero vector', async () => {
    const vectors = await provider.embed(['', '   ', '!?… —', 'the of and a']);
    for (const v of vectors) expect(v.every((x) => x === 0)).toBe(true);
  });

  it('is deterministic across calls and instances', async () => {
    const text = 'Deterministic embeddings make indexes reproducible.';
    const [a] = await provider.embed([text]);
    const [b] = await new HashingEmbeddingProvider().embed([text]);
    expect(Array.from(b!)).toEqual(Array.from(a!));
    expect(Array.from(provider.embedOne(text))).toEqual(Array.from(a!));
  });

  it('keeps batch order, also across event-loop yields in large batches', async () => {
    const texts = Array.from({ length: 600 }, (_, i) => `document number ${i} about topic ${i % 7}`);
    const batch = await provider.embed(texts);
    expect(batch).toHaveLength(600);
    for (const i of [0, 255, 256, 257, 599])
      expect(Array.from(batch[i]!)).toEqual(Array.from(provider.embedOne(texts[i]!)));
  });

  it('scores related texts above unrelated ones', async () => {
    const [query, related, unrelated] = await provider.embed([
      'vitamin D deficiency increases fracture risk in elderly patients',
      'Elderly patients with low vitamin D levels had more hip fractures and a higher fracture risk.',
      'The GraphQL server resolves nested queries with dataloaders to avoid N+1 database calls.',
    ]);
    expect(cosine(query!, related!)).toBeGreaterThan(0.3);
    expect(cosine(query!, related!)).toBeGreaterThan(cosine(query!, unrelated!) + 0.2);
  });

  it('ignores case, diacritics and compatibility forms', async () => {
    const [a, b, c] = await provider.embed(['Café naïve résumé', 'CAFE NAIVE RESUME', 'ｃａｆｅ naive resume']);
    expect(cosine(a!, b!)).toBeCloseTo(1, 5);
    expect(cosine(a!, c!)).toBeCloseTo(1, 5);
  });

  it('uses bigrams, so word order matters', async () => {
    const [a, b] = await provider.embed(['new york', 'york new']);
    expect(cosine(a!, b!)).toBeLessThan(0.99);
    expect(cosine(a!, b!)).toBeGreaterThan(0.5); // the unigrams still match
    const unigramsOnly = new FeatureHasher(1024, { bigramWeight: 0 });
    expect(cosine(unigramsOnly.embed('new york'), unigramsOnly.embed('york new'))).toBeCloseTo(1, 5);
  });

  it('embeds unspaced scripts character by character', async () => {
    const [a, b, c] = await provider.embed(['東京は日本の首都です', '日本の首都は東京', 'パスタのレシピ']);
    expect(cosine(a!, b!)).toBeGreaterThan(cosine(a!, c!) + 0.2);
  });
});

describe('normaliseForHashing', () => {
  it('lower-cases, strips diacritics and separates non-word characters', () => {
    expect(normaliseForHashing('Hello World')).toBe('hello world');
    expect(normaliseForHashing('Ångström—façade')).toBe('angstrom facade');
    expect(normaliseForHashing('ﬁle №5')).toBe('file no5');
    expect(normaliseForHashing('東京')).toBe(' 東  京 ');
  });
});

describe('FeatureHasher', () => {
  it('rejects invalid dimensions and probes', () => {
    expect(() => new FeatureHasher(0)).toThrow(RangeError);
    expect(() => new FeatureHasher(10.5)).toThrow(RangeError);
    expect(() => new FeatureHasher(16, { probes: 0 })).toThrow(RangeError);
  });

  it('gives the same vector after embedding a much larger text (scratch buffers are reset)', () => {
    const hasher = new FeatureHasher(256);
    const before = Array.from(hasher.embed('short text here'));
    hasher.embed('word '.repeat(50_000));
    expect(Array.from(hasher.embed('short text here'))).toEqual(before);
  });

  it('counts features the same whether or not its table had to grow mid-text', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `term${i % 1500} other${i % 700}`).join(' ');
    const grown = new FeatureHasher(512);
    const first = Array.from(grown.embed(text)); // grows while counting
    expect(Array.from(grown.embed(text))).toEqual(first); // table already large enough
    expect(Math.hypot(...first)).toBeCloseTo(1, 5);
  });
});
