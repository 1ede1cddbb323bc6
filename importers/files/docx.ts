import mammoth from 'mammoth';
import { htmlToMarkdown } from '../html/htmlToMarkdown.js';
import { deepXmlLine, flattenDeepHtml } from './deepMarkup.js';
import { errorMessage, invalidFile } from './fileErrors.js';
import { flattenWarning } from './deepMarkup.js';
import { MAX_NESTING } from './nesting.js';
import { firstHeading } from './textFormats.js';
import type { ExtractedFile } from './types.js';
import { DEFAULT_ZIP_LIMITS, guardZip } from './zipGuard.js';

const CORE_PROPERTIES = 'docProps/core.xml';
const MAIN_PART = 'word/document.xml';
/**
 * Deepest element nesting of the document part: mammoth reads Word XML recursively and overflowed the stack near
 * 3,000 levels (a thousand tables nested in each other). Real documents stay far below; a table adds three levels.
 */
export const MAX_DOCX_XML_DEPTH = 500;

/** INVALID_FILE for a document nested too deeply for the converter, saying what to change. */
function tooDeep(fileName: string, line: number | undefined): Error {
  const where = line === undefined ? '' : ` (line ${line} of ${MAIN_PART})`;
  return invalidFile(
    fileName,
    `nests its content more than ${MAX_DOCX_XML_DEPTH} XML levels deep${where}, as tables inside tables inside tables do; ` +
      'Cairn cannot read that: remove the deep nesting (or copy the text into a new document) and upload it again',
    { reason: 'too_deep', maxDepth: MAX_DOCX_XML_DEPTH },
  );
}

/**
 * Word documents: bomb-check the zip, convert with mammoth (no external file access, images dropped),
 * then HTML → markdown. Title from the core properties, else the first heading.
 */
export async function extractDocx(fileName: string, bytes: Buffer, maxUnzippedBytes: number): Promise<ExtractedFile> {
  const kept = await guardZip(
    fileName,
    bytes,
    { ...DEFAULT_ZIP_LIMITS, maxUnzippedBytes },
    {
      // mammoth reads only XML parts and relationships; media is never inflated because images are dropped.
      inflate: (name) => /\.(xml|rels)$/i.test(name),
      keep: (name) => name === CORE_PROPERTIES || name === MAIN_PART,
    },
  );
  const main = kept.get(MAIN_PART);
  const deepLine = main ? deepXmlLine(main.toString('utf8'), MAX_DOCX_XML_DEPTH) : undefined;
  if (deepLine !== undefined) throw tooDeep(fileName, deepLine);
  let result: Awaited<ReturnType<typeof mammoth.convertToHtml>>;
  try {
    result = await mammoth.convertToHtml(
      { buffer: bytes },
      {
        externalFileAccess: false, // the default, set explicitly: linked images must never be read from disk
        // The image is never read; the empty <img> is stripped below.
        convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: '' })),
      },
    );
  } catch (error) {
    // Other parts (footnotes, comments) are not checked beforehand; their overflow gets the same advice.
    if (/Maximum call stack size exceeded/.test(errorMessage(error))) throw tooDeep(fileName, undefined);
    throw invalidFile(fileName, `is not a readable Word document: ${errorMessage(error)}`, {}, error);
  }
  // mammoth escapes '>' in attribute values, so this cannot cut a tag short.
  let droppedImages = 0;
  const html = result.value.replace(/<img\b[^>]*>/gi, () => {
    droppedImages += 1;
    return '';
  });
  const page = flattenDeepHtml(
    `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>${html}</body></html>`,
    MAX_NESTING,
  );
  const converted = htmlToMarkdown(page.html, { extractMain: false });
  const core = readCoreProperties(kept.get(CORE_PROPERTIES));
  const markdown = converted.markdown.trim();
  const metadata: Record<string, string> = {};
  if (core.author) metadata.author = core.author;
  if (core.subject) metadata.subject = core.subject;
  const warnings = [
    ...new Set(
      result.messages
        .filter((m) => !m.message.startsWith('Image of type')) // images are dropped, so display support is moot
        .map((m) => `Word conversion: ${m.message}`),
    ),
  ];
  if (droppedImages > 0) warnings.push(`${droppedImages} image(s) dropped; only text is imported`);
  warnings.push(...flattenWarning(page.flattenedAt));
  return {
    format: 'docx',
    title: core.title ?? firstHeading(markdown, 6) ?? converted.title,
    content: markdown,
    metadata,
    warnings,
  };
}

/** Title, author and subject from `docProps/core.xml` (Dublin Core elements). */
export function readCoreProperties(xml: Buffer | undefined): { title?: string; author?: string; subject?: string } {
  if (!xml) return {};
  const text = xml.toString('utf8');
  const element = (name: string): string | undefined => {
    const match = new RegExp(`<(?:[\\w.-]+:)?${name}\\b[^>]*>([\\s\\S]*?)</(?:[\\w.-]+:)?${name}>`).exec(text);
    const value = match?.[1] ? decodeXmlEntities(match[1]).trim() : '';
    return value || undefined;
  };
  return { title: element('title'), author: element('creator'), subject: element('subject') };
}

function decodeXmlEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|lt|gt|amp|quot|apos);/gi, (whole, entity: string) => {
    const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
    if (entity[0] !== '#') return named[entity.toLowerCase()] ?? whole;
    const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}
