import { describe, expect, it } from '@jest/globals';
import { extractLinks, resolveLinkTarget } from '../../../src/extraction/structural/links.js';

const links = (markdown: string) => extractLinks(markdown);

describe('resolveLinkTarget: folder imports (source is the relative path)', () => {
  it('resolves a Vite root-relative link with a fragment to the page file', () => {
    const targets = resolveLinkTarget('/guide/features#npm-dependency-resolving', 'guide/index.md');
    expect(targets).toContain('guide/features.md');
    expect(targets.some((t) => t.includes('#'))).toBe(false);
  });

  it('resolves ./x, x and ../x against the folder of the linking file', () => {
    expect(resolveLinkTarget('./features', 'guide/index.md')).toContain('guide/features.md');
    expect(resolveLinkTarget('features', 'guide/index.md')).toContain('guide/features.md');
    expect(resolveLinkTarget('../config/server-options', 'guide/index.md')).toContain('config/server-options.md');
    expect(resolveLinkTarget('./api-hmr.md', 'guide/features.md')).toEqual(
      expect.arrayContaining(['guide/api-hmr.md', 'guide/api-hmr.html', 'guide/api-hmr']),
    );
  });

  it('maps a folder link to its index page, with or without a trailing slash', () => {
    expect(resolveLinkTarget('../config/', 'guide/index.md')).toEqual(
      expect.arrayContaining(['config/index.md', 'config/index.html', 'config/']),
    );
    expect(resolveLinkTarget('/guide/', 'blog/announcing-vite5.md')).toContain('guide/index.md');
    expect(resolveLinkTarget('./', 'guide/features.md')).toContain('guide/index.md');
    expect(resolveLinkTarget('../guide/index.html', 'config/index.md')).toContain('guide/index.md');
  });

  it('tries every folder above the file as the site root for a root-relative link', () => {
    // The folder imported may be the repository (docs/guide/…) or the docs folder itself (guide/…).
    const targets = resolveLinkTarget('/config/server-options', 'docs/guide/features.md');
    expect(targets).toContain('config/server-options.md');
    expect(targets).toContain('docs/config/server-options.md');
    expect(targets.indexOf('config/server-options.md')).toBeLessThan(targets.indexOf('docs/config/server-options.md'));
  });

  it('swaps .html for .md and drops the query', () => {
    expect(resolveLinkTarget('./build.html?v=3', 'guide/index.md')).toContain('guide/build.md');
  });

  it('decodes percent-encoding in file paths', () => {
    expect(resolveLinkTarget('./my%20notes.md', 'notes/index.md')).toContain('notes/my notes.md');
  });

  it('returns nothing for anchors on the same page, mail, javascript and paths above the root', () => {
    expect(resolveLinkTarget('#browser-cache', 'guide/features.md')).toEqual([]);
    expect(resolveLinkTarget('mailto:team@vite.dev', 'guide/features.md')).toEqual([]);
    expect(resolveLinkTarget('javascript:void(0)', 'guide/features.md')).toEqual([]);
    expect(resolveLinkTarget('../../outside.md', 'guide/features.md')).toEqual([]);
    expect(resolveLinkTarget('  ', 'guide/features.md')).toEqual([]);
  });

  it('returns each candidate once', () => {
    const targets = resolveLinkTarget('/guide/features', 'docs/guide/index.md');
    expect(new Set(targets).size).toBe(targets.length);
  });
});

describe('resolveLinkTarget: URL, site and git imports', () => {
  it('resolves against a page URL and drops the fragment', () => {
    expect(resolveLinkTarget('./features#typescript', 'https://vite.dev/guide/')).toContain(
      'https://vite.dev/guide/features',
    );
    expect(resolveLinkTarget('../config/', 'https://vite.dev/guide/features')).toContain('https://vite.dev/config/');
    expect(resolveLinkTarget('/guide/ssr', 'https://vite.dev/guide/features')).toContain('https://vite.dev/guide/ssr');
  });

  it('keeps an absolute URL with and without its query, and adds page variants', () => {
    const targets = resolveLinkTarget('https://vite.dev/guide/features.html?x=1#y', null);
    expect(targets[0]).toBe('https://vite.dev/guide/features.html?x=1');
    expect(targets).toContain('https://vite.dev/guide/features.html');
    expect(targets).toContain('https://vite.dev/guide/features');
  });

  it('resolves inside a repository file URL, root-relative links included', () => {
    const from = 'https://github.com/vitejs/vite/blob/0123abc/docs/guide/features.md';
    expect(resolveLinkTarget('./dep-pre-bundling#browser-cache', from)).toContain(
      'https://github.com/vitejs/vite/blob/0123abc/docs/guide/dep-pre-bundling.md',
    );
    // Root-relative: the site root is the docs folder, not github.com.
    const rooted = resolveLinkTarget('/config/server-options', from);
    expect(rooted).toContain('https://github.com/vitejs/vite/blob/0123abc/docs/config/server-options.md');
    expect(rooted.some((t) => t.startsWith('https://github.com/config'))).toBe(false);
  });

  it('resolves inside a GitLab file URL', () => {
    const from = 'https://gitlab.com/group/project/-/blob/main/docs/a.md';
    expect(resolveLinkTarget('b.md', from)).toContain('https://gitlab.com/group/project/-/blob/main/docs/b.md');
  });

  it('resolves inside a `<repository url>#<path>` source', () => {
    const from = 'https://git.example.org/team/docs.git#guide/index.md';
    expect(resolveLinkTarget('./api.md', from)).toContain('https://git.example.org/team/docs.git#guide/api.md');
    expect(resolveLinkTarget('/config/', 'git@host.example:team/docs.git#guide/index.md')).toContain(
      'git@host.example:team/docs.git#config/index.md',
    );
  });

  it('resolves a root-relative link with no source against the root', () => {
    expect(resolveLinkTarget('/guide/features', null)).toContain('guide/features.md');
  });
});

describe('extractLinks', () => {
  it('finds markdown, reference and HTML links with their text, and skips images, anchors and mail', () => {
    const found = links(
      [
        'Vite provides an [HMR API](./api-hmr) over native ESM, see [`server.hmr`](/config/server-options#server-hmr).',
        '![logo](/logo.svg) [Jump](#top) [Mail us](mailto:a@b.c) [![badge](b.svg)](https://npmjs.com/vite)',
        '<a href="/guide/ssr.html" class="x">Server-Side <b>Rendering</b></a>',
        '[rollup docs]: https://rollupjs.org/configuration-options/',
        '[Title](./why.md "Why Vite")',
      ].join('\n'),
    );
    expect(found).toEqual([
      { href: './api-hmr', text: 'HMR API' },
      { href: '/config/server-options#server-hmr', text: 'server.hmr' },
      { href: 'https://npmjs.com/vite', text: '' },
      { href: '/guide/ssr.html', text: 'Server-Side Rendering' },
      { href: 'https://rollupjs.org/configuration-options/', text: 'rollup docs' },
      { href: './why.md', text: 'Title' },
    ]);
  });

  it('ignores links inside code blocks and inline code, and lists a repeated link once', () => {
    const found = links(
      [
        'See [Features](./features).',
        '```md',
        '[not a link](./nope)',
        '```',
        '`[also not](./x)` [Features](./features)',
      ].join('\n'),
    );
    expect(found).toEqual([{ href: './features', text: 'Features' }]);
  });

  it('skips template bindings such as :href', () => {
    expect(links('<a :href="dep.repository">{{ dep.name }}</a> <a data-href="x" href="/team">Team</a>')).toEqual([
      { href: '/team', text: 'Team' },
    ]);
  });

  it('reads a link whose target has parentheses', () => {
    expect(links('[Kiss and Tell](/wiki/Kiss_and_Tell_(1945_film))')).toEqual([
      { href: '/wiki/Kiss_and_Tell_(1945_film)', text: 'Kiss and Tell' },
    ]);
  });
});
