import { describe, expect, it } from '@jest/globals';
import { resolveLinkTarget } from '../../../src/extraction/structural/index.js';

/** The pipeline's view: the sources a link from `source` may point to. */
const linkTargetSources = (source: string | null, href: string) => resolveLinkTarget(href, source);

describe('link targets as the pipeline resolves them', () => {
  it('resolves relative links of a folder import against the document path', () => {
    const targets = linkTargetSources('guide/intro.md', '../config.md#server-port');
    expect(targets).toContain('config.md');
    expect(linkTargetSources('guide/intro.md', './features')).toEqual(expect.arrayContaining(['guide/features.md']));
    expect(linkTargetSources('guide/intro.md', '/api/')).toEqual(expect.arrayContaining(['api/index.md']));
  });

  it('resolves links of web pages and git web URLs as URLs', () => {
    expect(linkTargetSources('https://vite.dev/guide/', '../config/#server')).toContain('https://vite.dev/config/');
    expect(linkTargetSources('https://github.com/o/r/blob/abc/docs/guide.md', './config.md')).toContain(
      'https://github.com/o/r/blob/abc/docs/config.md',
    );
    expect(linkTargetSources('https://git.example/r.git#docs/guide.md', 'api.md')).toContain(
      'https://git.example/r.git#docs/api.md',
    );
  });

  it('leaves out anchors, mail links and paths above the root', () => {
    expect(linkTargetSources('guide/intro.md', '#usage')).toEqual([]);
    expect(linkTargetSources('guide/intro.md', 'mailto:a@b.c')).toEqual([]);
    expect(linkTargetSources('intro.md', '../../etc/passwd')).toEqual([]);
    expect(linkTargetSources(null, './x.md')).toEqual([]);
  });
});
