import { describe, expect, it } from '@jest/globals';
import { SqlParams, escapeLike } from '../../../src/db/SqlParams.js';

describe('SqlParams', () => {
  it('numbers placeholders in the order values are added', () => {
    const params = new SqlParams();
    expect([params.add('a'), params.add(2)]).toEqual(['$1', '$2']);
    expect(params.values).toEqual(['a', 2]);
  });
});

describe('escapeLike', () => {
  it('escapes the LIKE wildcards and the escape character itself', () => {
    expect(escapeLike('100%_a\\b')).toBe('100\\%\\_a\\\\b');
    expect(escapeLike('plain')).toBe('plain');
  });
});
