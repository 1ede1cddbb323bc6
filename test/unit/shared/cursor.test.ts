import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { decodeCursor, encodeCursor } from '../../../src/shared/cursor.js';
import type { AppError } from '../../../src/errors.js';

describe('cursors', () => {
  it('round-trip (property)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }),
        fc.string({ minLength: 1 }),
        (d, id) => {
          const c = { createdAt: d.toISOString(), id };
          expect(decodeCursor(encodeCursor(c))).toEqual(c);
        },
      ),
    );
  });

  it('reject anything that is not a cursor with BAD_USER_INPUT (property)', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        try {
          decodeCursor(s);
        } catch (err) {
          expect((err as AppError).code).toBe('BAD_USER_INPUT');
          expect((err as AppError).message).toContain('after');
        }
      }),
    );
    expect(() => decodeCursor(Buffer.from('["not a date","x"]').toString('base64url'))).toThrow(/cursor/);
  });
});
