import { createHash } from 'node:crypto';

/** SHA-256 of the text's UTF-8 bytes as lowercase hex; identifies unchanged documents and chunks. */
export function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
