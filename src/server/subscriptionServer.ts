import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { makeExecutableSchema } from '@graphql-tools/schema';
import {
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { Authenticator } from '../auth/Authenticator.js';
import { relayedByProxy } from '../auth/loopback.js';
import type { Principal } from '../auth/roles.js';
import { SPACE_HEADER } from '../auth/SpaceService.js';
import type { GraphqlLimits, SubscriptionLimits } from '../config.js';
import { AppError, ErrorCode, isAppError } from '../errors.js';
import { createContext } from '../graphql/context.js';
import { createFormatError } from '../graphql/formatError.js';
import type { Resolvers } from '../graphql/generated/types.js';
import { subscriptionProblem } from '../graphql/operationLimits.js';
import { preParseProblem } from '../graphql/preParseLimits.js';
import type { Logger } from '../logger.js';
import type { Services } from '../services.js';
import type { RateLimiter } from './RateLimiter.js';
import { SubscriptionSlots } from './subscriptionSlots.js';

/** What the subscription endpoint shares with the HTTP one. */
export interface SubscriptionServerOptions {
  httpServer: http.Server;
  services: Services;
  typeDefs: string;
  /** The same role-checked resolvers the HTTP endpoint serves. */
  resolvers: Resolvers;
  authenticator: Authenticator;
  validationRules: readonly ValidationRule[];
  graphqlLimits: GraphqlLimits;
  subscriptionLimits: SubscriptionLimits;
  /** The HTTP endpoint's limiters: a subscribe spends a request token, a bad key one of the address's failed keys. */
  limiter: RateLimiter;
  failedKeys: RateLimiter;
  /** Largest message a client may send (the HTTP body limit). */
  maxPayloadBytes: number;
  logger: Logger;
}

/** Who a connection is, as its connection_init established. */
interface Session {
  authorization: string | undefined;
  request: http.IncomingMessage;
  /** Rate-limit and slot bucket: the key, or the client address without one (as on HTTP). */
  bucket: string;
}

/** graphql-ws's close code for a connection whose key is refused. */
const CLOSE_FORBIDDEN = 4403;
/** graphql-ws's close code for a connection refused by a limit (4429 is "too many requests" in its own range). */
const CLOSE_RATE_LIMITED = 4429;

const asGraphQLError = (error: AppError) => new GraphQLError(error.message, { originalError: error });

/** graphql-js's own request errors with the codes Apollo gives them over HTTP, so formatError passes them through. */
function requestErrors(errors: readonly GraphQLError[], code: string): GraphQLError[] {
  return errors.map((e) =>
    e.originalError || e.extensions.code
      ? e
      : new GraphQLError(e.message, { nodes: e.nodes, source: e.source, positions: e.positions, extensions: { code } }),
  );
}

/** Hands WebSocket upgrades of /graphql to `wss`; other paths are refused. */
function acceptUpgrades(
  httpServer: http.Server,
  wss: WebSocketServer,
  logger: SubscriptionServerOptions['logger'],
): void {
  // Upgrades are handed over by hand (noServer): attached to the HTTP server, ws re-emits its errors (a port in use),
  // which graphql-ws then prints with a stack although the HTTP server's own listener reports them to the user.
  httpServer.on('upgrade', (request, socket, head) => {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== '/graphql') {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      wss.emit('connection', ws, request);
      // ws closes the connection itself on a client's protocol error (1009 for a message over maxPayload); graphql-ws
      // would also print each one to the console as an internal error, so its listener gives way to the log.
      ws.removeAllListeners('error');
      ws.on('error', (err: Error & { code?: string }) => {
        if (err.code?.startsWith('WS_ERR_'))
          logger.debug({ code: err.code, message: err.message }, 'WebSocket client broke the protocol; closed');
        else logger.warn({ err }, 'WebSocket error');
      });
    });
  });
}

/** The operation, parsed and checked as HTTP checks it, or the errors to answer. */
function checkOperation(
  schema: GraphQLSchema,
  options: SubscriptionServerOptions,
  request: { query: string; operationName: string | undefined; variables: Record<string, unknown> },
  principal: Principal,
): DocumentNode | GraphQLError[] {
  const tooComplex = preParseProblem(request.query, options.graphqlLimits);
  if (tooComplex) return [asGraphQLError(tooComplex)];
  let document: DocumentNode;
  try {
    document = parse(request.query, { maxTokens: options.graphqlLimits.maxTokens });
  } catch (err) {
    return requestErrors(
      [err instanceof GraphQLError ? err : new GraphQLError((err as Error).message)],
      'GRAPHQL_PARSE_FAILED',
    );
  }
  const errors = validate(schema, document, [...specifiedRules, ...options.validationRules]);
  if (errors.length > 0) return requestErrors(errors, 'GRAPHQL_VALIDATION_FAILED');
  const problem = subscriptionProblem(
    schema,
    document,
    request.operationName,
    request.variables,
    principal,
    options.graphqlLimits,
  );
  return problem ? [asGraphQLError(problem)] : document;
}

/** What `connect` needs from the server. */
interface ConnectParts {
  options: SubscriptionServerOptions;
  authenticate: (session: Pick<Session, 'authorization' | 'request'>) => Promise<Principal>;
  sessions: WeakMap<object, Session>;
}

/** Authenticates a connection once, as HTTP authenticates a request; false closes it (4403, or 4429 when rate limited). */
async function connect(
  extra: { request: http.IncomingMessage; socket: { close(code: number, reason: string): void } },
  connectionParams: Readonly<Record<string, unknown>> | undefined,
  { options, authenticate, sessions }: ConnectParts,
): Promise<boolean> {
  const request = extra.request;
  const given = connectionParams?.authorization;
  const authorization = typeof given === 'string' ? given : request.headers.authorization;
  const ip = `ip:${request.socket.remoteAddress ?? 'unknown'}`;
  // As on HTTP: an address out of bad-key budget is refused before any key lookup.
  if (
    authorization !== undefined &&
    !options.failedKeys.peek(ip).ok &&
    !options.authenticator.presentsAcceptedKey(authorization)
  ) {
    extra.socket.close(CLOSE_RATE_LIMITED, 'Too many unknown, malformed or revoked API keys from this address');
    return false;
  }
  try {
    const principal = await authenticate({ authorization, request });
    sessions.set(extra, { authorization, request, bucket: principal.keyId ? `key:${principal.keyId}` : ip });
    return true;
  } catch (err) {
    if (isAppError(err) && err.details.reason === 'invalid') options.failedKeys.take(ip);
    if (!isAppError(err)) options.logger.warn({ err }, 'subscription authentication failed');
    return false; // closes with 4403 Forbidden
  }
}

/** The session's principal once its key is still accepted and its rate-limit bucket has a token, or the errors. */
async function admit(
  session: Session,
  authenticate: (session: Session) => Promise<Principal>,
  limiter: SubscriptionServerOptions['limiter'],
): Promise<Principal | GraphQLError[]> {
  let principal: Principal;
  try {
    principal = await authenticate(session);
  } catch (err) {
    const refusal = isAppError(err)
      ? err
      : new AppError(ErrorCode.UNAUTHENTICATED, "the connection's key is no longer accepted");
    return [asGraphQLError(refusal)];
  }
  const decision = limiter.take(session.bucket);
  if (decision.ok) return principal;
  const { retryAfterSeconds } = decision;
  const message = `Too many requests; retry in ${retryAfterSeconds} s (CAIRN_RATE_LIMIT_PER_SECOND, CAIRN_RATE_LIMIT_BURST).`;
  return [asGraphQLError(new AppError(ErrorCode.RATE_LIMITED, message, { retryAfterSeconds }))];
}

/** The subscription's space (see `SpaceService.forRequest`: a space the key lacks is refused), else the refusal. */
async function spaceForSubscription(
  services: SubscriptionServerOptions['services'],
  principal: Principal,
  header: string | string[] | undefined,
): Promise<string | AppError> {
  try {
    return await services.spaces.forRequest(principal, typeof header === 'string' ? header : undefined);
  } catch (err) {
    if (isAppError(err)) return err;
    throw err;
  }
}

/**
 * graphql-ws on /graphql of the same server and port, under the HTTP endpoint's rules. A connection authenticates
 * once, with the key in connectionParams.authorization ("Bearer …") or the upgrade request's Authorization header,
 * within CAIRN_SUBSCRIPTION_INIT_TIMEOUT_MS; the key is checked again at every subscribe and before every event, so a
 * revoked key starts nothing and its connection closes at its next event.
 * Only subscriptions are served. Each subscribe spends a rate-limit token and gets the static limits, the cost
 * limit with its variables, the variable limits and the introspection rule; connections and keys hold at most
 * CAIRN_SUBSCRIPTIONS_PER_CONNECTION / _PER_KEY open subscriptions. Returns a function that closes every connection.
 */
export function startSubscriptionServer(options: SubscriptionServerOptions): () => Promise<void> {
  const schema = makeExecutableSchema({ typeDefs: options.typeDefs, resolvers: options.resolvers as never });
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes });
  acceptUpgrades(options.httpServer, wss, options.logger);
  const sessions = new WeakMap<object, Session>();
  const slots = new SubscriptionSlots(options.subscriptionLimits);
  const authenticate = (session: Pick<Session, 'authorization' | 'request'>): Promise<Principal> =>
    options.authenticator.authenticate({
      authorization: session.authorization,
      host: session.request.headers.host,
      forwarded: relayedByProxy(session.request.headers),
      remoteAddress: session.request.socket.remoteAddress,
    });
  // Errors carry the same extensions.code and safe messages as over HTTP.
  const formatError = createFormatError(options.logger);
  const format = (errors: readonly GraphQLError[]) => errors.map((e) => formatError(e.toJSON(), e));

  const server = useServer(
    {
      schema,
      connectionInitWaitTimeout: options.subscriptionLimits.initTimeoutMs,
      onConnect: (ctx) => connect(ctx.extra, ctx.connectionParams, { options, authenticate, sessions }),
      onSubscribe: async (ctx, id, payload) => {
        const session = sessions.get(ctx.extra);
        if (!session) return [new GraphQLError('not authenticated', { extensions: { code: 'UNAUTHENTICATED' } })];
        const principal = await admit(session, authenticate, options.limiter);
        if (Array.isArray(principal)) return principal;
        // Every subscription reads its space only (the subscription resolvers run each poll there).
        const space = await spaceForSubscription(options.services, principal, session.request.headers[SPACE_HEADER]);
        if (typeof space !== 'string') return [asGraphQLError(space)];
        const variables = payload.variables ?? {};
        const operationName = payload.operationName ?? undefined;
        const document = checkOperation(schema, options, { query: payload.query, operationName, variables }, principal);
        if (Array.isArray(document)) return document;
        const full = slots.take(ctx.extra, session.bucket, id);
        if (full) return [asGraphQLError(full)];
        return {
          schema,
          document,
          variableValues: variables,
          operationName,
          contextValue: createContext(options.services, `ws-${randomUUID()}`, principal, space),
        };
      },
      onComplete: (ctx, id) => slots.release(ctx.extra, id),
      onClose: (ctx) => slots.releaseAll(ctx.extra),
      onNext: async (ctx, _id, _payload, _args, result) => {
        // A key revoked while its subscriptions run gets no further event: the connection closes instead.
        const session = sessions.get(ctx.extra);
        const accepted = session
          ? await authenticate(session).then(
              () => true,
              () => false,
            )
          : false;
        if (!accepted) ctx.extra.socket.close(CLOSE_FORBIDDEN, 'Forbidden: the API key is no longer accepted');
        return result.errors ? { ...result, errors: format(result.errors) } : result;
      },
      onError: (_ctx, _id, _payload, errors) => format(errors) as never,
    },
    wss,
  );
  return async () => {
    await server.dispose();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  };
}
