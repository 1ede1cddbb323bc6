import { describe, expect, it } from '@jest/globals';
import { redactUrl } from '../../../importers/http/redactUrl.js';
import { validateImportUrl, validateOpenApiImport, validateUrlImport } from '../../../importers/validateImportInput.js';
import { failureOf } from '../../helpers/failureOf.js';

describe('redactUrl', () => {
  it('replaces a user name and password with ***, and leaves other URLs as they are', () => {
    expect(redactUrl('http://user:s3cret@127.0.0.1:8080/plain.txt?q=1#f')).toBe(
      'http://***@127.0.0.1:8080/plain.txt?q=1#f',
    );
    expect(redactUrl(new URL('https://:s3cret@example.com/'))).toBe('https://***@example.com/');
    expect(redactUrl('https://user@example.com/a')).toBe('https://***@example.com/a');
    expect(redactUrl('https://example.com/a@b?c=d@e')).toBe('https://example.com/a@b?c=d@e');
    expect(redactUrl('HTTPS://Example.com/A')).toBe('HTTPS://Example.com/A');
  });

  it('redacts text that is not a parsable URL the same way', () => {
    expect(redactUrl('http://user:s3cret@exa mple.com/x')).toBe('http://***@exa mple.com/x');
    expect(redactUrl('not a url')).toBe('not a url');
  });
});

describe('import URLs keep no credentials', () => {
  it('stores and echoes a URL with credentials as http://***@…', async () => {
    expect(validateImportUrl('http://user:s3cret@example.com/a', 'input.url')).toBe('http://***@example.com/a');
    expect(validateUrlImport({ urls: ['http://user:s3cret@example.com/a', 'https://example.com/b'] })).toMatchObject({
      urls: ['http://***@example.com/a', 'https://example.com/b'],
    });
    expect(validateOpenApiImport({ url: 'https://u:s3cret@example.com/spec.yaml' }, 1000)).toMatchObject({
      url: 'https://***@example.com/spec.yaml',
    });
    const bad = await failureOf((async () => validateImportUrl('http://user:s3cret@exa mple.com/a', 'input.url'))());
    expect(bad).toMatchObject({
      code: 'BAD_USER_INPUT',
      message: 'input.url: "http://***@exa mple.com/a" is not an absolute URL (e.g. https://example.com/docs)',
    });
  });
});
