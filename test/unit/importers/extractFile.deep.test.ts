import { describe, expect, it } from '@jest/globals';
import { extractFile } from '../../../importers/files/extractFile.js';
import { MAX_NESTING } from '../../../importers/files/nesting.js';
import { assertStorableText } from '../../../src/storableText.js';
import { buildHandbookDocx, para } from './fileFixtures.js';

const LIMITS = { pdfMaxPages: 500, maxUnzippedBytes: 100 * 1024 * 1024 };
const LEVELS = 100_000;

const file = (fileName: string, text: string) => ({ fileName, bytes: Buffer.from(text, 'utf8') });
const noStackOverflow = (warnings: string[]) => expect(warnings.join('\n')).not.toMatch(/call stack/i);

describe('extractFile: structures nested 100,000 levels deep', () => {
  it('imports a deep YAML file as text, warning where it is too deep instead of "Maximum call stack size exceeded"', async () => {
    const flow = `config:\n  tree: ${'['.repeat(LEVELS)}leaf${']'.repeat(LEVELS)}\n`;
    const result = await extractFile(file('deep.yaml', flow), LIMITS);
    expect(result.format).toBe('text');
    expect(result.content).toContain('leaf');
    noStackOverflow(result.warnings);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(
      new RegExp(`nests deeper than ${MAX_NESTING} levels \\(at config\\.tree\\[0\\]\\[0\\].*, line 2\\)`),
    );

    const block = `${Array.from({ length: 400 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')}\n${' '.repeat(400)}end\n`;
    const indented = await extractFile(file('block.yml', block), LIMITS);
    expect(indented.format).toBe('text');
    expect(indented.warnings[0]).toMatch(/nests deeper than 200 levels \(at k0\.k1\.k2.*, line 201\)/);
  });

  it('still hands a deep YAML OpenAPI spec to the OpenAPI importer, which has its own depth limit', async () => {
    const spec = `openapi: 3.0.3\ninfo: {title: Deep, version: '1'}\npaths: {}\ncomponents:\n  x: ${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}\n`;
    const result = await extractFile(file('deep-spec.yaml', spec), LIMITS);
    expect(result).toMatchObject({
      format: 'openapi',
      metadata: { specVersion: '3.0.3', sourceFormat: 'yaml' },
      warnings: [],
    });
  });

  it('imports deep JSON as text without a warning', async () => {
    const result = await extractFile(file('deep.json', `${'{"a":'.repeat(LEVELS)}1${'}'.repeat(LEVELS)}`), LIMITS);
    expect(result.format).toBe('text');
    expect(result.warnings).toEqual([]);
  });

  it('reads the top level of deep markdown front matter, and cuts what it keeps to the storable depth', async () => {
    const deep = await extractFile(
      file(
        'deep.md',
        `---\ntitle: Deep page\ntags: [ops, deploy]\nx: ${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}\n---\n# Heading\nBody\n`,
      ),
      LIMITS,
    );
    expect(deep).toMatchObject({
      title: 'Deep page',
      tags: ['ops', 'deploy'],
      content: '# Heading\nBody\n',
      metadata: { frontMatter: { title: 'Deep page', tags: ['ops', 'deploy'] } },
    });
    noStackOverflow(deep.warnings);
    expect(deep.warnings).toEqual([expect.stringMatching(/^front matter nests deeper than 200 levels \(at x\[0\]/)]);

    const medium = await extractFile(
      file('medium.md', `---\ntitle: Medium\nx: ${'['.repeat(150)}${']'.repeat(150)}\n---\nBody\n`),
      LIMITS,
    );
    expect(medium.title).toBe('Medium');
    expect(medium.warnings).toEqual([
      expect.stringMatching(/^front matter nesting deeper than 62 levels was cut at x\[0\]/),
    ]);
    // What the importer stores must pass the depth check of the document it goes into (metadata one level down).
    expect(() => assertStorableText({ metadata: medium.metadata }, 'documents[0]')).not.toThrow();
  });

  it('flattens HTML elements nested too deeply, keeping their text', async () => {
    const html = `<html><head><title>Deep</title></head><body><p>Intro</p>${'<div>'.repeat(LEVELS)}deep text<script>alert(1)</script>${'</div>'.repeat(LEVELS)}<p>After</p></body></html>`;
    const result = await extractFile(file('deep.html', html), LIMITS);
    expect(result.content).toMatch(/Intro[\s\S]*deep text[\s\S]*After/);
    expect(result.content).not.toContain('alert');
    expect(result.warnings).toEqual([
      `elements nested deeper than ${MAX_NESTING} levels were flattened into their ancestor (from <div> at line 1); their text was kept`,
    ]);
  });

  it('refuses a Word document nested deeper than its converter can read with INVALID_FILE saying what to change', async () => {
    const levels = 5000;
    const body =
      para('Top') + '<w:sdt><w:sdtContent>'.repeat(levels) + para('Deep') + '</w:sdtContent></w:sdt>'.repeat(levels);
    const bytes = await buildHandbookDocx({ imageTarget: 'https://example.com/x.png', body });
    const error = await extractFile({ fileName: 'deep.docx', bytes }, LIMITS).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INVALID_FILE', details: { reason: 'too_deep' } });
    expect((error as Error).message).toMatch(
      /^"deep\.docx" nests its content more than 500 XML levels deep \(line \d+ of word\/document\.xml\).*remove the deep nesting/,
    );

    const nestedTables = '<w:tbl><w:tr><w:tc>'.repeat(20) + para('Inner') + '</w:tc></w:tr></w:tbl>'.repeat(20);
    const fine = await extractFile(
      {
        fileName: 'ok.docx',
        bytes: await buildHandbookDocx({
          imageTarget: 'https://example.com/x.png',
          body: para('Top') + nestedTables + '<w:p/>',
        }),
      },
      LIMITS,
    );
    expect(fine.content).toContain('Inner');
  });
});
