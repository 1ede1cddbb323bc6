import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { scanDirectory, skippedFileWarnings, walkDirectory } from '../../../importers/index.js';

describe('scanDirectory: what a folder import takes and what it leaves out, with why', () => {
  let root: string;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-scan-'));
    const write = (rel: string) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), 'x');
    };
    for (const f of ['guide.md', 'docs/logo.png', 'docs/arch.svg', 'docs/flow.drawio', 'data.csv', 'Makefile'])
      write(f);
    for (const f of ['.hidden.png', '.git/config', 'node_modules/pkg/readme.png']) write(f);
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('lists each skipped file with its reason; hidden entries and node_modules stay silent', async () => {
    const scan = await scanDirectory(root);
    expect(scan.files).toEqual(['guide.md']);
    expect(await walkDirectory(root)).toEqual(['guide.md']);
    expect(scan.skipped).toEqual([
      { path: 'Makefile', reason: 'no extension, so the format is unknown' },
      {
        path: 'data.csv',
        reason: '.csv is not a format Cairn imports (it imports md, txt, rst, html, pdf, docx, yaml and json)',
      },
      { path: 'docs/arch.svg', reason: 'Cairn imports text, not images' },
      {
        path: 'docs/flow.drawio',
        reason: 'no importer reads diagram files; describe the diagram in a markdown file',
      },
      { path: 'docs/logo.png', reason: 'Cairn imports text, not images' },
    ]);
  });

  it('groups the warnings by reason, naming at most ten files each', async () => {
    const warnings = skippedFileWarnings((await scanDirectory(root)).skipped);
    expect(warnings).toContain('skipped 2 files: docs/arch.svg, docs/logo.png (Cairn imports text, not images)');
    expect(warnings).toHaveLength(4);
    const many = Array.from({ length: 12 }, (_, i) => ({
      path: `p${i}.png`,
      reason: 'Cairn imports text, not images',
    }));
    expect(skippedFileWarnings(many)).toEqual([
      'skipped 12 files: p0.png, p1.png, p2.png, p3.png, p4.png, p5.png, p6.png, p7.png, p8.png, p9.png and 2 more (Cairn imports text, not images)',
    ]);
  });
});
