import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import express, { type Request, type RequestHandler } from 'express';
import { GraphQLError } from 'graphql';
import { pinoHttp } from 'pino-http';
import { unauthenticated } from '../auth/ApiKeyService.js';
import { Authenticator } from '../auth/Authenticator.js';
import { secureResolvers } from '../graphql/fieldRoles.js';
import { isLoopbackHost } from '../auth/loopback.js';
import { AppError, ErrorCode } from '../errors.js';
import { createContext, type GraphQLContext } from '../graphql/context.js';
import { createFormatError } from '../graphql/formatError.js';
import { armorProtection, introspectionGuard } from '../graphql/protection.js';
import { rateLimitedStatusPlugin } from '../graphql/rateLimitedStatus.js';
import { replicaReadsPlugin, spaceReadsPlugin } from '../graphql/replicaReads.js';
import { suggestionsPlugin } from '../graphql/suggestions.js';
import { resolvers } from '../graphql/resolvers/index.js';
import { loadTypeDefs } from '../graphql/schema.js';
import type { Services } from '../services.js';
import { createGuard, inRequestSpace, principalOf, requestSpaceOf } from './guard.js';
import { DEFAULT_SPACE } from '../db/spaceScope.js';
import { bodyErrorHandler, finalErrorHandler, malformedPathHandler, notFoundHandler } from './httpErrors.js';
import { preParseGuard } from './preParseGuard.js';
import { RateLimiter } from './RateLimiter.js';
import { redactedRequest } from './requestLog.js';
import { requestLine } from './requestLine.js';
import { uploadHandler } from './uploadRoute.js';
import { startSubscriptionServer } from './subscriptionServer.js';
import { landingPagePlugin, mountWebAssets } from './webAssets.js';
import { mountMcp } from './mcpRoute.js';

/** A running HTTP server. */
export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:4000 */
  url: string;
  httpServer: http.Server;
  /** Drains in-flight requests and stops accepting new ones (does not close the services). */
  stop(): Promise<void>;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Apollo's landing page (a browser's GET /graphql without a query) carries no data, so it needs no key. */
const isLandingPage = (req: Request): boolean =>
  req.method === 'GET' && req.query.query === undefined && (req.headers.accept ?? '').includes('text/html');

/** Without keys, only loopback: refuses to listen elsewhere unless authentication is required or a key exists. */
async function checkExposure(services: Services, host: string): Promise<boolean> {
  const exposed = !isLoopbackHost(host);
  if (exposed && services.config.auth.mode !== 'required' && !(await services.apiKeys.anyActive())) {
    throw new AppError(
      ErrorCode.CONFIG_INVALID,
      `Refusing to listen on ${host} (CAIRN_HOST): no API key exists, so anyone who can reach it could read, change and delete everything. ` +
        'Create an admin key first: `npm run cairn -- keys create --role admin --name <your-name>` (then send it as "Authorization: Bearer <key>"), ' +
        'or set CAIRN_AUTH=required, or listen on 127.0.0.1.',
    );
  }
  return exposed;
}

/** The authenticator and the per-request guard (auth plus rate limits); warns when authentication is off. */
async function createAccessControl(services: Services, exposed: boolean, clock: () => number) {
  const { config, logger } = services;
  // Listening beyond loopback keeps keys required even if every key gets revoked later.
  const authenticator = new Authenticator(services.apiKeys, config.auth.mode === 'required' || exposed);
  if (!(await authenticator.enabled())) {
    // On PGlite the CLI works through this server (it finds it through the data folder's lock), so one advice fits both.
    const howToCreate =
      'Create an admin key with `npm run cairn -- keys create --role admin --name <name>` or the createApiKey mutation (e.g. from /graphiql on this machine).';
    logger.warn(
      `authentication is off: no API key exists, so every local request may do everything; listening on loopback only. ${howToCreate}`,
    );
  }
  const { perSecond, burst, failedKeysPerMinute } = config.rateLimit;
  // Turning the rate limit off (either setting 0) turns the failed-key budget off too.
  const failedKeys = perSecond > 0 && burst > 0 ? failedKeysPerMinute : 0;
  const limiter = new RateLimiter(perSecond, burst, clock);
  const failedKeyLimiter = new RateLimiter(failedKeys / 60, failedKeys, clock);
  const { spacePerSecond, spaceBurst } = config.rateLimit;
  const spaceLimiter = new RateLimiter(spacePerSecond, spaceBurst, clock);
  const guard = createGuard(
    authenticator,
    { limiter, failedKeys: failedKeyLimiter, spaces: spaceLimiter },
    services.spaces,
  );
  return { authenticator, guard, limiter, failedKeyLimiter };
}

interface ApolloParts {
  httpServer: http.Server;
  typeDefs: ReturnType<typeof loadTypeDefs>;
  resolvers: ReturnType<typeof secureResolvers>;
  armor: ReturnType<typeof armorProtection>;
  logger: Services['logger'];
}

function createApollo({
  httpServer,
  typeDefs,
  resolvers: secured,
  armor,
  logger,
}: ApolloParts): ApolloServer<GraphQLContext> {
  return new ApolloServer<GraphQLContext>({
    typeDefs,
    resolvers: secured,
    formatError: createFormatError(logger),
    includeStacktraceInErrorResponses: false,
    // Explicit although it is Apollo's default: simple (form-like) requests without a preflight header are refused.
    csrfPrevention: true,
    // One operation per request keeps the rate limit and the static limits meaningful.
    allowBatchedHttpRequests: false,
    // `cairn serve` handles SIGINT/SIGTERM itself (drain HTTP, stop workers, close the database). Apollo's own handler,
    // on outside NODE_ENV=test, stops the server and re-raises the signal, which killed the process before that ran.
    stopOnTerminationSignals: false,
    // Apollo turns introspection off when NODE_ENV=production (the Docker image); Cairn decides itself, through
    // introspectionGuard: anyone while auth is off, admins once it is on (GraphiQL's docs need it).
    introspection: true,
    validationRules: armor.validationRules,
    parseOptions: armor.parseOptions,
    plugins: [
      ApolloServerPluginDrainHttpServer({ httpServer }),
      landingPagePlugin(),
      introspectionGuard(),
      suggestionsPlugin(),
      rateLimitedStatusPlugin(),
      replicaReadsPlugin(),
      spaceReadsPlugin(),
      ...armor.plugins,
      // The schema sets no cache hints: Apollo's default cache-control plugin would still wrap every field resolution.
      ApolloServerPluginCacheControlDisabled(),
    ],
  });
}

/**
 * Gives each request the caller's x-request-id when it is sane, else a fresh one, and logs it (not the probes): the
 * full record with headers at debug, one short line at info (requestLine.ts).
 */
function requestLogger(logger: Services['logger']): RequestHandler[] {
  const full = pinoHttp({
    logger,
    genReqId: (req, res) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
      res.setHeader('x-request-id', id);
      return id;
    },
    autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
    customLogLevel: (_req, _res, err) => (err ? 'error' : 'debug'),
    serializers: { req: redactedRequest },
  });
  return [full, requestLine(logger)];
}

/** `handler` except for the landing page, which the guard lets through unauthenticated. */
const landingOr =
  (handler: RequestHandler): RequestHandler =>
  (req, res, next) =>
    isLandingPage(req) ? next() : handler(req, res, next);

/** Mounts Apollo at /graphql behind the guard (except the landing page), with the body limit. */
function mountGraphql(
  app: express.Express,
  apollo: ApolloServer<GraphQLContext>,
  services: Services,
  apiGuard: RequestHandler,
): void {
  const { config, logger } = services;
  const graphqlGuard: RequestHandler = (req, res, next) => (isLandingPage(req) ? next() : apiGuard(req, res, next));
  app.use(
    '/graphql',
    graphqlGuard,
    express.json({ limit: config.maxBodyBytes }),
    preParseGuard(config.graphqlLimits),
    landingOr(inRequestSpace),
    expressMiddleware(apollo, {
      context: async ({ req, res }) => {
        const principal = principalOf(res);
        if (!principal) {
          const error = unauthenticated('missing');
          throw new GraphQLError(error.message, { originalError: error, extensions: { http: { status: 401 } } });
        }
        return createContext(services, String(req.id), principal, requestSpaceOf(res) ?? DEFAULT_SPACE);
      },
    }),
    bodyErrorHandler(logger, config.maxBodyBytes),
  );
}

/** Listens and returns the base URL of the address actually bound. */
async function listen(httpServer: http.Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, host, () => resolve());
  });
  const address = httpServer.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${shownHost}:${address.port}`;
}

/** Starts Apollo at /graphql, MCP at /mcp, plus /healthz and /readyz on the configured host and port; `clock` (seconds) paces the rate limits. */
export async function startHttpServer(
  services: Services,
  port = services.config.port,
  host = services.config.host,
  clock: () => number = () => performance.now() / 1000,
): Promise<RunningServer> {
  const { config, logger } = services;
  const exposed = await checkExposure(services, host);
  const { authenticator, guard, limiter, failedKeyLimiter } = await createAccessControl(services, exposed, clock);
  const typeDefs = loadTypeDefs();
  const armor = armorProtection(config.graphqlLimits);

  const app = express();
  app.disable('x-powered-by');
  const httpServer = http.createServer(app);
  const secured = secureResolvers(resolvers, typeDefs);
  const stopSubscriptions = startSubscriptionServer({
    httpServer,
    services,
    typeDefs,
    resolvers: secured,
    authenticator,
    validationRules: armor.validationRules,
    graphqlLimits: config.graphqlLimits,
    subscriptionLimits: config.subscriptions,
    limiter,
    failedKeys: failedKeyLimiter,
    maxPayloadBytes: config.maxBodyBytes,
    logger,
  });
  const apollo = createApollo({ httpServer, typeDefs, resolvers: secured, armor, logger });
  await apollo.start();

  app.use(...requestLogger(logger));
  app.use(malformedPathHandler);
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const report = await services.readiness.check();
    res.status(report.ready ? 200 : 503).json(report);
  });
  app.post('/v1/uploads', guard('editor'), uploadHandler(services));
  mountWebAssets(app);
  const apiGuard = guard();
  mountGraphql(app, apollo, services, apiGuard);
  mountMcp(app, services, apiGuard);
  app.use(notFoundHandler);
  app.use(finalErrorHandler(logger));

  const url = await listen(httpServer, port, host);
  return {
    url,
    httpServer,
    stop: async () => {
      await stopSubscriptions();
      await apollo.stop();
    },
  };
}
