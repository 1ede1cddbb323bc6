import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { GraphQLError, parse, specifiedRules, validate, type ValidationRule } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { Authenticator } from '../auth/Authenticator.js';
import { relayedByProxy } from '../auth/loopback.js';
import type { Principal } from '../auth/roles.js';
import { isAppError } from '../errors.js';
import { createContext } from '../graphql/context.js';
import { createFormatError } from '../graphql/formatError.js';
import type { Resolvers } from '../graphql/generated/types.js';
import type { Logger } from '../logger.js';
import type { Services } from '../services.js';

/** What the subscription endpoint shares with the HTTP one. */
export interface SubscriptionServerOptions {
  httpServer: http.Server;
  services: Services;
  typeDefs: string;
  /** The same role-checked resolvers the HTTP endpoint serves. */
  resolvers: Resolvers;
  authenticator: Authenticator;
  validationRules: readonly ValidationRule[];
  maxTokens: number;
  logger: Logger;
}

/**
 * graphql-ws on /graphql of the same server and port. A connection authenticates once, as an HTTP request would,
 * with the key in connectionParams.authorization ("Bearer …") or the upgrade request's Authorization header; every
 * operation gets the HTTP endpoint's static limits. Returns a function that closes every connection.
 */
export function startSubscriptionServer(options: SubscriptionServerOptions): () => Promise<void> {
  const schema = makeExecutableSchema({ typeDefs: options.typeDefs, resolvers: options.resolvers as never });
  // Upgrades are handed over by hand (noServer): attached to the HTTP server, ws re-emits its errors (a port in use),
  // which graphql-ws then prints with a stack although the HTTP server's own listener reports them to the user.
  const wss = new WebSocketServer({ noServer: true });
  options.httpServer.on('upgrade', (request, socket, head) => {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== '/graphql') {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  });
  const principals = new WeakMap<object, Principal>();
  // Errors carry the same extensions.code and safe messages as over HTTP.
  const formatError = createFormatError(options.logger);
  const format = (errors: readonly GraphQLError[]) => errors.map((e) => formatError(e.toJSON(), e));
  const server = useServer(
    {
      schema,
      onConnect: async (ctx) => {
        const req = ctx.extra.request;
        const given = ctx.connectionParams?.authorization;
        try {
          const principal = await options.authenticator.authenticate({
            authorization: typeof given === 'string' ? given : req.headers.authorization,
            host: req.headers.host,
            forwarded: relayedByProxy(req.headers),
            remoteAddress: req.socket.remoteAddress,
          });
          principals.set(ctx.extra, principal);
          return true;
        } catch (err) {
          if (!isAppError(err)) options.logger.warn({ err }, 'subscription authentication failed');
          return false; // closes with 4403 Forbidden
        }
      },
      onSubscribe: (ctx, _id, payload) => {
        const principal = principals.get(ctx.extra);
        if (!principal) return [new GraphQLError('not authenticated', { extensions: { code: 'UNAUTHENTICATED' } })];
        let document;
        try {
          document = parse(payload.query, { maxTokens: options.maxTokens });
        } catch (err) {
          return [err instanceof GraphQLError ? err : new GraphQLError((err as Error).message)];
        }
        const errors = validate(schema, document, [...specifiedRules, ...options.validationRules]);
        if (errors.length > 0) return errors;
        return {
          schema,
          document,
          variableValues: payload.variables ?? undefined,
          operationName: payload.operationName ?? undefined,
          contextValue: createContext(options.services, `ws-${randomUUID()}`, principal),
        };
      },
      onNext: (_ctx, _id, _payload, _args, result) => (result.errors ? { ...result, errors: format(result.errors) } : result),
      onError: (_ctx, _id, _payload, errors) => format(errors) as never,
    },
    wss,
  );
  return async () => {
    await server.dispose();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  };
}
