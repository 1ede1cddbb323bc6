import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DocumentForExtraction } from '../../src/extraction/types.js';

/** One hand-written answer of the stub to `POST /v1/chat/completions`. */
/** The document the LLM extractor tests extract from. */
export const stubDocument: DocumentForExtraction = {
  id: 'doc-1',
  title: 'Vite guide',
  documentType: 'markdown',
  source: null,
  tags: [],
  metadata: {},
};

export interface StubAnswer {
  /** HTTP status; default 200. */
  status?: number;
  headers?: Record<string, string>;
  /** The JSON body; see `chatCompletion` and `errorBody`. */
  body?: unknown;
  /** Never answer (the client's timeout must fire; `close()` drops the socket). */
  hang?: boolean;
  /** Answer after this many milliseconds (to hold requests in flight). */
  delayMs?: number;
}

/** A request as the stub received it. */
export interface RecordedRequest {
  /** Date.now() on arrival (for gaps such as Retry-After). */
  at: number;
  headers: http.IncomingHttpHeaders;
  body: ChatRequestBody;
}

/** The parts of a chat completions request the tests look at. */
export interface ChatRequestBody {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string; json_schema?: { name: string; strict?: boolean; schema: unknown } };
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
}

/** A 200 answer whose message content is `content`. */
export function chatCompletion(
  content: string | null,
  options: { finishReason?: string; promptTokens?: number; completionTokens?: number } = {},
): StubAnswer {
  const promptTokens = options.promptTokens ?? 100;
  const completionTokens = options.completionTokens ?? 20;
  return {
    body: {
      id: 'chatcmpl-stub',
      object: 'chat.completion',
      created: 0,
      model: 'stub-model',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content, refusal: null },
          finish_reason: options.finishReason ?? 'stop',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    },
  };
}

/** A 200 answer whose content is `value` as JSON. */
export function jsonCompletion(value: unknown, options: Parameters<typeof chatCompletion>[1] = {}): StubAnswer {
  return chatCompletion(JSON.stringify(value), options);
}

/** An error answer in OpenAI's shape (`{ error: { message, type } }`). */
export function errorAnswer(status: number, message: string, headers: Record<string, string> = {}): StubAnswer {
  return { status, headers, body: { error: { message, type: 'invalid_request_error', param: null, code: null } } };
}

/**
 * A real HTTP server on 127.0.0.1 speaking the OpenAI chat completions API with a queue of hand-written answers, one
 * per request, in order. A request with the queue empty gets HTTP 418 (which the SDK does not retry), so a test that
 * sends more than it expected fails loudly.
 */
export class OpenAiStub {
  readonly requests: RecordedRequest[] = [];
  /** The most requests that were waiting for their answer at once. */
  maxInFlight = 0;
  #inFlight = 0;
  readonly #queue: StubAnswer[] = [];
  readonly #server: http.Server;
  #baseUrl = '';

  private constructor() {
    this.#server = http.createServer((req, res) => this.#handle(req, res));
  }

  static async start(...answers: StubAnswer[]): Promise<OpenAiStub> {
    const stub = new OpenAiStub();
    stub.enqueue(...answers);
    await new Promise<void>((resolve) => stub.#server.listen(0, '127.0.0.1', resolve));
    stub.#baseUrl = `http://127.0.0.1:${(stub.#server.address() as AddressInfo).port}/v1`;
    return stub;
  }

  /** The `/v1` root, for CAIRN_EXTRACTION_LLM_BASE_URL. */
  get baseUrl(): string {
    return this.#baseUrl;
  }

  /** Answers still queued. */
  get pending(): number {
    return this.#queue.length;
  }

  enqueue(...answers: StubAnswer[]): void {
    this.#queue.push(...answers);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.closeAllConnections();
      this.#server.close(() => resolve());
    });
  }

  #handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return void res.writeHead(404).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequestBody;
      this.requests.push({ at: Date.now(), headers: req.headers, body });
      const answer = this.#queue.shift();
      if (!answer) {
        res.writeHead(418, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ error: { message: 'openAiStub: no answer queued for this request' } }));
      }
      if (answer.hang) return;
      this.#inFlight++;
      this.maxInFlight = Math.max(this.maxInFlight, this.#inFlight);
      setTimeout(() => {
        this.#inFlight--;
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        res.end(JSON.stringify(answer.body ?? {}));
      }, answer.delayMs ?? 0);
    });
  }
}
