import path from 'node:path';
import { parseContentType } from '../http/readBody.js';
import { unsupportedFile } from './fileErrors.js';
import type { DetectedFileFormat, FileToExtract } from './types.js';
import { isZip, zipEntryNames, zipHasEntry } from './zipNames.js';

/** File extensions (lower case, with the dot) that `extractFile` accepts; the `import dir` walker picks files by these. */
export const SUPPORTED_FILE_EXTENSIONS: readonly string[] = [
  '.md',
  '.markdown',
  '.txt',
  '.text',
  '.rst',
  '.html',
  '.htm',
  '.pdf',
  '.docx',
  '.json',
  '.yaml',
  '.yml',
];

const BY_EXTENSION: Readonly<Record<string, DetectedFileFormat>> = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.txt': 'text',
  '.text': 'text',
  '.rst': 'rst',
  '.html': 'html',
  '.htm': 'html',
  '.pdf': 'pdf',
  '.docx': 'docx',
  '.json': 'json',
  '.yaml': 'yaml',
  '.yml': 'yaml',
};

const BY_MEDIA_TYPE: Readonly<Record<string, DetectedFileFormat>> = {
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/plain': 'text',
  'text/x-rst': 'rst',
  'text/prs.fallenstein.rst': 'rst',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/json': 'json',
  'application/yaml': 'yaml',
  'application/x-yaml': 'yaml',
  'text/yaml': 'yaml',
  'text/x-yaml': 'yaml',
};

/** Binary signatures worth naming in the error; anything else binary is caught by the NUL/UTF-8 checks. */
const BINARY_SIGNATURES: ReadonlyArray<{ what: string; magic: number[]; at?: number }> = [
  { what: 'a PNG image', magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { what: 'a JPEG image', magic: [0xff, 0xd8, 0xff] },
  { what: 'a GIF image', magic: [0x47, 0x49, 0x46, 0x38] },
  { what: 'a WebP image', magic: [0x57, 0x45, 0x42, 0x50], at: 8 },
  { what: 'a TIFF image', magic: [0x49, 0x49, 0x2a, 0x00] },
  { what: 'a TIFF image', magic: [0x4d, 0x4d, 0x00, 0x2a] },
  { what: 'an ELF executable', magic: [0x7f, 0x45, 0x4c, 0x46] },
  { what: 'a Mach-O executable', magic: [0xcf, 0xfa, 0xed, 0xfe] },
  { what: 'a WebAssembly module', magic: [0x00, 0x61, 0x73, 0x6d] },
  { what: 'a gzip archive', magic: [0x1f, 0x8b] },
  { what: 'a 7-Zip archive', magic: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c] },
  { what: 'a RAR archive', magic: [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07] },
  { what: 'an xz archive', magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] },
  { what: 'a zstd archive', magic: [0x28, 0xb5, 0x2f, 0xfd] },
  { what: 'a SQLite database', magic: [...Buffer.from('SQLite format 3\0', 'latin1')] },
  {
    what: 'a legacy Microsoft Office file (.doc/.xls; save it as .docx)',
    magic: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1],
  },
  { what: 'an MP4/QuickTime video', magic: [0x66, 0x74, 0x79, 0x70], at: 4 },
];

/**
 * Recognises a file: magic bytes first (PDF, docx, known binaries), then the extension, then the content type.
 * Throws UNSUPPORTED_CONTENT_TYPE for anything else.
 */
export function detectFileFormat(file: FileToExtract): DetectedFileFormat {
  const { fileName, bytes } = file;
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  if (isZip(bytes)) {
    if (zipHasEntry(bytes, 'word/document.xml')) return 'docx';
    throw unsupportedFile(fileName, `is ${describeZip(bytes)}`, { detected: 'zip' });
  }
  const binary = BINARY_SIGNATURES.find((s) => startsWithAt(bytes, s.magic, s.at ?? 0));
  if (binary) throw unsupportedFile(fileName, `is ${binary.what}`, { detected: binary.what });

  const extension = path.extname(fileName).toLowerCase();
  const byExtension = BY_EXTENSION[extension];
  if (byExtension) return byExtension;
  const { contentType: mediaType } = parseContentType(file.contentType);
  const byType = BY_MEDIA_TYPE[mediaType] ?? (mediaType.endsWith('+json') ? 'json' : undefined);
  if (byType) return byType;
  if (extension !== '') throw unsupportedFile(fileName, `has an unsupported extension "${extension}"`, { extension });
  if (mediaType !== '' && mediaType !== 'application/octet-stream') {
    throw unsupportedFile(fileName, `has an unsupported content type "${mediaType}"`, { contentType: mediaType });
  }
  // No extension and no useful type (README, LICENSE): plain text; the text decoder rejects binaries.
  return 'text';
}

function startsWithAt(bytes: Buffer, magic: readonly number[], at: number): boolean {
  if (bytes.length < at + magic.length) return false;
  return magic.every((byte, i) => bytes[at + i] === byte);
}

function describeZip(bytes: Buffer): string {
  const names = zipEntryNames(bytes) ?? [];
  if (names.includes('xl/workbook.xml')) return 'an Excel workbook (.xlsx)';
  if (names.includes('ppt/presentation.xml')) return 'a PowerPoint presentation (.pptx)';
  if (names.includes('mimetype') && names.includes('content.xml')) return 'an OpenDocument file';
  return 'a zip archive that is not a Word document';
}
