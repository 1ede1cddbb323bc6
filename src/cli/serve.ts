import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { startHttpServer } from '../server/httpServer.js';
import { createServices } from '../services.js';

/** Runs the server until SIGINT/SIGTERM, then drains HTTP and closes the database. */
export async function serve(config: Config, logger: Logger): Promise<void> {
  const services = await createServices(config, logger);
  services.sweeper.start();
  services.outbox?.start();
  const server = await startHttpServer(services);
  logger.info({ url: `${server.url}/graphql`, database: services.db.kind, embedder: services.embedder.info }, `Cairn is ready at ${server.url}/graphql`);
  // Load PGlite's in-memory vector copy in the background, so the first search does not pay for it.
  const warming = performance.now();
  services.search
    .warm()
    .then((chunks) => chunks > 0 && logger.info({ chunks, ms: Math.round(performance.now() - warming) }, 'vector search warmed up'))
    .catch((err: unknown) => logger.warn({ err }, 'could not warm up vector search; the first search will load it'));
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: draining HTTP, then closing the database');
    try {
      await server.stop();
      await services.close();
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}
