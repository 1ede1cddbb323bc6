import { loadConfig, type Config } from '../../src/config.js';
import type { GraphStore } from '../../src/graph/GraphStore.js';
import type { EmbeddingProvider } from '../../src/embeddings/EmbeddingProvider.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { startHttpServer, type RunningServer } from '../../src/server/httpServer.js';
import { createServices, type CreateServicesOptions, type Services } from '../../src/services.js';
import type { DbTarget } from './databases.js';
import { NO_BACKGROUND_EXTRACTION } from './backgroundWork.js';
import { countedCallHeaders, countRequestsOf, countStatement } from './statementCounter.js';

/** A GraphQL response as the server sends it. */
export interface GqlResponse<T = Record<string, unknown>> {
  data?: T | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: { code?: string; [k: string]: unknown } }[];
}

/** A Cairn server on 127.0.0.1 with an ephemeral port, over a fresh database. */
export interface TestServer {
  services: Services;
  server: RunningServer;
  config: Config;
  /** POSTs a GraphQL operation and returns the parsed body. */
  gql<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>): Promise<GqlResponse<T>>;
  close(): Promise<void>;
}

/** Starts services and HTTP for a target; `env` overrides configuration. */
export async function startTestServer(
  target: DbTarget,
  env: Record<string, string> = {},
  embedder: EmbeddingProvider = new HashingEmbeddingProvider({ dimensions: 256 }),
  graphStore?: GraphStore,
  /** Seconds on the clock the rate limits read (default: the real one). */
  clock?: () => number,
  /** More options for createServices (e.g. the documentExtractor of extractGraph tests). */
  extra: CreateServicesOptions = {},
): Promise<TestServer> {
  const database = await target.createDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    CAIRN_EMBEDDING_PROVIDER: 'hashing',
    CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
    ...NO_BACKGROUND_EXTRACTION,
    ...database.env,
    ...env,
  });
  const services = await createServices(config, silentLogger(), {
    onStatement: countStatement,
    ...extra,
    embedder,
    ...(graphStore ? { graphStore } : {}),
  });
  const server = await startHttpServer(services, 0, '127.0.0.1', clock);
  countRequestsOf(server.httpServer);
  return {
    services,
    server,
    config,
    async gql(query, variables) {
      const res = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...countedCallHeaders() },
        body: JSON.stringify({ query, variables }),
      });
      return (await res.json()) as GqlResponse<never>;
    },
    async close() {
      await server.stop();
      await services.close();
      await database.drop();
    },
  };
}
