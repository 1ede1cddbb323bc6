import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { parseTagExpression, validateTags, TAG_PATTERN } from '../../../src/documents/tagExpression.js';
import { AppError } from '../../../src/errors.js';

const tag = fc.stringMatching(/^[a-z0-9][a-z0-9_:-]{0,12}$/);

describe('parseTagExpression', () => {
  it('gives + precedence over |', () => {
    expect(parseTagExpression('billing+ach|payments')).toEqual([['billing', 'ach'], ['payments']]);
    expect(parseTagExpression('a|b+c|d')).toEqual([['a'], ['b', 'c'], ['d']]);
    expect(parseTagExpression(' a + b ')).toEqual([['a', 'b']]);
    expect(parseTagExpression('team:sre')).toEqual([['team:sre']]);
  });

  it.each(['', '   ', 'a+', '|a', 'a||b', 'A', 'a b', "a'; DROP TABLE documents; --", '-a', 'ä'])(
    'rejects %j naming the problem',
    (expr) => {
      try {
        parseTagExpression(expr);
        throw new Error('expected a failure');
      } catch (err) {
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).code).toBe('BAD_USER_INPUT');
        expect((err as AppError).message).toMatch(/filter\.tags/);
      }
    },
  );

  it('names the bad token', () => {
    expect(() => parseTagExpression('ok+Bad!')).toThrow(/"Bad!"/);
  });

  it('bounds tags and expressions, and repeats at most 200 characters of a bad one', () => {
    expect(validateTags(['a'.repeat(100)])).toEqual(['a'.repeat(100)]);
    expect(() => validateTags(['a'.repeat(101)])).toThrow('tags: tag "' + 'a'.repeat(100));
    expect(() => validateTags(['a'.repeat(101)])).toThrow('is 101 characters; at most 100');
    expect(() => parseTagExpression(Array(1001).fill('ab').join('|'))).toThrow(
      'the tag expression is 3002 characters; at most 2000',
    );
    let message = '';
    try {
      validateTags(['X'.repeat(100_000)]);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message.length).toBeLessThan(400);
    expect(message).toContain('(100000 characters)');
  });

  it('round-trips any well-formed expression (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(tag, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }), (dnf) => {
        const text = dnf.map((g) => g.join('+')).join('|');
        expect(parseTagExpression(text)).toEqual(dnf);
      }),
    );
  });

  it('either parses into valid tags or throws BAD_USER_INPUT, never anything else (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        try {
          for (const g of parseTagExpression(text)) for (const t of g) expect(TAG_PATTERN.test(t)).toBe(true);
        } catch (err) {
          expect((err as AppError).code).toBe('BAD_USER_INPUT');
        }
      }),
    );
  });
});
