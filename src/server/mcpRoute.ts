import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import express, { type Express, type RequestHandler } from 'express';
import { unauthenticated } from '../auth/ApiKeyService.js';
import { AppError, ErrorCode } from '../errors.js';
import { createMcpServer } from '../mcp/createMcpServer.js';
import type { Services } from '../services.js';
import { inRequestSpace, principalOf } from './guard.js';
import { bodyErrorHandler, sendError } from './httpErrors.js';
import { answerErrorsAsJsonRpc, envelopeProblem } from './jsonRpcErrors.js';

/**
 * One MCP message per POST, answered as JSON (the Streamable HTTP transport in stateless mode): each request is
 * authenticated, rate-limited and size-limited like a GraphQL request, and served by a server built for its key.
 */
function mcpHandler(services: Services): RequestHandler {
  return async (req, res, next) => {
    const principal = principalOf(res);
    if (!principal) {
      sendError(res, 401, unauthenticated('missing'));
      return;
    }
    if (Array.isArray(req.body)) {
      // As GraphQL refuses batches: one message per request keeps the rate limit counting calls.
      sendError(
        res,
        400,
        new AppError(ErrorCode.BAD_REQUEST, 'Send one JSON-RPC message per request; batches are not accepted.'),
      );
      return;
    }
    // A body that is not JSON is left to the transport, which refuses it (415) before reading it.
    const json = req.is('application/json') !== false;
    const problem = json ? envelopeProblem(req.body) : undefined;
    if (problem) {
      sendError(res, 400, problem);
      return;
    }
    if (json && !JSONRPCMessageSchema.safeParse(req.body).success) {
      sendError(res, 400, new AppError(ErrorCode.BAD_REQUEST, 'The body is not a JSON-RPC 2.0 message.'));
      return;
    }
    try {
      const server = createMcpServer(services, principal);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (err) {
      next(err);
    }
  };
}

/** Stateless: no session to resume (GET) or end (DELETE). */
const onlyPost: RequestHandler = (_req, res) => {
  res.setHeader('allow', 'POST');
  sendError(
    res,
    405,
    new AppError(
      ErrorCode.BAD_REQUEST,
      'The MCP endpoint takes POST requests only (Streamable HTTP without sessions).',
    ),
  );
};

/**
 * Mounts the MCP endpoint at /mcp behind `guard` (the API's keys, roles and rate limit); every refusal there, from the
 * guard's 401 to the body limit's 413, is a JSON-RPC error object with the HTTP status kept.
 */
export function mountMcp(app: Express, services: Services, guard: RequestHandler): void {
  const { config, logger } = services;
  app.post(
    '/mcp',
    answerErrorsAsJsonRpc,
    guard,
    // Not strict: a body of JSON that is not an object (`"tools/list"`) is an invalid request, not unparseable text.
    express.json({ limit: config.maxBodyBytes, strict: false }),
    // Every tool and resource reads and writes the request's space only (the services apply it).
    inRequestSpace,
    mcpHandler(services),
    bodyErrorHandler(logger, config.maxBodyBytes),
  );
  app.all('/mcp', answerErrorsAsJsonRpc, onlyPost);
}
