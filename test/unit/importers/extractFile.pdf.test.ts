import { describe, expect, it, jest } from '@jest/globals';
import fs from 'node:fs';
import { extractFile } from '../../../importers/files/extractFile.js';
import { REPORT_PAGES } from '../../fixtures/files/make-fixtures.js';
import { buildPdf, fixture } from './fileFixtures.js';

const LIMITS = { pdfMaxPages: 500, maxUnzippedBytes: 100 * 1024 * 1024 };

describe('extractFile: pdf', () => {
  it('extracts the text page by page with line breaks, page offsets and document info', async () => {
    const result = await extractFile({ fileName: 'report.pdf', bytes: fixture('report.pdf') }, LIMITS);
    const pages = REPORT_PAGES.map((lines) => lines.join('\n'));
    expect(result.format).toBe('pdf');
    expect(result.content).toBe(pages.join('\n\n'));
    expect(result.title).toBe('Quarterly Report Q3');
    expect(result.metadata).toEqual({
      pageCount: 3,
      pageStarts: [0, pages[0]!.length + 2, pages[0]!.length + pages[1]!.length + 4],
      title: 'Quarterly Report Q3',
      author: 'Finance Team',
      subject: 'Results for the third quarter',
      creationDate: '2024-10-01T09:30:00.000Z',
    });
    const starts = result.metadata.pageStarts as number[];
    expect(result.content.slice(starts[1], starts[1]! + 'Operations'.length)).toBe('Operations');
    expect(result.warnings).toEqual([]);
  });

  it('has no title when the PDF declares none', async () => {
    const result = await extractFile({ fileName: 'untitled.pdf', bytes: await buildPdf(2) }, LIMITS);
    expect(result).toMatchObject({
      title: undefined,
      content: 'Page 1\n\nPage 2',
      metadata: { pageCount: 2, pageStarts: [0, 8] },
    });
  });

  it('refuses more pages than the limit, naming the setting', async () => {
    const bytes = await buildPdf(5);
    await expect(extractFile({ fileName: 'long.pdf', bytes }, { ...LIMITS, pdfMaxPages: 3 })).rejects.toMatchObject({
      code: 'INVALID_FILE',
      message: '"long.pdf" has 5 pages; the limit is 3 (CAIRN_IMPORT_PDF_MAX_PAGES)',
      details: { pageCount: 5, limit: 3 },
    });
    await expect(extractFile({ fileName: 'long.pdf', bytes }, { ...LIMITS, pdfMaxPages: 5 })).resolves.toMatchObject({
      format: 'pdf',
    });
  });

  it('refuses a password-protected PDF', async () => {
    await expect(
      extractFile({ fileName: 'encrypted.pdf', bytes: fixture('encrypted.pdf') }, LIMITS),
    ).rejects.toMatchObject({
      code: 'INVALID_FILE',
      message: expect.stringContaining('"encrypted.pdf" is encrypted'),
    });
  });

  it('refuses truncated and garbage PDFs with the reason', async () => {
    const report = fixture('report.pdf');
    const truncated = report.subarray(0, Math.floor(report.length / 2));
    await expect(extractFile({ fileName: 'cut.pdf', bytes: truncated }, LIMITS)).rejects.toMatchObject({
      code: 'INVALID_FILE',
      message: expect.stringMatching(/^"cut\.pdf" is not a readable PDF: .+/),
    });
    const garbage = Buffer.from('%PDF-1.7\n' + 'not really a pdf '.repeat(50));
    await expect(extractFile({ fileName: 'junk.pdf', bytes: garbage }, LIMITS)).rejects.toMatchObject({
      code: 'INVALID_FILE',
      message: expect.stringContaining('Invalid PDF structure'),
    });
  });

  it('refuses a .pdf that is not a PDF at all', async () => {
    await expect(
      extractFile({ fileName: 'fake.pdf', bytes: Buffer.from('hello there') }, LIMITS),
    ).rejects.toMatchObject({
      code: 'INVALID_FILE',
      message: expect.stringContaining('"fake.pdf" is not a readable PDF'),
    });
  });

  it('refuses a PDF without text, such as a scan', async () => {
    await expect(extractFile({ fileName: 'scan.pdf', bytes: await buildPdf(2, false) }, LIMITS)).rejects.toMatchObject({
      code: 'INVALID_FILE',
      message: expect.stringContaining('"scan.pdf" has no extractable text'),
    });
  });

  it('reads only pdfjs resources from local disk and never fetches', async () => {
    const readFile = jest.spyOn(fs.promises, 'readFile');
    const fetchSpy = jest.spyOn(globalThis, 'fetch');
    let reads: string[] = [];
    let fetches = 0;
    await extractFile({ fileName: 'report.pdf', bytes: fixture('report.pdf') }, LIMITS).finally(() => {
      reads = readFile.mock.calls.map((call) => String(call[0]));
      fetches = fetchSpy.mock.calls.length;
      readFile.mockRestore();
      fetchSpy.mockRestore();
    });
    expect(fetches).toBe(0);
    // Helvetica is not embedded, so pdfjs loads its bundled standard font data, from node_modules.
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) expect(read).toMatch(/node_modules\/pdfjs-dist\/standard_fonts\//);
  });
});
