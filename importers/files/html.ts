import { decodeHtmlBody, htmlToMarkdown } from '../html/htmlToMarkdown.js';
import { assertNotBinary } from './decodeText.js';
import type { ExtractedFile } from './types.js';

/** HTML files: decoded by BOM/charset/meta, converted to markdown; title, language and description kept. */
export function extractHtml(fileName: string, bytes: Buffer, charset: string | undefined): ExtractedFile {
  assertNotBinary(fileName, bytes);
  const converted = htmlToMarkdown(decodeHtmlBody(bytes, charset));
  const metadata: Record<string, string> = {};
  if (converted.language) metadata.language = converted.language;
  if (converted.description) metadata.description = converted.description;
  if (converted.siteName) metadata.siteName = converted.siteName;
  if (converted.byline) metadata.author = converted.byline;
  return { format: 'html', title: converted.title?.trim() || undefined, content: converted.markdown, metadata, warnings: [] };
}
