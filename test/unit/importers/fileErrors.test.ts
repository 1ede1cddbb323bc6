import { describe, expect, it } from '@jest/globals';
import { FileError, invalidFile, unsupportedFile } from '../../../importers/files/fileErrors.js';
import { AppError } from '../../../src/errors.js';

describe('FileError', () => {
  it('names its subject first, and about() swaps the subject but keeps the problem, code, details and cause', () => {
    const original = invalidFile('204', 'contains no text', { page: 3 });
    expect(original).toBeInstanceOf(AppError);
    expect(original.message).toBe('"204" contains no text');

    const named = original.about('http://127.0.0.1:9/204', { url: 'http://127.0.0.1:9/204' });
    expect(named).toBeInstanceOf(FileError);
    expect(named.code).toBe('INVALID_FILE');
    expect(named.message).toBe('"http://127.0.0.1:9/204" contains no text');
    expect(named.details).toEqual({ fileName: '204', page: 3, url: 'http://127.0.0.1:9/204' });
    expect(named.cause).toBe(original);
  });

  it('rebuilds the message from the problem, whatever the file name holds', () => {
    const error = unsupportedFile('"a" b', 'is "a" b, a binary file');
    const named = error.about('https://example.com/x', {});
    expect(named.code).toBe('UNSUPPORTED_CONTENT_TYPE');
    expect(named.message).toMatch(/^"https:\/\/example\.com\/x" is "a" b, a binary file; supported formats are /);
  });
});
