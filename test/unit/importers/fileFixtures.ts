/** Builders for the binary test files of the extractor tests (docx, zip bombs, PDFs). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import JSZip from 'jszip';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/** Folder of the committed fixtures. */
export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/files');

/** Reads a committed fixture. */
export function fixture(name: string): Buffer {
  return readFileSync(path.join(FIXTURES, name));
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const REL = 'http://schemas.openxmlformats.org/package/2006/relationships';

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
  <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
  <Default Extension="xml" ContentType="application/xml"/>
  <Default Extension="png" ContentType="image/png"/>
  <Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
  <Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>
  <Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>
</Types>`;

const PACKAGE_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="${REL}">
  <Relationship Id="rId1" Type="${R}/officeDocument" Target="word/document.xml"/>
  <Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>
</Relationships>`;

const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="${W}">
  <w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>
  <w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style>
  <w:style w:type="paragraph" w:styleId="FancyQuote"><w:name w:val="Fancy Quote"/></w:style>
</w:styles>`;

/** A paragraph, optionally styled. */
export function para(text: string, styleId?: string): string {
  const props = styleId ? `<w:pPr><w:pStyle w:val="${styleId}"/></w:pPr>` : '';
  return `<w:p>${props}<w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;
}

function cell(text: string): string {
  return `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>${para(text)}</w:tc>`;
}

/** A drawing whose image is linked (r:link) to an external target, as Word writes "Link to File" images. */
function linkedImage(relId: string, name: string): string {
  return `<w:p><w:r><w:drawing><wp:inline><wp:extent cx="952500" cy="952500"/><wp:docPr id="1" name="${name}" descr="${name} alt text"/>
<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="0" name="${name}"/><pic:cNvPicPr/></pic:nvPicPr>
<pic:blipFill><a:blip r:link="${relId}"/></pic:blipFill></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`;
}

/** Wraps body XML in a w:document with the namespaces used above. */
export function documentXml(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="${W}" xmlns:r="${R}"
  xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"
  xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"
  xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><w:body>${body}</w:body></w:document>`;
}

/** Options of `buildHandbookDocx`. */
export interface HandbookOptions {
  /** dc:title in docProps/core.xml; omitted when undefined. */
  coreTitle?: string;
  /** Target of the externally linked image (e.g. a file:// URL of a sentinel file). */
  imageTarget: string;
  /** Replaces the default body. */
  body?: string;
}

/** Builds handbook.docx: headings, paragraphs, a table, an external hyperlink, externally linked images, a custom style. */
export async function buildHandbookDocx(options: HandbookOptions): Promise<Buffer> {
  const body =
    options.body ??
    [
      para('Employee Handbook', 'Heading1'),
      para('Welcome to the company. This handbook explains how we work.'),
      para('Benefits', 'Heading2'),
      `<w:tbl><w:tblPr><w:tblW w:w="4000" w:type="dxa"/></w:tblPr><w:tblGrid><w:gridCol w:w="2000"/><w:gridCol w:w="2000"/></w:tblGrid>
<w:tr>${cell('Benefit')}${cell('Detail')}</w:tr><w:tr>${cell('Annual leave')}${cell('25 days')}</w:tr></w:tbl>`,
      '<w:p><w:r><w:t xml:space="preserve">Read the </w:t></w:r>' +
        '<w:hyperlink r:id="rIdLink"><w:r><w:t>policy site</w:t></w:r></w:hyperlink>' +
        '<w:r><w:t xml:space="preserve"> for details.</w:t></w:r></w:p>',
      linkedImage('rIdImgFile', 'Local diagram'),
      linkedImage('rIdImgWeb', 'Web diagram'),
      para('Quotes are set in a custom style.', 'FancyQuote'),
    ].join('\n');
  const documentRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="${REL}">
  <Relationship Id="rIdStyles" Type="${R}/styles" Target="styles.xml"/>
  <Relationship Id="rIdLink" Type="${R}/hyperlink" Target="https://example.com/policies" TargetMode="External"/>
  <Relationship Id="rIdImgFile" Type="${R}/image" Target="${options.imageTarget}" TargetMode="External"/>
  <Relationship Id="rIdImgWeb" Type="${R}/image" Target="https://tracker.example.com/pixel.png" TargetMode="External"/>
</Relationships>`;
  const zip = new JSZip();
  zip.file('[Content_Types].xml', CONTENT_TYPES);
  zip.file('_rels/.rels', PACKAGE_RELS);
  zip.file('word/document.xml', documentXml(body));
  zip.file('word/_rels/document.xml.rels', documentRels);
  zip.file('word/styles.xml', STYLES);
  if (options.coreTitle !== undefined) zip.file('docProps/core.xml', coreXml(options.coreTitle));
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

function coreXml(title: string): string {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties"
  xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${title}</dc:title><dc:creator>People Team</dc:creator></cp:coreProperties>`;
}

/** A docx whose document.xml is `bytes` long (repeated paragraphs), deflated hard: a small zip that expands a lot. */
export async function buildBombDocx(bytes: number): Promise<Buffer> {
  const paragraph = para('All work and no play makes Jack a dull boy.');
  const zip = new JSZip();
  zip.file('[Content_Types].xml', CONTENT_TYPES);
  zip.file('_rels/.rels', PACKAGE_RELS);
  zip.file('word/document.xml', documentXml(paragraph.repeat(Math.ceil(bytes / paragraph.length))));
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 } });
}

/**
 * Rewrites the declared uncompressed size of one entry, in its local header and in the central directory,
 * so the archive claims to be small while the data still inflates to its real size.
 */
export function lieAboutSize(zipBytes: Buffer, entryName: string, declaredSize: number): Buffer {
  const out = Buffer.from(zipBytes);
  const name = Buffer.from(entryName, 'utf8');
  let patched = 0;
  for (let at = 0; at + 46 <= out.length; at++) {
    const signature = out.readUInt32LE(at);
    if (
      signature === 0x04034b50 &&
      out.readUInt16LE(at + 26) === name.length &&
      out.subarray(at + 30, at + 30 + name.length).equals(name)
    ) {
      out.writeUInt32LE(declaredSize, at + 22);
      patched++;
    } else if (
      signature === 0x02014b50 &&
      out.readUInt16LE(at + 28) === name.length &&
      out.subarray(at + 46, at + 46 + name.length).equals(name)
    ) {
      out.writeUInt32LE(declaredSize, at + 24);
      patched++;
    }
  }
  if (patched !== 2) throw new Error(`expected a local and a central header for ${entryName}, patched ${patched}`);
  return out;
}

/** A plain zip archive with one text file (not a Word document). */
export async function buildPlainZip(): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('readme.txt', 'just a zip');
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** A PDF with `pageCount` pages; each page holds `Page N` unless `withText` is false (then only a rectangle, like a scan). */
export async function buildPdf(pageCount: number, withText = true): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= pageCount; i++) {
    const page = doc.addPage([300, 300]);
    if (withText) page.drawText(`Page ${i}`, { x: 30, y: 250, size: 14, font });
    else page.drawRectangle({ x: 20, y: 20, width: 200, height: 200 });
  }
  return Buffer.from(await doc.save());
}

/** The first bytes of a real PNG (signature + IHDR), enough for any sniffer. */
export const PNG_BYTES = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);
