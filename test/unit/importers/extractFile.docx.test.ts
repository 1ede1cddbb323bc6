import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import fs, { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import JSZip from 'jszip';
import { extractFile } from '../../../importers/files/extractFile.js';
import { buildBombDocx, buildHandbookDocx, documentXml, fixture, lieAboutSize, para } from './fileFixtures.js';

const LIMITS = { pdfMaxPages: 500, maxUnzippedBytes: 100 * 1024 * 1024 };
const MB = 1024 * 1024;

describe('extractFile: docx', () => {
  let dir: string;
  let secretImage: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'cairn-docx-'));
    secretImage = path.join(dir, 'secret-diagram.png');
    writeFileSync(secretImage, Buffer.from('89504e470d0a1a0a', 'hex'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('converts headings, paragraphs, tables and links to markdown; drops linked images without reading them', async () => {
    const bytes = await buildHandbookDocx({
      coreTitle: 'Handbook &amp; Policies',
      imageTarget: pathToFileURL(secretImage).href,
    });
    const readFile = jest.spyOn(fs.promises, 'readFile');
    const fetchSpy = jest.spyOn(globalThis, 'fetch');
    let reads: string[] = [];
    let fetches = 0;
    const result = await extractFile({ fileName: 'handbook.docx', bytes }, LIMITS).finally(() => {
      reads = readFile.mock.calls.map((call) => String(call[0]));
      fetches = fetchSpy.mock.calls.length;
      readFile.mockRestore();
      fetchSpy.mockRestore();
    });
    expect(reads.filter((p) => p.includes('secret-diagram'))).toEqual([]);
    expect(fetches).toBe(0);
    expect(result.format).toBe('docx');
    expect(result.title).toBe('Handbook & Policies');
    expect(result.metadata).toEqual({ author: 'People Team' });
    const md = result.content;
    expect(md).toMatch(/^# Employee Handbook$/m);
    expect(md).toMatch(/^## Benefits$/m);
    expect(md).toContain('Welcome to the company. This handbook explains how we work.');
    expect(md).toMatch(/\|\s*Annual leave\s*\|\s*25 days\s*\|/);
    expect(md).toContain('[policy site](https://example.com/policies)');
    expect(md).not.toMatch(/!\[|data:|secret-diagram|tracker\.example\.com/);
    expect(result.warnings).toEqual([
      "Word conversion: Unrecognised paragraph style: 'Fancy Quote' (Style ID: FancyQuote)",
      '2 image(s) dropped; only text is imported',
    ]);
  });

  it('takes the title from the first heading when core properties have none', async () => {
    const bytes = await buildHandbookDocx({ imageTarget: 'https://example.com/a.png' });
    const result = await extractFile({ fileName: 'handbook.docx', bytes }, LIMITS);
    expect(result.title).toBe('Employee Handbook');
  });

  it('reads the committed handbook.docx fixture', async () => {
    const result = await extractFile({ fileName: 'handbook.docx', bytes: fixture('handbook.docx') }, LIMITS);
    expect(result).toMatchObject({ format: 'docx', title: 'Employee Handbook 2024' });
    expect(result.content).toContain('| Annual leave | 25 days |');
  });

  it('keeps every section of a long document (no article-style trimming)', async () => {
    const parts: string[] = [];
    const expected: string[] = [];
    for (let s = 1; s <= 12; s++) {
      const prose = `Paragraph ${s} explains the policy in detail, with enough words to read like a real handbook.`;
      parts.push(para(`Section ${s}`, 'Heading2'), para(prose), para(`Note ${s}.`));
      expected.push(`## Section ${s}`, prose, `Note ${s}.`);
    }
    const bytes = await buildHandbookDocx({ imageTarget: 'https://example.com/a.png', body: parts.join('') });
    const result = await extractFile({ fileName: 'long.docx', bytes }, LIMITS);
    expect(expected.filter((text) => !result.content.includes(text))).toEqual([]);
  });

  it('refuses a docx whose declared size exceeds the unzip limit', async () => {
    const bomb = await buildBombDocx(50 * MB);
    expect(bomb.length).toBeLessThan(MB);
    await expect(
      extractFile({ fileName: 'bomb.docx', bytes: bomb }, { ...LIMITS, maxUnzippedBytes: MB }),
    ).rejects.toMatchObject({
      code: 'INVALID_FILE',
      message: '"bomb.docx" expands to more than 1 MB when unzipped (CAIRN_IMPORT_MAX_UNZIPPED_BYTES)',
    });
  });

  it('refuses a highly compressed entry even under the size limit', async () => {
    const bomb = await buildBombDocx(20 * MB);
    await expect(extractFile({ fileName: 'bomb.docx', bytes: bomb }, LIMITS)).rejects.toMatchObject({
      code: 'INVALID_FILE',
      message: expect.stringMatching(
        /^"bomb\.docx" looks like a zip bomb: "word\/document\.xml" expands \d+× \(the limit is 200×\)$/,
      ),
    });
  });

  it('counts real inflated bytes when the declared size lies', async () => {
    const liar = lieAboutSize(await buildBombDocx(5 * MB), 'word/document.xml', 1000);
    await expect(
      extractFile({ fileName: 'liar.docx', bytes: liar }, { ...LIMITS, maxUnzippedBytes: MB }),
    ).rejects.toMatchObject({
      code: 'INVALID_FILE',
      message: expect.stringContaining('"liar.docx" expands to more than 1 MB'),
    });
  });

  it('refuses a docx whose declared size does not match its data', async () => {
    const small = await buildHandbookDocx({ imageTarget: 'https://example.com/a.png' });
    const liar = lieAboutSize(small, 'word/document.xml', 10);
    await expect(extractFile({ fileName: 'liar.docx', bytes: liar }, LIMITS)).rejects.toMatchObject({
      code: 'INVALID_FILE',
      message: expect.stringMatching(
        /"liar\.docx" is corrupt: zip entry "word\/document\.xml" declares 10 bytes but holds \d+/,
      ),
    });
  });

  it('refuses a truncated docx', async () => {
    const bytes = await buildHandbookDocx({ imageTarget: 'https://example.com/a.png' });
    const truncated = bytes.subarray(0, Math.floor(bytes.length * 0.6));
    await expect(extractFile({ fileName: 'cut.docx', bytes: truncated }, LIMITS)).rejects.toMatchObject({
      code: 'INVALID_FILE',
      message: expect.stringMatching(/^"cut\.docx" is not a valid zip archive: .+/),
    });
  });

  it('refuses a docx whose document.xml is not XML', async () => {
    const good = await JSZip.loadAsync(await buildHandbookDocx({ imageTarget: 'https://example.com/a.png' }));
    good.file('word/document.xml', '<w:document><w:body><unclosed');
    const bytes = await good.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
    await expect(extractFile({ fileName: 'broken.docx', bytes }, LIMITS)).rejects.toMatchObject({
      code: 'INVALID_FILE',
      message: expect.stringContaining('"broken.docx" is not a readable Word document'),
    });
  });

  it('refuses a docx with too many entries', async () => {
    const zip = new JSZip();
    zip.file('word/document.xml', documentXml(para('x')));
    for (let i = 0; i < 10_001; i++) zip.file(`junk/${i}.txt`, '');
    const bytes = await zip.generateAsync({ type: 'nodebuffer', compression: 'STORE' });
    await expect(extractFile({ fileName: 'many.docx', bytes }, LIMITS)).rejects.toMatchObject({
      code: 'INVALID_FILE',
      message: expect.stringMatching(/"many\.docx" has 1000\d zip entries; the limit is 10000/),
    });
  });

  it('refuses a docx without any text', async () => {
    const bytes = await buildHandbookDocx({ imageTarget: 'https://example.com/a.png', body: para('   ') });
    await expect(extractFile({ fileName: 'blank.docx', bytes }, LIMITS)).rejects.toMatchObject({
      code: 'INVALID_FILE',
      message: '"blank.docx" contains no text',
    });
  });
});
