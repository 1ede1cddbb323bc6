import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { DOCUMENT_ID_PATTERN } from '../../../src/documents/validateInput.js';
import { documentIdForFile } from '../../../importers/pipeline/planSources.js';

describe('documentIdForFile', () => {
  it('keeps plain paths and percent-encodes what an id cannot hold', () => {
    expect(documentIdForFile('handbook/runbooks/failover.md')).toBe('file:handbook/runbooks/failover.md');
    expect(documentIdForFile('tree\\ünï\\日本.md')).toBe('file:tree/%C3%BCn%C3%AF/%E6%97%A5%E6%9C%AC.md');
    expect(documentIdForFile('a b%.md')).toBe('file:a%20b%25.md');
  });

  it('gives different names different ids, each a valid document id (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        (a, b) => {
          // A backslash is a path separator (Windows paths), the one character meant to map to another.
          fc.pre(a !== b && a.length > 0 && b.length > 0 && !a.includes('\\') && !b.includes('\\'));
          const [x, y] = [documentIdForFile(a), documentIdForFile(b)];
          expect(DOCUMENT_ID_PATTERN.test(x) && DOCUMENT_ID_PATTERN.test(y)).toBe(true);
          expect(x).not.toBe(y);
        },
      ),
    );
  });
});
