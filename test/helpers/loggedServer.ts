import { Writable } from 'node:stream';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { startHttpServer } from '../../src/server/httpServer.js';
import { createServices, type Services } from '../../src/services.js';
import { edgeTarget } from './databases.js';
import { NO_BACKGROUND_EXTRACTION } from './backgroundWork.js';

/** A real server on a scratch database (logging does not depend on the store: edgeTarget) whose log is kept in memory, for tests of what gets logged. */
export interface LoggedServer {
  url: string;
  services: Services;
  /** Everything logged so far (NDJSON). */
  logged(): string;
  close(): Promise<void>;
}

/**
 * Starts a LoggedServer on 127.0.0.1, logging at `level`: debug by default, where each request's full record (headers,
 * query) is logged, which the redaction tests read.
 */
export async function startLoggedServer(level = 'debug'): Promise<LoggedServer> {
  let logged = '';
  const logger = pino(
    { level },
    new Writable({ write: (chunk: Buffer, _enc, done) => ((logged += chunk.toString()), done()) }),
  );
  const database = await edgeTarget().createDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    ...database.env,
    CAIRN_EMBEDDING_PROVIDER: 'hashing',
    CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
    ...NO_BACKGROUND_EXTRACTION,
  });
  const services = await createServices(config, logger, { embedder: new HashingEmbeddingProvider({ dimensions: 64 }) });
  const server = await startHttpServer(services, 0, '127.0.0.1');
  return {
    url: server.url,
    services,
    logged: () => logged,
    async close() {
      await server.stop();
      await services.close();
      await database.drop();
    },
  };
}
