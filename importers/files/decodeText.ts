import { TextDecoder } from 'node:util';
import { unsupportedFile } from './fileErrors.js';

/** The byte-order mark of a buffer, if any. */
export function detectBom(bytes: Buffer): 'utf-8' | 'utf-16le' | 'utf-16be' | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** Throws UNSUPPORTED_CONTENT_TYPE when bytes without a UTF-16 BOM contain NUL, which text never does. */
export function assertNotBinary(fileName: string, bytes: Buffer): void {
  const bom = detectBom(bytes);
  if (bom === 'utf-16le' || bom === 'utf-16be') return;
  if (bytes.includes(0))
    throw unsupportedFile(fileName, 'contains NUL bytes, so it is binary, not text', { detected: 'binary' });
}

/**
 * Decodes text strictly: a BOM wins (and is stripped), else the declared charset, else UTF-8.
 * Invalid sequences or NUL characters → UNSUPPORTED_CONTENT_TYPE, since the file is not text.
 */
export function decodeText(fileName: string, bytes: Buffer, charset?: string): string {
  assertNotBinary(fileName, bytes);
  const bom = detectBom(bytes);
  const encoding = bom ?? normaliseCharset(charset) ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    // ignoreBOM: false makes TextDecoder strip a BOM matching the encoding.
    decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: false });
  } catch {
    throw unsupportedFile(fileName, `declares an unknown charset "${charset ?? ''}"`, { charset });
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw unsupportedFile(fileName, `is not valid ${encoding.toUpperCase()} text`, { encoding });
  }
  if (text.includes('\u0000')) throw unsupportedFile(fileName, 'contains NUL characters, so it is binary, not text');
  return text;
}

function normaliseCharset(charset: string | undefined): string | undefined {
  const value = charset?.trim().toLowerCase();
  return value ? value : undefined;
}
