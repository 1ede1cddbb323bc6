import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { AppError, ErrorCode } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { embedInBatches, l2Normalize } from '../batching.js';
import type { EmbedderInfo, EmbeddingProvider } from '../EmbeddingProvider.js';
import { attemptsOfRequest, countingFetch } from '../../shared/countingFetch.js';

/** Model used when `CAIRN_EMBEDDING_MODEL` is not set. */
export const DEFAULT_OPENAI_MODEL = 'text-embedding-3-small';

/** Native output sizes of OpenAI's embedding models; any other model needs configured or probed dimensions. */
export const KNOWN_OPENAI_DIMENSIONS: Readonly<Record<string, number>> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
// Sent as the bearer token to servers that need none (Ollama, vLLM, LM Studio): the SDK refuses an empty key.
const PLACEHOLDER_API_KEY = 'cairn-no-api-key';
const FIX_HINT =
  'Check CAIRN_EMBEDDING_BASE_URL, that the server (e.g. Ollama) is running and CAIRN_EMBEDDING_API_KEY, ' +
  'or set CAIRN_EMBEDDING_PROVIDER=hashing (or local) to embed without a server.';

/** Settings for `OpenAIEmbeddingProvider`; mirrors `EmbeddingConfig`. */
export interface OpenAIEmbeddingOptions {
  /** Model name; default `text-embedding-3-small`. */
  model?: string | undefined;
  /** Vector length; when unset and the model is unknown, `ready()` probes it. */
  dimensions?: number | undefined;
  /** OpenAI-compatible API root (ending in `/v1`); default OpenAI's. */
  baseUrl?: string | undefined;
  /** Bearer token; required only when `baseUrl` is unset. */
  apiKey?: string | undefined;
  /** Texts per request; default 64. */
  batchSize?: number | undefined;
  /** Requests in flight; default 2. */
  concurrency?: number | undefined;
  /** Per-attempt timeout; default 30 s. */
  timeoutMs?: number | undefined;
  /**
   * Retries on 408, 409, 429, 5xx, timeouts and connection errors, by the SDK: after the server's `Retry-After` (up to
   * a minute), else after 0.5 s doubling to at most 8 s, with jitter; default 4.
   */
  maxRetries?: number | undefined;
  /** Receives a warning per retry. */
  logger?: Logger | undefined;
}

type EmbeddingRequest = OpenAI.Embeddings.EmbeddingCreateParams;

/** Embeds through an OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama, vLLM, LM Studio). */
export class OpenAIEmbeddingProvider implements EmbeddingProvider {
  /** Model name sent with every request. */
  readonly model: string;
  /** Full endpoint URL, for messages. */
  readonly url: string;
  readonly #client: OpenAI;
  readonly #hasCredentials: boolean;
  readonly #sendDimensions: boolean;
  readonly #batchSize: number;
  readonly #concurrency: number;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  #dimensions: number | undefined;
  #probe: Promise<void> | undefined;

  constructor(options: OpenAIEmbeddingOptions = {}) {
    this.model = options.model ?? DEFAULT_OPENAI_MODEL;
    const baseURL = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.url = `${baseURL}/embeddings`;
    this.#hasCredentials = options.apiKey !== undefined || options.baseUrl !== undefined;
    // Only text-embedding-3-* accept `dimensions`; other servers reject the unknown parameter.
    this.#sendDimensions = options.dimensions !== undefined && this.model.startsWith('text-embedding-3');
    this.#dimensions = options.dimensions ?? KNOWN_OPENAI_DIMENSIONS[this.model];
    this.#batchSize = options.batchSize ?? 64;
    this.#concurrency = options.concurrency ?? 2;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxRetries = options.maxRetries ?? 4;
    const logger = options.logger;
    this.#client = new OpenAI({
      apiKey: options.apiKey ?? PLACEHOLDER_API_KEY,
      baseURL,
      maxRetries: this.#maxRetries,
      timeout: this.#timeoutMs,
      fetch: countingFetch,
      // The SDK announces each retry at level info ("... failed with status 500 in 3ms - retrying, 2 attempts remaining").
      logLevel: logger ? 'info' : 'off',
      logger: logger ? retryWarnings(logger, { url: this.url, model: this.model }) : undefined,
    });
  }

  /** Vector length; 0 while unknown (a model outside `KNOWN_OPENAI_DIMENSIONS` without configured dimensions, before `ready()`). */
  get dimensions(): number {
    return this.#dimensions ?? 0;
  }

  /** Provider, model and dimensions as recorded in the store. */
  get info(): EmbedderInfo {
    return { provider: 'openai', model: this.model, dimensions: this.dimensions };
  }

  /** Stable identifier, e.g. `openai:text-embedding-3-small:1536`. */
  get id(): string {
    return `openai:${this.model}:${this.dimensions}`;
  }

  /** One un-retried "ping" embed (so /readyz answers promptly); fixes the dimensions if they were unknown. */
  async ready(): Promise<void> {
    this.#assertCredentials();
    await this.#request(['ping'], false);
  }

  /** Embeds texts in order, in batches with bounded concurrency and retries. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    this.#assertCredentials();
    if (this.#dimensions === undefined) {
      // Probe once even if several embed() calls race, so every batch is checked against one size.
      this.#probe ??= this.#request(['ping'], true).then(
        () => undefined,
        (error: unknown) => {
          this.#probe = undefined;
          throw error;
        },
      );
      await this.#probe;
    }
    return embedInBatches(texts, { batchSize: this.#batchSize, concurrency: this.#concurrency }, (batch) =>
      this.#request(batch, true),
    );
  }

  async #request(input: string[], retry: boolean): Promise<Float32Array[]> {
    const body: EmbeddingRequest = { model: this.model, input, encoding_format: 'float' };
    if (this.#sendDimensions) body.dimensions = this.#dimensions;
    const counter = { attempts: 0 };
    let response: OpenAI.Embeddings.CreateEmbeddingResponse;
    try {
      response = await attemptsOfRequest.run(counter, () =>
        this.#client.embeddings.create(body, retry ? {} : { maxRetries: 0 }),
      );
    } catch (error) {
      throw this.#failure(error, Math.max(1, counter.attempts));
    }
    return this.#vectors(response, input.length);
  }

  #vectors(response: OpenAI.Embeddings.CreateEmbeddingResponse, expectedCount: number): Float32Array[] {
    const data = Array.isArray(response?.data) ? [...response.data] : [];
    if (data.length !== expectedCount) {
      throw this.#error(
        `The embedding endpoint ${this.url} returned ${data.length} embeddings for ${expectedCount} inputs (model "${this.model}")`,
      );
    }
    // The API documents `index`; sort by it rather than trusting response order.
    data.sort((a, b) => a.index - b.index);
    return data.map((item) => {
      const values: unknown = item.embedding;
      if (!Array.isArray(values) || values.some((v) => typeof v !== 'number')) {
        throw this.#error(
          `The embedding endpoint ${this.url} returned a non-numeric embedding for model "${this.model}"`,
        );
      }
      this.#checkLength(values.length);
      return l2Normalize(values as number[]);
    });
  }

  #checkLength(got: number): void {
    if (this.#dimensions === undefined) {
      if (got < 1)
        throw this.#error(`The embedding endpoint ${this.url} returned an empty vector for model "${this.model}"`);
      this.#dimensions = got;
      return;
    }
    if (got !== this.#dimensions) {
      throw this.#error(
        `The embedding endpoint ${this.url} returned vectors of length ${got} for model "${this.model}", ` +
          `expected ${this.#dimensions}. Set CAIRN_EMBEDDING_DIMENSIONS=${got} (an existing index must then be rebuilt) ` +
          `or set CAIRN_EMBEDDING_MODEL to the model the index was built with.`,
        { expected: this.#dimensions, got },
      );
    }
  }

  #assertCredentials(): void {
    if (this.#hasCredentials) return;
    throw this.#error(
      `No API key for the embedding endpoint ${this.url} (model "${this.model}"): set CAIRN_EMBEDDING_API_KEY (or OPENAI_API_KEY), ` +
        `point CAIRN_EMBEDDING_BASE_URL at an OpenAI-compatible server such as Ollama, or set CAIRN_EMBEDDING_PROVIDER=local|hashing.`,
    );
  }

  #failure(cause: unknown, attempts: number): AppError {
    const status = cause instanceof APIError && typeof cause.status === 'number' ? cause.status : undefined;
    const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
    const where = `the embedding endpoint ${this.url} (model "${this.model}")`;
    let message: string;
    if (status === 401 || status === 403) {
      message =
        `The API key was rejected by ${where} (HTTP ${status}): set CAIRN_EMBEDDING_API_KEY (or OPENAI_API_KEY) to a valid key, ` +
        `or set CAIRN_EMBEDDING_PROVIDER=local|hashing.`;
    } else if (status === 404) {
      message =
        `${capitalise(where)} answered HTTP 404: check that CAIRN_EMBEDDING_BASE_URL ends in /v1 and that the server ` +
        `serves model "${this.model}" (for Ollama: ollama pull ${this.model}), or set CAIRN_EMBEDDING_PROVIDER=hashing.`;
    } else if (cause instanceof APIConnectionError) {
      message = `Cannot reach ${where} after ${tries}: ${this.#describe(cause)}. ${FIX_HINT}`;
    } else if (status !== undefined && (status === 408 || status === 429 || status >= 500)) {
      message = `${capitalise(where)} kept failing (HTTP ${status} after ${tries}): ${this.#describe(cause)}. ${FIX_HINT}`;
    } else if (status !== undefined) {
      message = `${capitalise(where)} rejected the request (HTTP ${status}): ${this.#describe(cause)}. ${FIX_HINT}`;
    } else {
      message = `Embedding through ${where} failed: ${this.#describe(cause)}. ${FIX_HINT}`;
    }
    return this.#error(message, { status, attempts }, cause);
  }

  /** Short reason for messages, including the network error code behind a connection failure. */
  #describe(error: unknown): string {
    if (error instanceof APIConnectionTimeoutError) return `request timed out after ${this.#timeoutMs} ms`;
    return describeCause(error);
  }

  #error(message: string, details: Record<string, unknown> = {}, cause?: unknown): AppError {
    return new AppError(
      ErrorCode.EMBEDDING_UNAVAILABLE,
      message,
      { url: this.url, model: this.model, ...details },
      cause === undefined ? undefined : { cause },
    );
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Forwards the SDK's retry notices to `logger` as warnings; its other chatter stays out. */
function retryWarnings(
  logger: Logger,
  context: { url: string; model: string },
): NonNullable<ConstructorParameters<typeof OpenAI>[0]>['logger'] {
  const ignore = () => undefined;
  return {
    error: ignore,
    warn: ignore,
    debug: ignore,
    info: (message: string) => {
      if (message.includes('retrying'))
        logger.warn(context, `Embedding request failed (${message.replace(/^\[[^\]]*\]\s*/, '')}); retrying`);
    },
  };
}

/** Short reason for messages, including the network error code behind a connection failure. */
function describeCause(error: unknown): string {
  if (error instanceof APIConnectionError) {
    const inner = innermostCause(error);
    const code = typeof inner === 'object' && inner !== null && 'code' in inner ? String(inner.code) : undefined;
    return code ? `connection failed (${code})` : 'connection failed';
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

function innermostCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause !== undefined; depth++)
    current = current.cause;
  return current;
}
