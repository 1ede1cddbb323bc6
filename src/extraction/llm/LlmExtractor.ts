import { createHash } from 'node:crypto';
import pLimit, { type LimitFunction } from 'p-limit';
import type { LlmExtractionConfig } from '../../config.js';
import { AppError, ErrorCode } from '../../errors.js';
import type { Logger } from '../../logger.js';
import {
  ChunkExtractionError,
  type ChunkExtraction,
  type ChunkForExtraction,
  type DocumentForExtraction,
  type Extractor,
} from '../types.js';
import { parseAnswer } from './answer.js';
import { candidatesOf } from './candidates.js';
import type { ExtractionChat } from './ExtractionChat.js';
import { firstMessages, PROMPT_VERSION, retryMessages, type ChatMessage, type ExtractionTypes } from './prompt.js';
import { RequestRateLimiter, type Clock, type Wait } from './RequestRateLimiter.js';

/** Retries of one chunk whose answer failed validation, each quoting the errors back to the model. */
export const ANSWER_RETRIES = 2;

/** The `llm` extractor's settings: `config.extraction.llm`, and test seams for time. */
export interface LlmExtractorOptions {
  config: LlmExtractionConfig;
  logger?: Logger | undefined;
  /** The RPM budget's clock and wait (tests inject a fake clock; nothing sleeps). */
  clock?: Clock;
  wait?: Wait;
}

/**
 * Typed entities and named relationships from an OpenAI-compatible chat model (OpenAI, Ollama, vLLM, LM Studio),
 * under the configured types. Chunks of every `extract` call of this instance share one concurrency limit and one
 * requests-per-minute budget. An answer that stays invalid after ANSWER_RETRIES retries fails its chunk
 * (ChunkExtractionError); an endpoint that fails throws EXTRACTION_UNAVAILABLE (the document can be retried later).
 */
export class LlmExtractor implements Extractor {
  readonly name = 'llm' as const;
  readonly fingerprint: string;
  readonly #config: LlmExtractionConfig;
  readonly #types: ExtractionTypes;
  readonly #logger: Logger | undefined;
  /** Built on first use: the OpenAI SDK loads only in processes that extract with a model. */
  #chat: Promise<ExtractionChat> | undefined;
  readonly #limit: LimitFunction;
  readonly #rate: RequestRateLimiter;

  constructor(options: LlmExtractorOptions) {
    const { config } = options;
    this.#config = config;
    this.#types = { entityTypes: config.entityTypes, relationshipTypes: config.relationshipTypes };
    this.fingerprint = [
      'llm',
      PROMPT_VERSION,
      `model=${config.model ?? ''}`,
      `types=${digest(JSON.stringify(this.#types))}`,
      `max=${config.maxOutputTokens}`,
    ].join('/');
    this.#logger = options.logger;
    this.#limit = pLimit(config.concurrency);
    this.#rate = new RequestRateLimiter(config.requestsPerMinute, options.clock, options.wait);
  }

  /** The prompt carries the document's title (it disambiguates short names). */
  contextKey(document: DocumentForExtraction): string {
    return document.title;
  }

  /**
   * One result per chunk, in order. Every chunk is finished before an error is thrown: an endpoint failure
   * (EXTRACTION_UNAVAILABLE) before a chunk's invalid answer (ChunkExtractionError).
   */
  async extract(
    document: DocumentForExtraction,
    chunks: readonly ChunkForExtraction[],
    signal?: AbortSignal,
  ): Promise<ChunkExtraction[]> {
    const chat = await this.#chatOrThrow();
    const settled = await Promise.allSettled(
      chunks.map((chunk) => this.#limit(() => this.#extractChunk(chat, document, chunk, signal))),
    );
    const failures = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
    const failure = failures.find((f) => !(f instanceof ChunkExtractionError)) ?? failures[0];
    if (failure !== undefined) throw failure;
    return settled.map((s) => (s as PromiseFulfilledResult<ChunkExtraction>).value);
  }

  #chatOrThrow(): Promise<ExtractionChat> {
    const { model } = this.#config;
    if (model !== undefined && (this.#config.apiKey !== undefined || this.#config.baseUrl !== undefined)) {
      this.#chat ??= import('./ExtractionChat.js').then(
        ({ ExtractionChat }) => new ExtractionChat({ ...this.#config, ...this.#types, model, logger: this.#logger }),
      );
      return this.#chat;
    }
    if (model !== undefined)
      throw new AppError(
        ErrorCode.CONFIG_INVALID,
        `The llm extractor has no API key for OpenAI's endpoint: set CAIRN_EXTRACTION_LLM_API_KEY (or OPENAI_API_KEY), ` +
          'or point CAIRN_EXTRACTION_LLM_BASE_URL at an OpenAI-compatible server such as Ollama (http://127.0.0.1:11434/v1).',
        { setting: 'CAIRN_EXTRACTION_LLM_API_KEY' },
      );
    throw new AppError(
      ErrorCode.CONFIG_INVALID,
      'The llm extractor has no model: set CAIRN_EXTRACTION_LLM_MODEL (e.g. gpt-4o-mini, or llama3.1 on Ollama), ' +
        'or remove llm from CAIRN_EXTRACTION_EXTRACTORS.',
      { setting: 'CAIRN_EXTRACTION_LLM_MODEL' },
    );
  }

  async #extractChunk(
    chat: ExtractionChat,
    document: DocumentForExtraction,
    chunk: ChunkForExtraction,
    signal: AbortSignal | undefined,
  ): Promise<ChunkExtraction> {
    let messages: ChatMessage[] = firstMessages(this.#types, document.title, chunk.content);
    const usage = { promptTokens: 0, completionTokens: 0 };
    let problems = '';
    for (let attempt = 0; attempt <= ANSWER_RETRIES; attempt++) {
      await this.#rate.acquire(signal);
      const answer = await chat.complete(messages, signal);
      usage.promptTokens += answer.promptTokens;
      usage.completionTokens += answer.completionTokens;
      const cut = answer.finishReason === 'length';
      const parsed = parseAnswer(answer.content);
      if (parsed.ok) {
        const found = candidatesOf(parsed.answer, chunk.content, this.#types);
        const warnings = [...found.warnings];
        if (cut) warnings.unshift(this.#cutWarning(chunk));
        if (found.entities.length === 0) warnings.unshift(`the model found no entity in chunk ${chunk.ordinal}`);
        return { entities: found.entities, relationships: found.relationships, links: [], warnings, usage };
      }
      problems = cut ? `${parsed.problems} It was cut at max_tokens: list fewer entities.` : parsed.problems;
      messages = retryMessages(messages, answer.content ?? '', problems);
    }
    throw new ChunkExtractionError(
      `The model's answer for chunk ${chunk.ordinal} stayed invalid after ${ANSWER_RETRIES} retries: ${problems}`,
      chunk.id,
    );
  }

  #cutWarning(chunk: ChunkForExtraction): string {
    return (
      `the model's answer for chunk ${chunk.ordinal} was cut at max_tokens ` +
      `(CAIRN_EXTRACTION_LLM_MAX_OUTPUT_TOKENS=${this.#config.maxOutputTokens}): some entities may be missing`
    );
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}
