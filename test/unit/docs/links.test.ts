import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { anchorsOf, brokenLinks } from '../../helpers/markdownLinks.js';

const root = path.resolve(import.meta.dirname, '../../..');
/** The pages a reader follows: the README, the contributor guide, docs/ and the benchmarks' guide. */
const pages = (): string[] => [
  'README.md',
  'CONTRIBUTING.md',
  'bench/README.md',
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
/** Pages allowed to be missing (none). */
const pending: string[] = [];

describe('documentation links', () => {
  it('has no broken relative link or anchor in the README, CONTRIBUTING.md, docs/ or bench/README.md', () => {
    expect(pages().length).toBeGreaterThan(10);
    expect(brokenLinks(root, pages(), pending)).toEqual([]);
  });

  it('reports a missing file and a missing anchor, and slugs headings as GitHub does', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-links-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'a.md'),
        '# Files: POST /v1/uploads and `importUpload`\n\n## Setup\n\n## Setup\n\n[ok](#files-post-v1uploads-and-importupload) [ok](#setup-1) [ok](b.md#b-page) [web](https://example.com/x#y)\n\n[gone](missing.md) [no anchor](b.md#nope) [self](#nope-here)\n\n```md\n[in code](ignored.md)\n```\n',
      );
      fs.writeFileSync(path.join(dir, 'b.md'), '# B page\n');
      expect(brokenLinks(dir, ['a.md']).map((b) => b.href)).toEqual(['missing.md', 'b.md#nope', '#nope-here']);
      expect(brokenLinks(dir, ['a.md'], ['missing.md']).map((b) => b.href)).toEqual(['b.md#nope', '#nope-here']);
      expect([...anchorsOf('## The `cairn` command\n## Load: npm run bench:load\n')]).toEqual([
        'the-cairn-command',
        'load-npm-run-benchload',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
