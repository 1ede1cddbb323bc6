import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCliInProcess } from '../helpers/cli.js';
import { scratchPglite, type ScratchDatabase } from '../helpers/databases.js';

// `cairn import dir` says which files it leaves out and why: on stderr, as NDJSON `skipped` events with --json, and in
// the import job's warnings.

describe('cairn import dir reports the files it skips', () => {
  let data: ScratchDatabase;
  let folder: string;
  const env = () => ({ ...data.env, CAIRN_EMBEDDING_PROVIDER: 'hashing' });
  beforeAll(async () => {
    data = await scratchPglite();
    folder = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-skipped-')), 'wiki');
    fs.mkdirSync(path.join(folder, 'img'), { recursive: true });
    fs.writeFileSync(path.join(folder, 'guide.md'), '# Guide\n\nDeploys go out on Tuesdays.');
    fs.writeFileSync(path.join(folder, 'img', 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    fs.writeFileSync(path.join(folder, 'img', 'arch.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    fs.writeFileSync(path.join(folder, 'architecture.drawio'), '<mxfile/>');
  });
  afterAll(() => {
    void data?.drop();
    fs.rmSync(path.dirname(folder), { recursive: true, force: true });
  });

  it('names them on stderr and in the job warnings the summary prints', async () => {
    const res = await runCliInProcess(['import', 'dir', folder], env());
    expect(res.code).toBe(0);
    const images = 'skipped 2 files: img/arch.svg, img/logo.png (Cairn imports text, not images)';
    const diagram =
      'skipped 1 file: architecture.drawio (no importer reads diagram files; describe the diagram in a markdown file)';
    // Before the import starts, and again among the job's warnings in the summary.
    expect(res.stderr.split('\n').filter((l) => l === images)).toHaveLength(1);
    expect(res.stderr).toContain(`warning: ${images}`);
    expect(res.stderr).toContain(`warning: ${diagram}`);
    expect(res.stderr).toContain('1/1 items imported');
  });

  it('emits one skipped event per file with --json', async () => {
    const res = await runCliInProcess(['import', 'dir', folder, '--json'], env());
    expect(res.code).toBe(0);
    const events = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; path?: string; reason?: string });
    expect(events.filter((e) => e.event === 'skipped')).toEqual([
      {
        event: 'skipped',
        path: 'architecture.drawio',
        reason: 'no importer reads diagram files; describe the diagram in a markdown file',
      },
      { event: 'skipped', path: 'img/arch.svg', reason: 'Cairn imports text, not images' },
      { event: 'skipped', path: 'img/logo.png', reason: 'Cairn imports text, not images' },
    ]);
    expect(events.at(-1)?.event).toBe('summary');
  });

  it('says why when a folder holds nothing it can import', async () => {
    const images = path.join(folder, 'img');
    const res = await runCliInProcess(['import', 'dir', images], env());
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('has no md, txt, rst, html, pdf, docx, yaml or json files');
    expect(res.stderr).toContain('skipped 2 files: arch.svg, logo.png (Cairn imports text, not images)');
  });
});
