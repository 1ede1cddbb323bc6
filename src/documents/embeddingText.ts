import { contentHash } from '../chunking/contentHash.js';

/** The text embedded for a chunk: the title gives every chunk its document's context. */
export function embeddingText(title: string, chunkContent: string): string {
  return `${title}\n\n${chunkContent}`;
}

/** Hash of what a chunk's vector was computed from; equal hashes mean the vector can be kept. */
export function chunkHash(title: string, chunkContent: string): string {
  return contentHash(embeddingText(title, chunkContent));
}
