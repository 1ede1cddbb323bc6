import { parseContentType } from '../http/readBody.js';
import { detectFileFormat } from './detectFileFormat.js';
import { decodeText } from './decodeText.js';
import { invalidFile } from './fileErrors.js';
import { extractPdf } from './pdf.js';
import { extractStructured } from './structuredText.js';
import { extractMarkdown, extractPlainText, extractRst } from './textFormats.js';
import type { DetectedFileFormat, ExtractLimits, ExtractedFile, FileToExtract } from './types.js';

export { detectFileFormat, SUPPORTED_FILE_EXTENSIONS } from './detectFileFormat.js';
export type { DetectedFileFormat, ExtractLimits, ExtractedFile, ExtractedFormat, FileToExtract } from './types.js';

/**
 * Turns an uploaded or local file into text. Throws UNSUPPORTED_CONTENT_TYPE for formats it does not read
 * and INVALID_FILE for files it cannot read (corrupt, encrypted, too large when expanded, no text).
 */
export async function extractFile(file: FileToExtract, limits: ExtractLimits): Promise<ExtractedFile> {
  const format = detectFileFormat(file);
  const { charset } = parseContentType(file.contentType);
  const extracted = await extractDetected(format, file, limits, charset);
  if (!extracted.content.trim()) throw invalidFile(file.fileName, 'contains no text', { format });
  return extracted;
}

async function extractDetected(
  format: DetectedFileFormat,
  file: FileToExtract,
  limits: ExtractLimits,
  charset: string | undefined,
): Promise<ExtractedFile> {
  const { fileName, bytes } = file;
  switch (format) {
    case 'pdf':
      return extractPdf(fileName, bytes, limits.pdfMaxPages);
    case 'docx':
      return (await import('./docx.js')).extractDocx(fileName, bytes, limits.maxUnzippedBytes);
    case 'html':
      return (await import('./html.js')).extractHtml(fileName, bytes, charset);
    case 'markdown':
      return extractMarkdown(decodeNonEmpty(fileName, bytes, charset));
    case 'text':
      return extractPlainText(decodeNonEmpty(fileName, bytes, charset));
    case 'rst':
      return extractRst(decodeNonEmpty(fileName, bytes, charset));
    case 'json':
    case 'yaml':
      return extractStructured(decodeNonEmpty(fileName, bytes, charset), format);
  }
}

/** Decodes text and refuses blank files before anything wraps them (a fenced block is never blank). */
function decodeNonEmpty(fileName: string, bytes: Buffer, charset: string | undefined): string {
  const text = decodeText(fileName, bytes, charset);
  if (!text.trim()) throw invalidFile(fileName, 'contains no text');
  return text;
}
