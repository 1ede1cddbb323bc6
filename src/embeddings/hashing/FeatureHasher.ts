import { murmur3, murmur3Pair, murmur3Range } from './murmur3.js';
import { ENGLISH_STOPWORDS } from './stopwords.js';

/** Knobs of the hashing featuriser; the defaults are what `hashing-v1` uses (tuned on SciFact). */
export interface FeatureHasherTuning {
  /** Weight of an adjacent-token bigram relative to a unigram; 0 disables bigrams. */
  bigramWeight: number;
  /** Strip a plural-like trailing "s" from ASCII tokens longer than 3 (not "ss", "us", "is"). */
  stripPluralS: boolean;
  /** Keep single-letter Latin tokens (e.g. "vitamin d"); digits and non-Latin single letters are always kept. */
  keepSingleLetters: boolean;
  /** Words dropped before hashing. */
  stopwords: readonly string[];
  /** Buckets each feature is spread over (weight 1/sqrt(probes) each); >1 softens the damage of any one collision. */
  probes: number;
}

/** Defaults for `hashing-v1`. Changing any of them changes the vectors, so it needs a new model name. */
export const HASHING_V1_TUNING: FeatureHasherTuning = {
  bigramWeight: 0.3,
  stripPluralS: false,
  keepSingleLetters: false,
  stopwords: ENGLISH_STOPWORDS,
  probes: 3,
};

const UNIGRAM_SEED = 0x2f6b1d3a;
const BIGRAM_SEED = 0x51ed27c9;
const PROBE_SEED = 0x7a3c9e15;

// eslint-disable-next-line no-control-regex -- the whole ASCII range, control characters included
const ASCII_ONLY = /^[\x00-\x7f]*$/;
const MARKS = /\p{M}+/gu;
const NON_WORD = /[^\p{L}\p{N}]+/gu;
// Scripts written without spaces: each character becomes its own token, and bigrams restore the pairs.
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;

// ASCII letters and digits are token characters; every other ASCII unit separates tokens.
const ASCII_WORD = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_WORD[c] = /[a-z0-9]/.test(String.fromCharCode(c)) ? 1 : 0;

/**
 * Normalises for matching: NFKC, lower case, diacritics removed; outside ASCII, every run of characters that are not
 * letters or digits becomes one space and characters of unspaced scripts are spaced apart.
 */
export function normaliseForHashing(text: string): string {
  if (ASCII_ONLY.test(text)) return text.toLowerCase();
  return text
    .normalize('NFKC')
    .toLowerCase()
    .normalize('NFD')
    .replace(MARKS, '')
    .replace(NON_WORD, ' ')
    .replace(UNSPACED, ' $& ');
}

/**
 * Turns texts into signed feature-hashed vectors of unigrams and adjacent bigrams with sublinear (1 + ln tf) weights,
 * L2-normalised. Each feature lands in `probes` buckets: at 1024 dimensions a long document fills a good share of
 * the buckets, and spreading each feature means a collision adds a third of a false match to three buckets instead
 * of a whole one to one bucket, which ranks better (bench/RESULTS.md).
 * Reuses scratch buffers between calls: use one instance per embedder, not shared across concurrent callers.
 */
export class FeatureHasher {
  readonly dimensions: number;
  private readonly tuning: FeatureHasherTuning;
  private readonly stopHashes: Set<number>;
  private readonly acc: Float64Array;
  // Per-text term-frequency table: open addressing on the feature hash; a slot is live when its stamp is current.
  private keys = new Uint32Array(0);
  private counts = new Uint32Array(0);
  private bigram = new Uint8Array(0);
  private stamps = new Uint32Array(0);
  private live = new Int32Array(0);
  private liveCount = 0;
  private stamp = 0;

  constructor(dimensions: number, tuning: Partial<FeatureHasherTuning> = {}) {
    if (!Number.isInteger(dimensions) || dimensions < 1)
      throw new RangeError(`dimensions must be a positive integer, got ${dimensions}`);
    this.dimensions = dimensions;
    this.tuning = { ...HASHING_V1_TUNING, ...tuning };
    if (!Number.isInteger(this.tuning.probes) || this.tuning.probes < 1)
      throw new RangeError('probes must be a positive integer');
    // Stopwords are matched by hash so tokens never need to be materialised as strings.
    this.stopHashes = new Set(this.tuning.stopwords.map((w) => murmur3(normaliseForHashing(w), UNIGRAM_SEED)));
    this.acc = new Float64Array(dimensions);
  }

  /** Embeds one text; a text without any token yields the all-zero vector (cosine with it is 0, never NaN). */
  embed(text: string): Float32Array {
    const s = normaliseForHashing(text);
    this.resetTable();
    const { bigramWeight, stripPluralS, keepSingleLetters } = this.tuning;
    const n = s.length;
    let prev = 0;
    let hasPrev = false;
    let i = 0;
    while (i < n) {
      let c = s.charCodeAt(i);
      if (c < 128 && ASCII_WORD[c] === 0) {
        i++;
        continue;
      }
      const start = i;
      let ascii = true;
      let digits = true;
      while (i < n) {
        c = s.charCodeAt(i);
        if (c < 128) {
          if (ASCII_WORD[c] === 0) break;
          if (c > 0x39) digits = false;
        } else {
          ascii = false;
          digits = false;
        }
        i++;
      }
      let end = i;
      if (end - start === 1 && ascii && !digits && !keepSingleLetters) continue;
      const h = murmur3Range(s, start, end, UNIGRAM_SEED);
      if (this.stopHashes.has(h)) continue;
      let term = h;
      if (stripPluralS && ascii && end - start > 3 && s.charCodeAt(end - 1) === 0x73 && !isSUI(s.charCodeAt(end - 2))) {
        end--;
        term = murmur3Range(s, start, end, UNIGRAM_SEED);
      }
      this.count(term, 0);
      if (hasPrev && bigramWeight > 0) this.count(murmur3Pair(prev, term, BIGRAM_SEED), 1);
      prev = term;
      hasPrev = true;
    }
    return this.project(bigramWeight);
  }

  /** Clears the term table in O(1) by advancing the stamp. */
  private resetTable(): void {
    if (this.keys.length === 0) this.allocate(1024);
    this.stamp = (this.stamp + 1) >>> 0;
    if (this.stamp === 0) {
      this.stamps.fill(0); // wrapped after 2^32 texts: stale stamps could look current
      this.stamp = 1;
    }
    this.liveCount = 0;
  }

  /** Replaces the table with an empty one of `capacity` (a power of two) slots. */
  private allocate(capacity: number): void {
    this.keys = new Uint32Array(capacity);
    this.counts = new Uint32Array(capacity);
    this.bigram = new Uint8Array(capacity);
    this.stamps = new Uint32Array(capacity);
    this.live = new Int32Array(capacity / 2);
  }

  /** Doubles the table, re-inserting the live features; keeps the load factor at most 1/2. */
  private grow(): void {
    const { keys, counts, bigram, live, liveCount } = this;
    this.allocate(keys.length * 2);
    this.liveCount = 0;
    for (let j = 0; j < liveCount; j++) {
      const slot = live[j]!;
      const fresh = this.insert(keys[slot]!, bigram[slot]!);
      this.counts[fresh] = counts[slot]!;
    }
  }

  /** Adds one occurrence of a feature. */
  private count(hash: number, isBigram: number): void {
    const mask = this.keys.length - 1;
    let slot = hash & mask;
    while (this.stamps[slot] === this.stamp) {
      if (this.keys[slot] === hash) {
        this.counts[slot]!++;
        return;
      }
      slot = (slot + 1) & mask;
    }
    if (this.liveCount === this.live.length) {
      this.grow();
      this.insert(hash, isBigram);
    } else {
      this.claim(slot, hash, isBigram);
    }
  }

  /** Inserts a feature known to be absent with a count of 1; returns its slot. */
  private insert(hash: number, isBigram: number): number {
    const mask = this.keys.length - 1;
    let slot = hash & mask;
    while (this.stamps[slot] === this.stamp) slot = (slot + 1) & mask;
    this.claim(slot, hash, isBigram);
    return slot;
  }

  /** Marks `slot` live for this text with the feature's first occurrence. */
  private claim(slot: number, hash: number, isBigram: number): void {
    this.stamps[slot] = this.stamp;
    this.keys[slot] = hash;
    this.counts[slot] = 1;
    this.bigram[slot] = isBigram;
    this.live[this.liveCount++] = slot;
  }

  /** Projects the counted features into signed buckets and L2-normalises. */
  private project(bigramWeight: number): Float32Array {
    const dims = this.dimensions;
    const acc = this.acc;
    acc.fill(0);
    const probes = this.tuning.probes;
    const probeScale = 1 / Math.sqrt(probes);
    for (let j = 0; j < this.liveCount; j++) {
      const slot = this.live[j]!;
      const key = this.keys[slot]!;
      const weight = (1 + Math.log(this.counts[slot]!)) * (this.bigram[slot] === 1 ? bigramWeight : 1) * probeScale;
      for (let p = 0; p < probes; p++) {
        const hash = p === 0 ? key : murmur3Pair(key, p, PROBE_SEED);
        // Bit 0 picks the sign, the other bits the bucket, so sign and bucket are independent.
        acc[(hash >>> 1) % dims]! += hash & 1 ? -weight : weight;
      }
    }
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += acc[d]! * acc[d]!;
    const out = new Float32Array(dims);
    if (norm === 0) return out;
    const scale = 1 / Math.sqrt(norm);
    for (let d = 0; d < dims; d++) out[d] = acc[d]! * scale;
    return out;
  }
}

/** True for "s", "u", "i": endings ("ss", "us", "is") that are rarely plurals. */
function isSUI(c: number): boolean {
  return c === 0x73 || c === 0x75 || c === 0x69;
}
