// MurmurHash3 (x86, 32-bit). Written here rather than taken from a package because the embedder hashes
// token *ranges* of a larger string and pairs of token hashes, which string-only package APIs cannot do
// without allocating a substring per token.

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** Scrambles one 32-bit block before it is mixed into the state. */
function scramble(k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, C2);
}

/** Mixes one scrambled block into the running state. */
function mix(h: number, k: number): number {
  h ^= scramble(k);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** Final avalanche, so every input bit affects every output bit. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** MurmurHash3 x86_32 of the UTF-16LE bytes of `text.slice(start, end)`, as an unsigned 32-bit integer. */
export function murmur3Range(text: string, start: number, end: number, seed: number): number {
  let h = seed | 0;
  let i = start;
  for (const pairsEnd = end - ((end - start) & 1); i < pairsEnd; i += 2) {
    h = mix(h, text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16));
  }
  if (i < end) h ^= scramble(text.charCodeAt(i));
  return fmix(h ^ ((end - start) * 2));
}

/** MurmurHash3 x86_32 of the string's UTF-16LE bytes, as an unsigned 32-bit integer. */
export function murmur3(text: string, seed: number): number {
  return murmur3Range(text, 0, text.length, seed);
}

/** MurmurHash3 x86_32 of two little-endian 32-bit words `a, b` (order matters), as an unsigned 32-bit integer. */
export function murmur3Pair(a: number, b: number, seed: number): number {
  return fmix(mix(mix(seed | 0, a), b) ^ 8);
}
