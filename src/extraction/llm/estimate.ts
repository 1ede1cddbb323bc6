import type { LlmExtractionConfig } from '../../config.js';
import type { ExtractionEstimate } from '../types.js';
import { systemPrompt, userPrompt } from './prompt.js';

/** A chunk that would be sent to the model, with its document (for the count and the title in the prompt). */
export interface ChunkToEstimate {
  documentId: string;
  /** The document's title, which the prompt carries; '' when unknown. */
  title?: string;
  content: string;
}

/**
 * Characters per token for the estimate: the usual rule of thumb for English with OpenAI's tokenizers. Code and other
 * languages run denser, so treat the figure as an order of magnitude, not a quote.
 */
export const CHARS_PER_TOKEN = 4;
/** Output tokens per input token of the passage: a list of entities and relationships is shorter than the text. */
export const OUTPUT_TOKENS_PER_PASSAGE_TOKEN = 0.5;
/** Output tokens of the answer's frame (braces, keys) whatever the passage. */
const OUTPUT_FRAME_TOKENS = 20;

/**
 * What extracting `chunks` with the LLM would cost, computed locally (nothing is sent): input tokens are the prompt
 * and the passage at CHARS_PER_TOKEN characters a token; output tokens OUTPUT_TOKENS_PER_PASSAGE_TOKEN of the passage's
 * tokens (plus a small frame), at most `maxOutputTokens` a chunk. Retries are not counted. The cost needs a price: an
 * unset one counts as 0, both unset give null. `chunks` are the chunks to send; `cachedCount` more are answered by the
 * cache and cost nothing; `documents` defaults to the distinct documents of `chunks`.
 */
export function estimateExtraction(
  chunks: readonly ChunkToEstimate[],
  config: Pick<
    LlmExtractionConfig,
    'entityTypes' | 'relationshipTypes' | 'maxOutputTokens' | 'priceInputPerMillion' | 'priceOutputPerMillion'
  >,
  cachedCount = 0,
  documents?: number,
): ExtractionEstimate {
  const systemTokens = tokensOf(systemPrompt(config));
  let input = 0;
  let output = 0;
  for (const chunk of chunks) {
    input += systemTokens + tokensOf(userPrompt(chunk.title ?? '', chunk.content));
    const passage = tokensOf(chunk.content);
    output += Math.min(
      config.maxOutputTokens,
      OUTPUT_FRAME_TOKENS + Math.ceil(passage * OUTPUT_TOKENS_PER_PASSAGE_TOKEN),
    );
  }
  const { priceInputPerMillion: inPrice, priceOutputPerMillion: outPrice } = config;
  const cost =
    inPrice === undefined && outPrice === undefined
      ? null
      : (input * (inPrice ?? 0) + output * (outPrice ?? 0)) / 1_000_000;
  return {
    documents: documents ?? new Set(chunks.map((c) => c.documentId)).size,
    chunks: chunks.length + cachedCount,
    cachedChunks: cachedCount,
    estimatedInputTokens: input,
    estimatedOutputTokens: output,
    estimatedCostUsd: cost,
  };
}

function tokensOf(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}
