import { describe, expect, it } from '@jest/globals';
import { detectFileFormat, extractFile, SUPPORTED_FILE_EXTENSIONS } from '../../../importers/files/extractFile.js';
import { buildHandbookDocx, buildPdf, buildPlainZip, fixture, PNG_BYTES } from './fileFixtures.js';

const LIMITS = { pdfMaxPages: 500, maxUnzippedBytes: 100 * 1024 * 1024 };

function textFile(
  fileName: string,
  text: string,
  contentType?: string,
): { fileName: string; contentType?: string; bytes: Buffer } {
  return { fileName, contentType, bytes: Buffer.from(text, 'utf8') };
}

describe('extractFile: markdown, text, rst', () => {
  it('stores markdown without its front matter, whose title, tags and other keys become the title, tags and metadata', async () => {
    const bytes = fixture('guide.md');
    const result = await extractFile({ fileName: 'guide.md', bytes }, LIMITS);
    const text = bytes.toString('utf8');
    expect(result).toEqual({
      format: 'markdown',
      title: 'Deployment Guide',
      content: text.slice(text.indexOf('\n---\n') + 5),
      metadata: { frontMatter: { title: 'Deployment Guide', tags: ['ops', 'deploy'] } },
      tags: ['ops', 'deploy'],
      warnings: [],
    });
    expect(result.content.startsWith('\n# Deploying Cairn')).toBe(true);
    const hugo = await extractFile(
      textFile(
        'h.md',
        '---\ntitle: Hugo page\ndate: 2024-05-01\nkeywords: Getting Started, FAQ\ndescription: How to begin\nlayout: docs\n---\nBody text.\n',
      ),
      LIMITS,
    );
    expect(hugo).toMatchObject({ title: 'Hugo page', content: 'Body text.\n', tags: ['getting-started', 'faq'] });
    expect(hugo.metadata).toEqual({
      description: 'How to begin',
      frontMatter: {
        title: 'Hugo page',
        date: '2024-05-01',
        keywords: 'Getting Started, FAQ',
        description: 'How to begin',
        layout: 'docs',
      },
    });
  });

  it('falls back to the first level-1 heading, ignoring headings inside code fences', async () => {
    const md = '```sh\n# comment, not a title\n```\n\n## Second level\n\n# Real Title\n\ntext';
    expect((await extractFile(textFile('a.md', md), LIMITS)).title).toBe('Real Title');
  });

  it('has no title when there is neither front matter title nor heading (the caller uses the file name)', async () => {
    const result = await extractFile(textFile('plain.markdown', 'just *some* text'), LIMITS);
    expect(result.format).toBe('markdown');
    expect(result.title).toBeUndefined();
  });

  it('warns about broken front matter, keeps it as text and still uses the heading', async () => {
    const result = await extractFile(textFile('b.md', '---\ntitle: [unclosed\n---\n# Heading Title\n'), LIMITS);
    expect(result.title).toBe('Heading Title');
    expect(result.content.startsWith('---\ntitle: [unclosed')).toBe(true);
    expect(result.warnings).toEqual([expect.stringContaining('front matter is not valid YAML')]);
  });

  it('stores plain text as is without a title', async () => {
    const bytes = fixture('notes.txt');
    const result = await extractFile({ fileName: 'notes.txt', bytes }, LIMITS);
    expect(result).toMatchObject({ format: 'text', title: undefined, content: bytes.toString('utf8') });
  });

  it('stores rst as text and takes the title from the first underlined heading', async () => {
    const bytes = fixture('notes.rst');
    const result = await extractFile({ fileName: 'notes.rst', bytes }, LIMITS);
    expect(result).toMatchObject({ format: 'text', title: 'Release Checklist', content: bytes.toString('utf8') });
    expect(result.metadata).toEqual({ sourceFormat: 'rst' });
    const underlineOnly = await extractFile(textFile('u.rst', 'Intro\n=====\n\nBody text.\n'), LIMITS);
    expect(underlineOnly.title).toBe('Intro');
    const tooShort = await extractFile(textFile('s.rst', 'A long line of text\n===\n'), LIMITS);
    expect(tooShort.title).toBeUndefined();
  });
});

describe('extractFile: decoding', () => {
  it('strips a UTF-8 BOM', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('# Título\n', 'utf8')]);
    const result = await extractFile({ fileName: 'bom.md', bytes }, LIMITS);
    expect(result.content).toBe('# Título\n');
    expect(result.title).toBe('Título');
  });

  it('decodes UTF-16 LE and BE with a BOM', async () => {
    const text = '# Überblick\n\nZeile zwei — ok\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const be = Buffer.from(le);
    be.swap16();
    for (const bytes of [le, be]) {
      const result = await extractFile({ fileName: 'wide.md', bytes }, LIMITS);
      expect(result.content).toBe(text);
      expect(result.title).toBe('Überblick');
    }
  });

  it('honours a declared charset', async () => {
    const bytes = Buffer.from('caf\xe9 cr\xe8me', 'latin1');
    const result = await extractFile(
      { fileName: 'menu.txt', contentType: 'text/plain; charset=ISO-8859-1', bytes },
      LIMITS,
    );
    expect(result.content).toBe('café crème');
  });

  it('rejects text that is not valid UTF-8', async () => {
    const bytes = Buffer.from('caf\xe9', 'latin1');
    await expect(extractFile({ fileName: 'menu.txt', bytes }, LIMITS)).rejects.toMatchObject({
      code: 'UNSUPPORTED_CONTENT_TYPE',
      message: expect.stringContaining('"menu.txt" is not valid UTF-8 text'),
    });
  });

  it('rejects text with NUL bytes as binary', async () => {
    const bytes = Buffer.from('hello\0world', 'latin1');
    await expect(extractFile({ fileName: 'notes.txt', bytes }, LIMITS)).rejects.toMatchObject({
      code: 'UNSUPPORTED_CONTENT_TYPE',
      message: expect.stringContaining('NUL bytes'),
    });
  });

  it('rejects blank files', async () => {
    for (const fileName of ['empty.md', 'blank.txt', 'blank.json']) {
      await expect(extractFile(textFile(fileName, ' \n\t\n'), LIMITS)).rejects.toMatchObject({
        code: 'INVALID_FILE',
        message: `"${fileName}" contains no text`,
      });
    }
  });
});

describe('extractFile: html', () => {
  it('converts html to markdown with title, language and description', async () => {
    const result = await extractFile({ fileName: 'page.html', bytes: fixture('page.html') }, LIMITS);
    expect(result.format).toBe('html');
    expect(result.title).toBe('Caching Strategies');
    expect(result.metadata).toMatchObject({
      language: 'en-GB',
      description: 'How Cairn caches embeddings and search results.',
    });
    expect(result.content).toContain('## Invalidation');
    expect(result.content).toMatch(/[-*] +Embeddings are keyed by content hash\./);
    expect(result.content).not.toContain('<p>');
  });
});

describe('extractFile: json and yaml', () => {
  it('routes an OpenAPI document as openapi with the original text', async () => {
    const bytes = fixture('petstore.yaml');
    const result = await extractFile({ fileName: 'petstore.yaml', bytes }, LIMITS);
    expect(result).toEqual({
      format: 'openapi',
      title: 'Petstore',
      content: bytes.toString('utf8'),
      metadata: { specVersion: '3.0.3', sourceFormat: 'yaml' },
      warnings: [],
    });
  });

  it('routes a Swagger 2 JSON document as openapi', async () => {
    const spec = JSON.stringify({ swagger: '2.0', info: { title: 'Old API', version: '1' }, paths: {} });
    const result = await extractFile(textFile('old.json', spec), LIMITS);
    expect(result).toMatchObject({
      format: 'openapi',
      title: 'Old API',
      content: spec,
      metadata: { specVersion: '2.0' },
    });
  });

  it('stores other JSON as text in a json code fence', async () => {
    const bytes = fixture('data.json');
    const result = await extractFile({ fileName: 'data.json', bytes }, LIMITS);
    expect(result.format).toBe('text');
    expect(result.title).toBeUndefined();
    expect(result.content).toBe('```json\n' + bytes.toString('utf8').trimEnd() + '\n```\n');
  });

  it('needs paths or webhooks besides the version key', async () => {
    const result = await extractFile(textFile('half.yml', 'openapi: 3.1.0\ninfo:\n  title: x\n'), LIMITS);
    expect(result.format).toBe('text');
    expect(result.content.startsWith('```yaml\n')).toBe(true);
  });

  it('uses a fence longer than any backtick run in the content', async () => {
    const result = await extractFile(textFile('doc.yaml', 'example: "````"\n'), LIMITS);
    expect(result.content).toBe('`````yaml\nexample: "````"\n`````\n');
  });

  it('stores unparseable JSON as text with a warning', async () => {
    const result = await extractFile(textFile('broken.json', '{"a": '), LIMITS);
    expect(result.format).toBe('text');
    expect(result.warnings).toEqual([expect.stringContaining('is not valid JSON')]);
  });

  it('does not expand YAML alias bombs', async () => {
    // Each level holds ten aliases of the previous one: 10^12 nodes if expanded.
    const lines = ['l0: &l0 ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 12; i++)
      lines.push(
        `l${i}: &l${i} [${Array(10)
          .fill(`*l${i - 1}`)
          .join(', ')}]`,
      );
    const result = await extractFile(textFile('bomb.yaml', lines.join('\n')), LIMITS);
    expect(result.format).toBe('text');
    expect(result.warnings).toEqual([expect.stringContaining('is not valid YAML')]);
  });
});

describe('detectFileFormat', () => {
  it('lists the supported extensions', () => {
    expect([...SUPPORTED_FILE_EXTENSIONS].sort()).toEqual([
      '.docx',
      '.htm',
      '.html',
      '.json',
      '.markdown',
      '.md',
      '.pdf',
      '.rst',
      '.text',
      '.txt',
      '.yaml',
      '.yml',
    ]);
  });

  it('uses the extension, then the content type, for text formats', () => {
    const bytes = Buffer.from('hello');
    expect(detectFileFormat({ fileName: 'x.MD', bytes })).toBe('markdown');
    expect(detectFileFormat({ fileName: 'x.htm', contentType: 'text/plain', bytes })).toBe('html');
    expect(detectFileFormat({ fileName: 'upload', contentType: 'text/html; charset=utf-8', bytes })).toBe('html');
    expect(detectFileFormat({ fileName: 'upload', contentType: 'application/vnd.api+json', bytes })).toBe('json');
    expect(detectFileFormat({ fileName: 'README', bytes })).toBe('text');
  });

  it('lets magic bytes beat a wrong extension', async () => {
    const pdf = await buildPdf(1);
    expect(detectFileFormat({ fileName: 'report.txt', contentType: 'text/plain', bytes: pdf })).toBe('pdf');
    const docx = await buildHandbookDocx({ imageTarget: 'https://example.com/a.png' });
    expect(detectFileFormat({ fileName: 'handbook.md', bytes: docx })).toBe('docx');
    const extracted = await extractFile({ fileName: 'report.md', bytes: pdf }, LIMITS);
    expect(extracted).toMatchObject({ format: 'pdf', content: 'Page 1' });
  });

  it('rejects a PNG renamed to .md, naming what it is and what is supported', async () => {
    await expect(extractFile({ fileName: 'diagram.md', bytes: PNG_BYTES }, LIMITS)).rejects.toMatchObject({
      code: 'UNSUPPORTED_CONTENT_TYPE',
      message: expect.stringMatching(/"diagram\.md" is a PNG image; supported formats are .*PDF.*\.docx/),
    });
  });

  it('rejects a plain zip, executables and unknown extensions', async () => {
    const zip = await buildPlainZip();
    expect(() => detectFileFormat({ fileName: 'bundle.docx', bytes: zip })).toThrow(
      /is a zip archive that is not a Word document/,
    );
    const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]), Buffer.alloc(64)]);
    expect(() => detectFileFormat({ fileName: 'tool.txt', bytes: elf })).toThrow(/is an ELF executable/);
    expect(() => detectFileFormat({ fileName: 'photo.bmp', bytes: Buffer.from('BM') })).toThrow(
      /unsupported extension "\.bmp"/,
    );
    expect(() =>
      detectFileFormat({ fileName: 'upload', contentType: 'image/svg+xml', bytes: Buffer.from('<svg/>') }),
    ).toThrow(/unsupported content type "image\/svg\+xml"/);
  });

  it('rejects binary junk without a known signature by its NUL bytes', async () => {
    const junk = Buffer.from([0x01, 0x02, 0x00, 0x00, 0x10, 0x20]);
    await expect(extractFile({ fileName: 'data.txt', bytes: junk }, LIMITS)).rejects.toMatchObject({
      code: 'UNSUPPORTED_CONTENT_TYPE',
    });
  });
});
