import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted non-200 answer, served before normal responses. */
export interface ScriptedFailure {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Behaviour knobs for the fake `/v1/embeddings` server. */
export interface FakeServerOptions {
  /** Vector length for models not in the built-in table; default 16. */
  defaultDimensions?: number;
  /** Always answer with vectors of this length (to provoke a mismatch). */
  forceLength?: number;
  /** Delay before answering each request. */
  delayMs?: number;
  /** Return `data` in reverse order (clients must sort by `index`). */
  reverseOrder?: boolean;
  /** Answers for the first requests, in order. */
  failures?: ScriptedFailure[];
}

/** A request body as received by the fake server. */
export interface ReceivedRequest {
  model: string;
  input: string[];
  dimensions?: number;
  encoding_format?: string;
}

const MODEL_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

/** Deterministic, input-dependent, deliberately un-normalised vector (FNV-1a per component). */
export function fakeVector(text: string, dimensions: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < dimensions; i++) {
    let h = 0x811c9dc5;
    for (const ch of `${i}:${text}`) {
      h ^= ch.codePointAt(0) ?? 0;
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    out.push(((h % 2001) - 1000) / 100);
  }
  return out;
}

/** A real HTTP server on 127.0.0.1 speaking the OpenAI embeddings API, with request accounting. */
export class FakeOpenAIServer {
  readonly requests: ReceivedRequest[] = [];
  inFlight = 0;
  maxInFlight = 0;
  #server: http.Server;
  #options: FakeServerOptions;
  #failures: ScriptedFailure[];

  private constructor(options: FakeServerOptions) {
    this.#options = options;
    this.#failures = [...(options.failures ?? [])];
    this.#server = http.createServer((req, res) => void this.#handle(req, res));
  }

  /** Starts a server on an ephemeral port. */
  static async start(options: FakeServerOptions = {}): Promise<FakeOpenAIServer> {
    const server = new FakeOpenAIServer(options);
    await new Promise<void>((resolve) => server.#server.listen(0, '127.0.0.1', resolve));
    return server;
  }

  /** The `/v1` root to use as `baseUrl`. */
  get baseUrl(): string {
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v1`;
  }

  /** Stops listening and drops open keep-alive connections. */
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        return send(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedRequest & { input: string | string[] };
      const input = Array.isArray(body.input) ? body.input : [body.input];
      this.requests.push({ ...body, input });
      if (this.#options.delayMs) await new Promise((r) => setTimeout(r, this.#options.delayMs));
      const failure = this.#failures.shift();
      if (failure) {
        return send(
          res,
          failure.status,
          failure.body ?? { error: { message: `scripted ${failure.status}` } },
          failure.headers,
        );
      }
      const dims =
        this.#options.forceLength ??
        body.dimensions ??
        MODEL_DIMENSIONS[body.model] ??
        this.#options.defaultDimensions ??
        16;
      const data = input.map((text, index) => ({ object: 'embedding', index, embedding: fakeVector(text, dims) }));
      if (this.#options.reverseOrder) data.reverse();
      send(res, 200, {
        object: 'list',
        data,
        model: body.model,
        usage: { prompt_tokens: input.length, total_tokens: input.length },
      });
    } catch (error) {
      send(res, 500, { error: { message: String(error) } });
    } finally {
      this.inFlight--;
    }
  }
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** A port that was just bound and released, so connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
