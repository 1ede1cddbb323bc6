import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { AppError, ErrorCode } from '../errors.js';
import { CliError } from './cliErrors.js';

/** A GraphQL error as the server sends it. */
interface WireError {
  message: string;
  extensions?: { code?: unknown };
}

const KNOWN_CODES = new Set<string>(Object.values(ErrorCode));
// Apollo's and the upload endpoint's CSRF rule: a preflight header shows the request does not come from a web form.
const PREFLIGHT = { 'apollo-require-preflight': 'true' };

/**
 * The CLI's client for a running `cairn serve` that holds the embedded data folder: GraphQL and the upload endpoint,
 * with the API key from `--api-key` or CAIRN_API_KEY. Server errors come back as AppErrors with the server's code.
 */
export class ServerClient {
  constructor(
    readonly url: string,
    private readonly apiKey: string | undefined,
  ) {}

  /** Runs one GraphQL operation; throws the first error (its code kept), or a CliError saying what to do about a key. */
  async graphql<T>(
    query: string,
    variables: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ): Promise<T> {
    const res = await this.send(
      '/graphql',
      { 'content-type': 'application/json', ...headers },
      JSON.stringify({ query, variables }),
    );
    const body = (await res.json().catch(() => undefined)) as { data?: T | null; errors?: WireError[] } | undefined;
    const first = body?.errors?.[0];
    if (first) throw this.errorOf(first);
    if (!res.ok || !body?.data)
      throw new CliError(`the server at ${this.url} answered HTTP ${res.status} without data`);
    return body.data;
  }

  /** Runs one subscription over graphql-ws (ws://…/graphql, same key) until it completes, handing each result to `onNext`. */
  async subscribe<T>(
    query: string,
    variables: Record<string, unknown>,
    onNext: (data: T) => void,
    headers: Record<string, string> = {},
  ): Promise<void> {
    // The server reads a subscription's space from its upgrade request's headers, as HTTP reads a request's.
    class WebSocketWithHeaders extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers });
      }
    }
    const client = createClient({
      url: `${this.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocketWithHeaders,
      lazy: true,
      retryAttempts: 0,
      connectionParams: this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {},
    });
    try {
      await new Promise<void>((resolve, reject) => {
        client.subscribe<T>(
          { query, variables },
          {
            next: (result) => {
              const wire = (result.errors as WireError[] | undefined)?.[0];
              if (wire) reject(this.errorOf(wire));
              else onNext(result.data as T);
            },
            error: (err) => {
              const wire = Array.isArray(err) ? (err[0] as WireError | undefined) : undefined;
              const closed = err as { code?: number; reason?: string };
              reject(
                wire
                  ? this.errorOf(wire)
                  : new CliError(
                      `the subscription to ${this.url} was closed (${closed.code ?? '?'} ${closed.reason ?? ''}); is the API key right?`,
                    ),
              );
            },
            complete: resolve,
          },
        );
      });
    } finally {
      await client.dispose();
    }
  }

  /** POST /v1/uploads: stores one file on the server and returns its upload id (for importUpload). */
  async upload(fileName: string, bytes: Buffer): Promise<string> {
    const form = new FormData();
    form.append('file', new Blob([bytes]), fileName);
    const res = await this.send('/v1/uploads', {}, form);
    const body = (await res.json().catch(() => undefined)) as
      { id?: string; errors?: WireError[]; error?: WireError } | undefined;
    const wire = body?.errors?.[0] ?? body?.error;
    if (res.status !== 201 || typeof body?.id !== 'string') {
      throw wire
        ? this.errorOf(wire)
        : new CliError(`the server at ${this.url} refused the upload of ${fileName} (HTTP ${res.status})`);
    }
    return body.id;
  }

  private async send(path: string, headers: Record<string, string>, body: string | FormData): Promise<Response> {
    const auth: Record<string, string> = this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {};
    try {
      return await fetch(`${this.url}${path}`, {
        method: 'POST',
        headers: { ...PREFLIGHT, ...auth, ...headers },
        body,
      });
    } catch (err) {
      throw new CliError(
        `the server at ${this.url}, which holds the data folder, does not answer (${(err as Error).cause ?? (err as Error).message}); wait until it is ready, or stop it and run this again`,
        { cause: err },
      );
    }
  }

  /** The server's error as the CLI reports it; an authentication problem says where the key comes from. */
  private errorOf(wire: WireError): Error {
    const code = typeof wire.extensions?.code === 'string' ? wire.extensions.code : undefined;
    if (code === ErrorCode.UNAUTHENTICATED) {
      return new CliError(
        this.apiKey
          ? `the server at ${this.url} does not accept the API key given (--api-key or CAIRN_API_KEY): ${wire.message}`
          : `the server at ${this.url} requires an API key: pass --api-key <key> or set CAIRN_API_KEY (in the environment or .env)`,
      );
    }
    if (code && KNOWN_CODES.has(code)) return new AppError(code as ErrorCode, wire.message);
    return new CliError(code ? `[${code}] ${wire.message}` : wire.message);
  }
}
