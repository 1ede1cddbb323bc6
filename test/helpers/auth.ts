import { loadConfig, type Config } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { startHttpServer, type RunningServer } from '../../src/server/httpServer.js';
import { createServices, type Services } from '../../src/services.js';
import type { GqlResponse } from './testServer.js';
import { NO_BACKGROUND_EXTRACTION } from './backgroundWork.js';

/** An HTTP answer to a GraphQL request: status, headers and parsed body. */
export interface GqlHttpResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: GqlResponse<T>;
}

/** POSTs one operation to `<url>/graphql`, with `Authorization: Bearer <key>` when a key is given. */
export async function gqlAs<T = Record<string, unknown>>(
  url: string,
  key: string | undefined,
  query: string,
  variables?: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<GqlHttpResponse<T>> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as GqlResponse<T> };
}

/** The first error's code, or undefined. */
export const codeOf = (r: GqlHttpResponse | GqlResponse): string | undefined =>
  ('body' in r ? r.body : r).errors?.[0]?.extensions?.code;

/** A server over an existing database (for CLI tests that share its data folder or URL). */
export interface ServerOn {
  services: Services;
  server: RunningServer;
  config: Config;
  close(): Promise<void>;
}

/** Starts services and HTTP on 127.0.0.1 over the database that `env` names (CAIRN_DATA_DIR or CAIRN_DATABASE_URL). */
export async function startServerOn(env: Record<string, string>): Promise<ServerOn> {
  const config = loadConfig({
    NODE_ENV: 'test',
    CAIRN_EMBEDDING_PROVIDER: 'hashing',
    CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
    ...NO_BACKGROUND_EXTRACTION,
    ...env,
  });
  const services = await createServices(config, silentLogger(), {
    embedder: new HashingEmbeddingProvider({ dimensions: 256 }),
  });
  const server = await startHttpServer(services, 0, '127.0.0.1');
  return {
    services,
    server,
    config,
    async close() {
      await server.stop();
      await services.close();
    },
  };
}
