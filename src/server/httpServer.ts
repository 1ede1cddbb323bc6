import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import express from 'express';
import { pinoHttp } from 'pino-http';
import { createContext, type GraphQLContext } from '../graphql/context.js';
import { createFormatError } from '../graphql/formatError.js';
import { resolvers } from '../graphql/resolvers/index.js';
import { loadTypeDefs } from '../graphql/schema.js';
import type { Services } from '../services.js';
import { uploadHandler } from './uploadRoute.js';
import { landingPagePlugin, mountWebAssets } from './webAssets.js';

/** A running HTTP server. */
export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:4000 */
  url: string;
  httpServer: http.Server;
  /** Drains in-flight requests and stops accepting new ones (does not close the services). */
  stop(): Promise<void>;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Starts Apollo at /graphql plus /healthz and /readyz on the configured host and port. */
export async function startHttpServer(services: Services, port = services.config.port, host = services.config.host): Promise<RunningServer> {
  const app = express();
  app.disable('x-powered-by');
  const httpServer = http.createServer(app);
  const apollo = new ApolloServer<GraphQLContext>({
    typeDefs: loadTypeDefs(),
    resolvers,
    formatError: createFormatError(services.logger),
    includeStacktraceInErrorResponses: false,
    plugins: [ApolloServerPluginDrainHttpServer({ httpServer }), landingPagePlugin()],
  });
  await apollo.start();

  app.use(
    pinoHttp({
      logger: services.logger,
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
        res.setHeader('x-request-id', id);
        return id;
      },
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
    }),
  );
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const report = await services.readiness.check();
    res.status(report.ready ? 200 : 503).json(report);
  });
  app.post('/v1/uploads', uploadHandler(services));
  mountWebAssets(app);
  app.use(
    '/graphql',
    express.json({ limit: services.config.maxBodyBytes }),
    expressMiddleware(apollo, { context: async ({ req }) => createContext(services, String(req.id)) }),
  );

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, host, () => resolve());
  });
  const address = httpServer.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    httpServer,
    stop: () => apollo.stop(),
  };
}
