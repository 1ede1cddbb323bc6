import { describe, expect, it } from '@jest/globals';
import { murmur3, murmur3Pair, murmur3Range } from '../../../../src/embeddings/hashing/murmur3.js';

// Reference values from the Python `mmh3` package: mmh3.hash(s.encode('utf-16-le'), seed, signed=False).
describe('murmur3', () => {
  it('matches reference MurmurHash3 x86_32 over UTF-16LE bytes', () => {
    expect(murmur3('hello', 0)).toBe(3619887497);
    expect(murmur3('ab', 42)).toBe(627382360);
    expect(murmur3('abc', 0x9747b28c)).toBe(2647089982);
    expect(murmur3('中文😀', 7)).toBe(1311738221);
    expect(murmur3('', 1)).toBe(1364076727);
  });

  it('hashes a range exactly like the equivalent substring', () => {
    expect(murmur3Range('xxhelloyy', 2, 7, 0)).toBe(murmur3('hello', 0));
    expect(murmur3Range('abc', 1, 2, 3)).toBe(murmur3('b', 3));
  });

  it('hashes a pair of words like the 8 bytes they encode', () => {
    // mmh3.hash(struct.pack('<II', 0xdeadbeef, 0x12345678), 99, signed=False)
    expect(murmur3Pair(0xdeadbeef, 0x12345678, 99)).toBe(1686952743);
    expect(murmur3Pair(1, 2, 0)).not.toBe(murmur3Pair(2, 1, 0));
  });
});
