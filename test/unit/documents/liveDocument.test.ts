import { describe, expect, it } from '@jest/globals';
import { isLiveAt } from '../../../src/documents/filterSql.js';

// The JS form of the live-document rule must agree with the SQL form (`expires_at > now()`): expired at the instant.
describe('isLiveAt', () => {
  const expiry = new Date('2030-01-01T00:00:00.000Z');

  it('keeps a document without expiry', () => {
    expect(isLiveAt(null, expiry.getTime())).toBe(true);
  });

  it('keeps a document before its expiry and drops it from the expiry instant on', () => {
    expect(isLiveAt(expiry, expiry.getTime() - 1)).toBe(true);
    expect(isLiveAt(expiry, expiry.getTime())).toBe(false);
    expect(isLiveAt(expiry, expiry.getTime() + 1)).toBe(false);
  });
});
