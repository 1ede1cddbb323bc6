import { describe, expect, it } from '@jest/globals';
import { contentHash } from '../../../src/chunking/contentHash.js';

describe('contentHash', () => {
  it('is the SHA-256 hex digest of the UTF-8 bytes', () => {
    expect(contentHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(contentHash('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('distinguishes texts that differ only in Unicode', () => {
    expect(contentHash('café')).toMatch(/^[0-9a-f]{64}$/);
    expect(contentHash('café')).not.toBe(contentHash('cafe\u0301'));
  });
});
