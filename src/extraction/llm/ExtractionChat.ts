import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { AppError, ErrorCode } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { answerJsonSchema, type ChatMessage, type ExtractionTypes } from './prompt.js';
import { attemptsOfRequest, countingFetch } from '../../shared/countingFetch.js';

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
// Sent to servers that need no key (Ollama, vLLM, LM Studio): the SDK refuses an empty one.
const PLACEHOLDER_API_KEY = 'cairn-no-api-key';
/** What the text of a key is replaced with wherever it could show. */
export const HIDDEN_KEY = '[hidden key]';

/** The endpoint settings of the `llm` extractor (mirrors LlmExtractionConfig). */
export interface ExtractionChatSettings extends ExtractionTypes {
  baseUrl?: string | undefined;
  model: string;
  apiKey?: string | undefined;
  timeoutMs: number;
  maxRetries: number;
  maxOutputTokens: number;
  logger?: Logger | undefined;
}

/** One answer of the model. */
export interface ChatAnswer {
  content: string | null;
  finishReason: string | null;
  promptTokens: number;
  completionTokens: number;
}

/**
 * Chat completions for the extractor: structured output by a strict `json_schema`, or by `json_object` once the
 * endpoint has rejected `json_schema` (remembered for this instance). HTTP retries (429 honouring Retry-After, 5xx,
 * time-outs, connection errors) are the SDK's. Failures become EXTRACTION_UNAVAILABLE errors naming the setting to
 * fix, with the API key hidden.
 */
export class ExtractionChat {
  readonly url: string;
  readonly #settings: ExtractionChatSettings;
  readonly #client: OpenAI;
  readonly #schema: Record<string, unknown>;
  /** How requests are shaped; narrowed for this instance as the endpoint rejects parts of it. */
  #shape: RequestShape = { jsonSchema: true, maxCompletionTokens: false, temperature: true };

  constructor(settings: ExtractionChatSettings) {
    this.#settings = settings;
    const baseURL = (settings.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.url = `${baseURL}/chat/completions`;
    this.#schema = answerJsonSchema(settings);
    const logger = settings.logger;
    this.#client = new OpenAI({
      apiKey: settings.apiKey ?? PLACEHOLDER_API_KEY,
      baseURL,
      maxRetries: settings.maxRetries,
      timeout: settings.timeoutMs,
      fetch: countingFetch,
      logLevel: logger ? 'info' : 'off',
      logger: logger ? this.#retryWarnings(logger) : undefined,
    });
  }

  /** The structured-output mode requests use now. */
  get responseFormat(): 'json_schema' | 'json_object' {
    return this.#shape.jsonSchema ? 'json_schema' : 'json_object';
  }

  /**
   * One answer to `messages`; throws EXTRACTION_UNAVAILABLE when the endpoint fails. A 400 refusing `json_schema`,
   * `max_tokens` (OpenAI's reasoning models want `max_completion_tokens`) or `temperature` changes the request's shape
   * for this instance and sends it again.
   */
  async complete(messages: ChatMessage[], signal?: AbortSignal): Promise<ChatAnswer> {
    for (;;) {
      const shape = this.#shape;
      const counter = { attempts: 0 };
      try {
        return await attemptsOfRequest.run(counter, () => this.#send(messages, shape, signal));
      } catch (error) {
        const reshaped = reshapeFor(error, shape);
        if (!reshaped) throw this.#failure(error, Math.max(1, counter.attempts));
        if (this.#shape === shape) {
          this.#shape = reshaped;
          this.#settings.logger?.warn(
            { url: this.url, model: this.#settings.model, shape: reshaped },
            `The LLM extraction endpoint refused a request parameter (${this.#hideKey(String(error))}); adapting`,
          );
        }
      }
    }
  }

  async #send(messages: ChatMessage[], shape: RequestShape, signal: AbortSignal | undefined): Promise<ChatAnswer> {
    const completion = await this.#client.chat.completions.create(
      {
        model: this.#settings.model,
        messages,
        ...(shape.temperature ? { temperature: 0 } : {}),
        ...(shape.maxCompletionTokens
          ? { max_completion_tokens: this.#settings.maxOutputTokens }
          : { max_tokens: this.#settings.maxOutputTokens }),
        response_format: shape.jsonSchema
          ? { type: 'json_schema', json_schema: { name: 'knowledge_graph', strict: true, schema: this.#schema } }
          : { type: 'json_object' },
      },
      signal ? { signal } : {},
    );
    const choice = completion.choices?.[0];
    return {
      content: choice?.message?.content ?? null,
      finishReason: choice?.finish_reason ?? null,
      promptTokens: completion.usage?.prompt_tokens ?? 0,
      completionTokens: completion.usage?.completion_tokens ?? 0,
    };
  }

  /** The error a caller sees: what failed, where, and which setting to fix; never the key. */
  #failure(cause: unknown, attempts: number): unknown {
    // The caller's own abort (the job stopped) is no endpoint failure.
    if (cause instanceof APIUserAbortError) return cause;
    const status = cause instanceof APIError && typeof cause.status === 'number' ? cause.status : undefined;
    const where = `the LLM extraction endpoint ${this.url} (model "${this.#settings.model}")`;
    const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
    const reason = this.#hideKey(this.#describe(cause));
    let message: string;
    if (status === 401 || status === 403) {
      message = `The API key was rejected by ${where} (HTTP ${status}): set CAIRN_EXTRACTION_LLM_API_KEY (or OPENAI_API_KEY) to a valid key.`;
    } else if (status === 404) {
      message =
        `${where} answered HTTP 404 (${reason}): check that CAIRN_EXTRACTION_LLM_BASE_URL ends in /v1 and that the ` +
        `server serves CAIRN_EXTRACTION_LLM_MODEL="${this.#settings.model}" (for Ollama: ollama pull ${this.#settings.model}).`;
    } else if (cause instanceof APIConnectionError) {
      message =
        `Cannot reach ${where} after ${tries}: ${reason}. Check CAIRN_EXTRACTION_LLM_BASE_URL and that the server ` +
        `(e.g. Ollama) is running, or raise CAIRN_EXTRACTION_LLM_TIMEOUT_MS.`;
    } else if (status !== undefined && (status === 408 || status === 429 || status >= 500)) {
      message =
        `${where} kept failing (HTTP ${status} after ${tries}): ${reason}. Retry later, or lower ` +
        `CAIRN_EXTRACTION_LLM_REQUESTS_PER_MINUTE / CAIRN_EXTRACTION_LLM_CONCURRENCY.`;
    } else if (status !== undefined) {
      message = `${where} rejected the request (HTTP ${status}): ${reason}. Check CAIRN_EXTRACTION_LLM_MODEL and CAIRN_EXTRACTION_LLM_BASE_URL.`;
    } else {
      message = `LLM extraction through ${where} failed: ${reason}. Check CAIRN_EXTRACTION_LLM_BASE_URL.`;
    }
    // The SDK's error is not kept as the cause: its message repeats whatever the server said, which may be the key.
    return new AppError(ErrorCode.EXTRACTION_UNAVAILABLE, capitalise(message), {
      url: this.url,
      model: this.#settings.model,
      status,
      attempts,
    });
  }

  #describe(error: unknown): string {
    if (error instanceof APIConnectionTimeoutError) return `request timed out after ${this.#settings.timeoutMs} ms`;
    if (error instanceof APIConnectionError) {
      let inner: unknown = error;
      // Not `instanceof Error`: fetch's errors may come from another realm (Jest's vm).
      for (let i = 0; i < 5 && typeof inner === 'object' && inner !== null && 'cause' in inner && inner.cause; i++)
        inner = inner.cause;
      const code = typeof inner === 'object' && inner !== null && 'code' in inner ? String(inner.code) : undefined;
      return code ? `connection failed (${code})` : 'connection failed';
    }
    return error instanceof Error ? error.message : String(error);
  }

  #hideKey(text: string): string {
    const key = this.#settings.apiKey;
    return key && key.length >= 4 ? text.split(key).join(HIDDEN_KEY) : text;
  }

  /** Forwards the SDK's retry notices as warnings; its other chatter (request details at debug) stays out. */
  #retryWarnings(logger: Logger): NonNullable<ConstructorParameters<typeof OpenAI>[0]>['logger'] {
    const ignore = () => undefined;
    const context = { url: this.url, model: this.#settings.model };
    return {
      error: ignore,
      warn: ignore,
      debug: ignore,
      info: (message: string) => {
        if (message.includes('retrying'))
          logger.warn(
            context,
            `LLM extraction request failed (${this.#hideKey(message.replace(/^\[[^\]]*\]\s*/, ''))})`,
          );
      },
    };
  }
}

/** What a request sends besides the conversation. */
interface RequestShape {
  jsonSchema: boolean;
  maxCompletionTokens: boolean;
  temperature: boolean;
}

/**
 * The shape to try after `error`, or undefined when the error is no refusal of a parameter: a 400 (or 422) naming
 * `response_format`/`json_schema` (older vLLM, some proxies), `max_tokens` or `temperature` (OpenAI's reasoning models).
 */
function reshapeFor(error: unknown, shape: RequestShape): RequestShape | undefined {
  if (!(error instanceof APIError) || (error.status !== 400 && error.status !== 422)) return undefined;
  const text = `${error.message} ${error.param ?? ''}`;
  if (shape.jsonSchema && /response_format|json_schema/i.test(text)) return { ...shape, jsonSchema: false };
  if (!shape.maxCompletionTokens && /max_tokens/i.test(text)) return { ...shape, maxCompletionTokens: true };
  if (shape.temperature && /temperature/i.test(text)) return { ...shape, temperature: false };
  return undefined;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
