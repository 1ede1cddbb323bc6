import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the server answers `POST /v1/embeddings`: normally, with HTTP 500, or never. */
export type EmbeddingServerMode = 'ok' | 'error500' | 'hang';

/** A real OpenAI-compatible embeddings server on 127.0.0.1 whose behaviour a test switches with `mode`. */
export interface FaultyEmbeddingServer {
  /** The `/v1` root, for CAIRN_EMBEDDING_BASE_URL. */
  baseUrl: string;
  mode: EmbeddingServerMode;
  /** Embedding requests received since start (every mode counts). */
  requests: number;
  close(): Promise<void>;
}

/** Starts the server; in `ok` mode every text gets a deterministic vector of `dimensions` numbers. */
export async function startFaultyEmbeddingServer(dimensions: number): Promise<FaultyEmbeddingServer> {
  const state: FaultyEmbeddingServer = { baseUrl: '', mode: 'ok', requests: 0, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') return void res.writeHead(404).end();
      state.requests++;
      if (state.mode === 'hang') return; // the client's timeout must fire; close() drops the socket
      if (state.mode === 'error500') {
        return void res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'model crashed' } }));
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; input: string | string[] };
      const input = Array.isArray(body.input) ? body.input : [body.input];
      const data = input.map((text, index) => ({
        object: 'embedding',
        index,
        embedding: Array.from(
          { length: dimensions },
          (_, i) => ((text.charCodeAt(i % Math.max(1, text.length)) || 1) % 17) + i / dimensions,
        ),
      }));
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 0, total_tokens: 0 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
