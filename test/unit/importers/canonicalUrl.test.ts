import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { DOCUMENT_ID_PATTERN } from '../../../src/documents/validateInput.js';
import { canonicalUrl, documentIdForUrl } from '../../../importers/url/canonicalUrl.js';
import { failureOf } from '../../helpers/failureOf.js';

describe('canonicalUrl', () => {
  it('lower-cases scheme and host but keeps the path case', () => {
    expect(canonicalUrl('HTTPS://Docs.Example.COM/Guide/Intro')).toBe('https://docs.example.com/Guide/Intro');
  });

  it('drops default ports, fragments and an empty query', () => {
    expect(canonicalUrl('https://example.com:443/a#top')).toBe('https://example.com/a');
    expect(canonicalUrl('http://example.com:80/a?')).toBe('http://example.com/a');
    expect(canonicalUrl('https://example.com:8443/a?#')).toBe('https://example.com:8443/a');
  });

  it('drops utm_*, gclid and fbclid and keeps the other parameters in order, as encoded', () => {
    expect(
      canonicalUrl('https://example.com/p?b=2&utm_source=news&a=1&gclid=xyz&UTM_Medium=mail&fbclid=abc&q=utm_source'),
    ).toBe('https://example.com/p?b=2&a=1&q=utm_source');
    expect(canonicalUrl('https://example.com/p?utm_campaign=spring')).toBe('https://example.com/p');
    expect(canonicalUrl('https://example.com/p?q=a%20b&path=%2Fx&z=1&a=2')).toBe(
      'https://example.com/p?q=a%20b&path=%2Fx&z=1&a=2',
    );
  });

  it('rejects text that is not an absolute URL with BAD_USER_INPUT', async () => {
    for (const bad of ['', 'not a url', '/relative/path']) {
      const error = (async () => canonicalUrl(bad))();
      await expect(failureOf(error)).resolves.toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'url' } });
    }
  });
});

describe('documentIdForUrl', () => {
  it('is the canonical URL when that is a valid id, the same for every variant of it', () => {
    const id = documentIdForUrl('HTTPS://Docs.Example.com:443/guide/install?utm_source=x&v=2#top');
    expect(id).toBe('https://docs.example.com/guide/install?v=2');
    expect(documentIdForUrl('https://docs.example.com/guide/install?v=2&fbclid=1')).toBe(id);
    expect(documentIdForUrl('https://docs.example.com/guide/install?v=3')).not.toBe(id);
  });

  it('is url: + 32 hex chars of the sha256 of the canonical URL otherwise', () => {
    const canonical = 'https://en.example.org/wiki/Mercury_(planet)';
    const expected = `url:${createHash('sha256').update(canonical).digest('hex').slice(0, 32)}`;
    expect(documentIdForUrl(`${canonical}#Orbit`)).toBe(expected);
    expect(documentIdForUrl(canonical)).toBe(expected);
    const long = `https://example.com/${'a'.repeat(600)}`;
    expect(documentIdForUrl(long)).toMatch(/^url:[0-9a-f]{32}$/);
    expect(documentIdForUrl(long)).not.toBe(documentIdForUrl(`${long}b`));
  });

  it('canonicalUrl is idempotent and ids are always valid and ignore tracking noise (property)', () => {
    const tracking = fc.constantFrom('utm_source=a', 'utm_medium=b', 'gclid=c', 'fbclid=d');
    fc.assert(
      fc.property(
        fc.webUrl({
          withQueryParameters: true,
          withFragments: true,
          authoritySettings: { withPort: true, withIPv4: true, withIPv6: true },
        }),
        fc.array(tracking, { maxLength: 3 }),
        (url, noise) => {
          const canonical = canonicalUrl(url);
          expect(canonicalUrl(canonical)).toBe(canonical);
          expect(canonical).not.toMatch(/#|[?&](utm_|gclid=|fbclid=)/i);
          const id = documentIdForUrl(url);
          expect(id).toMatch(DOCUMENT_ID_PATTERN);
          const [base, fragment] = url.split('#', 2) as [string, string | undefined];
          const noisy = `${base}${base.includes('?') ? '&' : '?'}${noise.join('&')}${fragment === undefined ? '' : `#${fragment}`}`;
          expect(documentIdForUrl(noisy)).toBe(id);
        },
      ),
      { numRuns: 500 },
    );
  });
});
