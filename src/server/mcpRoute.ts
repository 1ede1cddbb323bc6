import express, { type Express, type RequestHandler } from 'express';
import { AppError, ErrorCode } from '../errors.js';
import type { Services } from '../services.js';
import { inRequestSpace } from './guard.js';
import { bodyErrorHandler, sendError } from './httpErrors.js';
import { answerErrorsAsJsonRpc } from './jsonRpcErrors.js';

/**
 * The handler, loaded with the MCP SDK on the first request: processes that never serve /mcp (most `cairn` commands,
 * and servers whose clients speak GraphQL) do not pay for loading it.
 */
function lazyMcpHandler(services: Services): RequestHandler {
  let handler: Promise<RequestHandler> | undefined;
  return (req, res, next) => {
    handler ??= import('./mcpHandler.js').then((m) => m.mcpHandler(services));
    void handler.then((h) => h(req, res, next)).catch(next);
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
    lazyMcpHandler(services),
    bodyErrorHandler(logger, config.maxBodyBytes),
  );
  app.all('/mcp', answerErrorsAsJsonRpc, onlyPost);
}
