import type { Config } from '../config.js';
import { recordServerUrl } from '../db/dataDirLock.js';
import { embeddedFolder } from '../db/openDb.js';
import type { Logger } from '../logger.js';
import { startHttpServer, type RunningServer } from '../server/httpServer.js';
import { createServices } from '../services.js';
import { CliError } from './cliErrors.js';

/** Turns a failed listen into the user's problem it is (a busy or privileged port), naming the setting to change. */
function listenError(err: unknown, host: string, port: number): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'EADDRINUSE') {
    return new CliError(
      `port ${port} on ${host} is already in use (CAIRN_PORT): stop the process that uses it, or set CAIRN_PORT to a free port`,
      { cause: err },
    );
  }
  if (code === 'EACCES')
    return new CliError(`not allowed to listen on port ${port} on ${host} (CAIRN_PORT): pick a port above 1023`, {
      cause: err,
    });
  if (code === 'EADDRNOTAVAIL')
    return new CliError(`${host} is not an address of this machine (CAIRN_HOST)`, { cause: err });
  return err;
}

/** The server's URL as a local client reaches it: a wildcard address (0.0.0.0, ::) becomes loopback. */
function reachableUrl(url: string): string {
  const u = new URL(url);
  if (u.hostname === '0.0.0.0') u.hostname = '127.0.0.1';
  else if (u.hostname === '[::]') u.hostname = '[::1]';
  return u.origin;
}

/** Runs the server until SIGINT/SIGTERM, then drains HTTP and closes the database. */
export async function serve(config: Config, logger: Logger): Promise<void> {
  const services = await createServices(config, logger);
  // Sweep and outbox run in one process among those sharing the database (at once on PGlite: it has one).
  await services.leadership.start();
  let server: RunningServer;
  try {
    server = await startHttpServer(services);
  } catch (err) {
    // Release the database (and the PGlite folder's lock) before the process reports the failure and exits.
    await services.close().catch(() => undefined);
    throw listenError(err, config.host, config.port);
  }
  // Before anything says the server is ready: a signal sent on reading that line must find the handlers in place.
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
  // The CLI run beside this server (which holds the embedded data folder) finds it through the folder's lock.
  const folder = embeddedFolder(config);
  if (folder) recordServerUrl(folder, reachableUrl(server.url));
  logger.info(
    { url: `${server.url}/graphql`, database: services.db.kind, embedder: services.embedder.info },
    `Cairn is ready at ${server.url}/graphql`,
  );
  // Load PGlite's in-memory vector copy in the background, so the first search does not pay for it.
  const warming = performance.now();
  services.search
    .warm()
    .then(
      (chunks) =>
        chunks > 0 && logger.info({ chunks, ms: Math.round(performance.now() - warming) }, 'vector search warmed up'),
    )
    .catch((err: unknown) => logger.warn({ err }, 'could not warm up vector search; the first search will load it'));
}
