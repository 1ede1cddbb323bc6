import fs from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { decodeHtmlBody, htmlToMarkdown } from '../../../importers/html/htmlToMarkdown.js';

const BASE = 'https://docs.example.com/guide/intro';
const page = (name: string) => fs.readFileSync(new URL(`../../fixtures/pages/${name}`, import.meta.url), 'utf8');
const convert = (name: string) => htmlToMarkdown(page(name), { baseUrl: BASE });
const linkTargets = (markdown: string) => [...markdown.matchAll(/\]\(([^)\s]+)/g)].map((m) => m[1]);

describe('htmlToMarkdown on saved pages', () => {
  // Text that only appears in chrome, scripts or styles of the fixtures.
  const noise: Record<string, string[]> = {
    'article.html': [
      'Accept all',
      'Manage cookie preferences',
      'Skip to content',
      "We're hiring",
      'Search the blog',
      'Share on Twitter',
      'Copy link',
      'Related posts',
      'Two years in a monorepo',
      'Press kit',
      '/tags/ci',
    ],
    'docs.html': [
      'This site uses cookies',
      'API reference',
      'SDKs',
      'Idempotency',
      'Event types',
      'On this page',
      '[Guides]',
      'Was this page helpful',
      'Edit this page',
      'Changelog',
      'Copy',
      'Search docs',
    ],
    'noisy.html': [
      'Your privacy',
      'Allow all',
      'Managed Kubernetes',
      'Cold archive',
      'Start free trial',
      'Related articles',
      'NVMe',
      'Stay in the loop',
      'Subscribe',
      'Email address',
      'Terms of service',
      'Video channel',
    ],
  };

  it.each(Object.keys(noise))('%s keeps no navigation, footer, banner, script, style, image or unsafe link', (name) => {
    const { markdown } = convert(name);
    for (const text of [
      ...noise[name]!,
      'SENTINEL',
      'dataLayer',
      'gtag(',
      'font-family',
      '<script',
      '<style',
      '<iframe',
      '<div',
      'javascript:',
      '![',
    ]) {
      expect(markdown).not.toContain(text);
    }
    expect(markdown).not.toMatch(/\n{3,}/);
    expect(markdown).toBe(markdown.trim());
    for (const target of linkTargets(markdown)) expect(target).toMatch(/^(https?|mailto):/);
  });

  it('article: headings, quote, absolute links and the text of a javascript: link', () => {
    const result = convert('article.html');
    const lines = result.markdown.split('\n');
    expect(lines[0]).toBe('# How We Cut Our CI Build Times in Half');
    expect(lines).toEqual(
      expect.arrayContaining([
        '## Start by measuring the right thing',
        '### A remote cache with content hashes',
        '## Lessons',
      ]),
    );
    expect(result.markdown).toContain('> If you cannot say where the minutes go, every optimisation is a guess.');
    expect(result.markdown).toContain('[CI conventions page](https://docs.example.com/handbook/ci-conventions)');
    expect(result.markdown).toContain('[how we quarantine flaky tests](https://docs.example.com/2023/11/flaky-tests)');
    expect(result.markdown).toContain("[CI provider's API](https://ci.example.org/docs/api)");
    expect(result.markdown).toContain('[lessons section](https://docs.example.com/guide/intro#lessons)');
    expect(result.markdown).toContain('subscribe to our newsletter for the follow-up post');
    expect(result.markdown).not.toContain('[subscribe to our newsletter]');
    expect(result).toMatchObject({
      title: 'How We Cut Our CI Build Times in Half',
      language: 'en-GB',
      description:
        'How the platform team moved from a single monolithic pipeline to cached, sharded builds and halved median CI time.',
      siteName: 'Northwind Engineering',
      byline: 'Priya Raman',
    });
  });

  it('docs: fenced code with languages, inline code, a GFM table and a nested list', () => {
    const result = convert('docs.html');
    const { markdown } = result;
    expect(markdown.split('\n')[0]).toBe('# Configuring webhooks');
    expect(markdown).toMatch(/^## Register an endpoint$/m);
    expect(markdown).toMatch(/^### Testing locally$/m);
    expect(markdown).toContain(
      '```bash\ncurl https://api.acme.example/v3/webhook_endpoints \\\n  -u "$ACME_API_KEY:" \\\n',
    );
    expect(markdown).toContain(
      "```typescript\nimport { createHmac, timingSafeEqual } from 'node:crypto';\n\nexport function verify(body: Buffer, header: string, secret: string): boolean {\n",
    );
    expect(markdown).toContain(
      '  return header.length === expected.length &&\n    timingSafeEqual(Buffer.from(header), Buffer.from(expected));\n}\n```',
    );
    expect(markdown).toContain('such as `payment.succeeded` as soon as');
    expect(markdown).toContain(
      [
        '| Attempt | Delay after previous attempt | Total elapsed |',
        '| --- | --- | --- |',
        '| 1 | immediately | 0 s |',
        '| 2 | 1 minute | 1 min |',
        '| 3 | 10 minutes | 11 min |',
        '| 4 | 1 hour | 1 h 11 min |',
        '| 5 | 6 hours | 7 h 11 min |',
      ].join('\n'),
    );
    expect(markdown).toContain(
      '- Store the event id and ignore duplicates.\n  - Use a unique index on the event id.\n  - Keep ids for at least seven days.\n- Fetch the latest object state',
    );
    expect(markdown).toContain('[Payments API](https://docs.example.com/api/payments)');
    expect(markdown).toContain('[Authentication](https://docs.example.com/guide/authentication#scopes)');
    expect(result).toMatchObject({
      title: 'Configuring webhooks',
      language: 'en',
      description: 'Register webhook endpoints, verify signatures and handle retries for Acme Payments events.',
      siteName: 'Acme Payments Docs',
    });
  });

  it('noisy: only the short notice survives, via the cleaned body', () => {
    const result = convert('noisy.html');
    expect(result.markdown).toBe(
      [
        '# Scheduled maintenance on 14 March',
        '',
        'On **14 March 2024 between 02:00 and 04:00 CET** we will upgrade the storage network in the Frankfurt region (fra1). Running virtual machines are not affected.',
        '',
        'During the window, creating snapshots and attaching new volumes may fail. Please retry after 04:00 or contact [support](https://docs.example.com/support).',
      ].join('\n'),
    );
    expect(result).toMatchObject({
      title: 'Scheduled maintenance on 14 March',
      language: 'de-DE',
      description: 'Planned maintenance window for the Frankfurt region.',
      siteName: 'Helio Cloud',
      byline: undefined,
    });
  });

  it('leaves relative links relative when there is no base URL', () => {
    expect(htmlToMarkdown(page('noisy.html')).markdown).toContain('[support](/support)');
  });
});

describe('htmlToMarkdown metadata', () => {
  const head = (tags: string) =>
    `<!doctype html><html><head>${tags}</head><body><h1>  First \n heading </h1><p>Body.</p></body></html>`;

  it('takes the title from og:title, then <title>, then the first h1, whitespace collapsed', () => {
    expect(
      htmlToMarkdown(head('<meta property="og:title" content=" Open  Graph "><title>Tab title</title>')).title,
    ).toBe('Open Graph');
    expect(htmlToMarkdown(head('<meta property="og:title" content="  "><title> Tab\n  title </title>')).title).toBe(
      'Tab title',
    );
    expect(htmlToMarkdown(head('')).title).toBe('First heading');
    expect(htmlToMarkdown('<p>No title at all</p>').title).toBeUndefined();
    expect(htmlToMarkdown('<svg><title>Icon</title></svg><p>x</p>').title).toBeUndefined();
  });

  it('takes the language from <html lang>, then og:locale, then content-language', () => {
    const page = (htmlAttrs: string, tags: string) =>
      `<html ${htmlAttrs}><head>${tags}</head><body><p>x</p></body></html>`;
    expect(htmlToMarkdown(page('lang="fr-CA"', '<meta property="og:locale" content="en_US">')).language).toBe('fr-CA');
    expect(htmlToMarkdown(page('', '<meta property="og:locale" content="en_US">')).language).toBe('en-US');
    expect(htmlToMarkdown(page('', '<meta http-equiv="Content-Language" content="nl, en">')).language).toBe('nl');
    expect(htmlToMarkdown(page('', '')).language).toBeUndefined();
  });

  it('takes the description from meta description, then og:description; site name from og:site_name', () => {
    const both = htmlToMarkdown(
      head(
        '<meta property="og:description" content="OG"><meta name="description" content="Plain"><meta property="og:site_name" content="Site">',
      ),
    );
    expect(both).toMatchObject({ description: 'Plain', siteName: 'Site' });
    expect(htmlToMarkdown(head('<meta property="og:description" content="OG">'))).toMatchObject({
      description: 'OG',
      siteName: undefined,
    });
  });
});

describe('htmlToMarkdown conversion details', () => {
  it('accepts fragments and empty input', () => {
    expect(htmlToMarkdown('<p>Hello <em>you</em></p>').markdown).toBe('Hello _you_');
    expect(htmlToMarkdown('').markdown).toBe('');
  });

  it('drops javascript:, vbscript: and data: links but keeps their text', () => {
    const html = `<p><a href="javascript:alert(1)">one</a> <a href=" JavaScript:void(0)">two</a> <a href="java&#x0A;script:x">three</a>
      <a href="vbscript:msgbox">four</a> <a href="data:text/html;base64,PHNjcmlwdD4=">five</a> <a href="/ok">six</a></p>`;
    const { markdown } = htmlToMarkdown(html, { baseUrl: 'https://a.example/x/y' });
    expect(markdown).toBe('one two three four five [six](https://a.example/ok)');
  });

  it('resolves links against <base href>, itself relative to the page URL', () => {
    const html =
      '<html><head><base href="/docs/v2/"></head><body><p><a href="setup">Setup</a> and <a href="mailto:ops@example.com">mail</a></p></body></html>';
    expect(htmlToMarkdown(html, { baseUrl: 'https://a.example/x/y' }).markdown).toBe(
      '[Setup](https://a.example/docs/v2/setup) and [mail](mailto:ops@example.com)',
    );
  });

  it('drops images, image-only links and heading permalinks, keeping figure captions', () => {
    const html = `<h2>Install <a class="headerlink" href="#install">¶</a></h2><p><a href="/big.png"><img src="/thumb.png" alt="Thumb"></a>Text
      <img src="x.png" alt="inline"></p><figure><picture><img src="c.png"></picture><figcaption>Latency by region</figcaption></figure><svg><text>chart</text></svg>`;
    expect(htmlToMarkdown(html, { baseUrl: 'https://a.example/' }).markdown).toBe(
      '## Install\n\nText\n\nLatency by region',
    );
  });

  it('writes fenced code with the language from lang-, highlight- and language- classes', () => {
    const html = `<pre class="lang-json"><code>{"a": 1}</code></pre>
      <div class="highlight-python notranslate"><div class="highlight"><pre>print("\`\`\`")</pre></div></div>
      <pre><code class="language-sql">SELECT 1;</code></pre><pre><code>plain\n\n\n\nblank lines kept</code></pre>`;
    expect(htmlToMarkdown(html).markdown).toBe(
      '```json\n{"a": 1}\n```\n\n````python\nprint("```")\n````\n\n```sql\nSELECT 1;\n```\n\n```\nplain\n\n\n\nblank lines kept\n```',
    );
  });

  it('writes a table without a header row as a GFM table, promoting its first row', () => {
    const html =
      '<table><tr><td>Key</td><td>Value</td></tr><tr><td>a|b</td><td><p>two</p><p>lines</p></td></tr></table>';
    expect(htmlToMarkdown(html).markdown).toBe('| Key | Value |\n| --- | --- |\n| a\\|b | two lines |');
  });

  it('keeps one header row per table and unwraps layout tables into their cells', () => {
    const twoHeaderRows =
      '<table><thead><tr><th>A</th></tr><tr><th>B</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>';
    expect(htmlToMarkdown(twoHeaderRows).markdown).toBe('| A |\n| --- |\n| B |\n| 1 |');
    const layout =
      '<table><tr><td><p>Left</p><table><tr><th>h</th></tr><tr><td>v</td></tr></table></td><td>Right</td></tr></table>';
    expect(htmlToMarkdown(layout).markdown).toBe('Left\n\n| h |\n| --- |\n| v |\n\nRight');
    expect(
      htmlToMarkdown('<table role="presentation"><tr><td>Left</td><td>Right</td></tr></table><table></table>').markdown,
    ).toBe('Left\n\nRight');
  });

  it('collapses runs of blank lines and turns non-breaking spaces into spaces, outside code', () => {
    expect(htmlToMarkdown('<p>a<br><br><br><br>b</p><div><br></div><div><br></div><p>c</p>').markdown).toMatch(
      /^a\s*\n\nb\n\nc$/,
    );
    expect(htmlToMarkdown('<p>1&nbsp;min</p><pre>x&nbsp;=&nbsp;1</pre>').markdown).toBe(
      '1 min\n\n```\nx\u00a0=\u00a01\n```',
    );
  });

  it('extracts long pages without semantic markup with Readability, keeping the h1 and every paragraph', () => {
    const paragraph = (i: number) =>
      `<p>Paragraph ${i} explains one more step of the migration in enough detail to count as real content for the extractor.</p>`;
    const html = `<div class="menu"><a href="/a">A</a></div><div id="post"><h1>Migration</h1>${Array.from({ length: 8 }, (_, i) => paragraph(i)).join('')}</div>`;
    const { markdown } = htmlToMarkdown(html);
    expect(markdown.startsWith('# Migration\n\nParagraph 0 explains')).toBe(true);
    expect(markdown).toContain('Paragraph 7 explains');
    expect(markdown).not.toContain('[A]');
  });
});

describe('decodeHtmlBody', () => {
  // "café – “quoted”" in windows-1252: é=E9, en dash=96, curly quotes=93/94.
  const cp1252 = Buffer.from([
    0x63, 0x61, 0x66, 0xe9, 0x20, 0x96, 0x20, 0x93, 0x71, 0x75, 0x6f, 0x74, 0x65, 0x64, 0x94,
  ]);
  const expected = 'café – “quoted”';
  const withMeta = (meta: string) =>
    Buffer.concat([Buffer.from(`<html><head>${meta}</head><body><p>`), cp1252, Buffer.from('</p></body></html>')]);

  it('uses the HTTP charset', () => {
    expect(decodeHtmlBody(cp1252, 'windows-1252')).toBe(expected);
    expect(decodeHtmlBody(cp1252, 'ISO-8859-1')).toBe(expected);
  });

  it('uses <meta charset> or http-equiv in the first 1024 bytes when there is no HTTP charset', () => {
    expect(decodeHtmlBody(withMeta('<meta charset="windows-1252">'), undefined)).toContain(`<p>${expected}</p>`);
    expect(
      decodeHtmlBody(withMeta('<meta http-equiv="Content-Type" content="text/html; charset=latin1">'), undefined),
    ).toContain(expected);
    const late = Buffer.concat([Buffer.from(`<!--${' '.repeat(1100)}-->`), withMeta('<meta charset="windows-1252">')]);
    expect(decodeHtmlBody(late, undefined)).toContain('caf\uFFFD');
  });

  it('prefers the HTTP charset over <meta>, and a BOM over both', () => {
    expect(decodeHtmlBody(withMeta('<meta charset="utf-8">'), 'windows-1252')).toContain(expected);
    const utf8 = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(`<meta charset="windows-1252"><p>${expected}</p>`),
    ]);
    expect(decodeHtmlBody(utf8, 'windows-1252')).toBe(`<meta charset="windows-1252"><p>${expected}</p>`);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`<p>${expected}</p>`, 'utf16le')]);
    expect(decodeHtmlBody(utf16, 'utf-8')).toBe(`<p>${expected}</p>`);
  });

  it('defaults to UTF-8, also for unknown labels', () => {
    const utf8 = Buffer.from(`<p>${expected}</p>`);
    expect(decodeHtmlBody(utf8, undefined)).toBe(`<p>${expected}</p>`);
    expect(decodeHtmlBody(utf8, 'x-no-such-charset')).toBe(`<p>${expected}</p>`);
    expect(decodeHtmlBody(Buffer.from(`<meta charset="bogus"><p>${expected}</p>`), undefined)).toContain(expected);
  });
});
