export { LlmExtractor, ANSWER_RETRIES, type LlmExtractorOptions } from './LlmExtractor.js';
export {
  estimateExtraction,
  CHARS_PER_TOKEN,
  OUTPUT_TOKENS_PER_PASSAGE_TOKEN,
  type ChunkToEstimate,
} from './estimate.js';
export { SimpleTokenBudget } from './SimpleTokenBudget.js';
export { RequestRateLimiter, type Clock, type Wait } from './RequestRateLimiter.js';
export { PROMPT_VERSION } from './prompt.js';
