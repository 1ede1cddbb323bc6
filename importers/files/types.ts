import type { JsonObject } from '../../src/shared/json.js';

/** A file handed to the extractor: an upload, or a file found by `import dir`. */
export interface FileToExtract {
  fileName: string;
  /** Media type as sent by the client, parameters allowed (`text/plain; charset=utf-8`). */
  contentType?: string;
  bytes: Buffer;
}

/** Resource caps for extraction (see `ImportConfig`). */
export interface ExtractLimits {
  pdfMaxPages: number;
  /** Cap on the total uncompressed size of a docx (zip) archive. */
  maxUnzippedBytes: number;
}

/** The format of the stored content; 'openapi' means `content` is the spec text for the OpenAPI importer. */
export type ExtractedFormat = 'markdown' | 'text' | 'html' | 'pdf' | 'docx' | 'openapi';

/** The text of a file, ready to become a document. */
export interface ExtractedFile {
  format: ExtractedFormat;
  /** Title found in the file; undefined lets the caller fall back to the file name. */
  title: string | undefined;
  content: string;
  metadata: JsonObject;
  /** Tags the file gives itself (markdown front matter `tags:`), already valid tags; added to the caller's. */
  tags?: string[];
  /** Things the user should know that did not stop the extraction. */
  warnings: string[];
}

/** The format a file was recognised as, before extraction. */
export type DetectedFileFormat = 'markdown' | 'text' | 'rst' | 'html' | 'pdf' | 'docx' | 'json' | 'yaml';
