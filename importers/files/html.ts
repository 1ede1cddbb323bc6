import { decodeHtmlBody } from '../html/decodeHtmlBody.js';
import { htmlToMarkdown } from '../html/htmlToMarkdown.js';
import { assertNotBinary } from './decodeText.js';
import { flattenDeepHtml, flattenWarning } from './deepMarkup.js';
import { MAX_NESTING } from './nesting.js';
import type { ExtractedFile } from './types.js';

/**
 * HTML files: decoded by BOM/charset/meta, converted to markdown; title, language and description kept. Elements
 * nested deeper than MAX_NESTING lose their tags but keep their text (see `flattenDeepHtml`), with a warning.
 */
export function extractHtml(fileName: string, bytes: Buffer, charset: string | undefined): ExtractedFile {
  assertNotBinary(fileName, bytes);
  const { html, flattenedAt } = flattenDeepHtml(decodeHtmlBody(bytes, charset), MAX_NESTING);
  const converted = htmlToMarkdown(html);
  const metadata: Record<string, string> = {};
  if (converted.language) metadata.language = converted.language;
  if (converted.description) metadata.description = converted.description;
  if (converted.siteName) metadata.siteName = converted.siteName;
  if (converted.byline) metadata.author = converted.byline;
  return {
    format: 'html',
    title: converted.title?.trim() || undefined,
    content: converted.markdown,
    metadata,
    warnings: flattenWarning(flattenedAt),
  };
}
