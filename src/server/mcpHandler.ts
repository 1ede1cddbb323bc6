import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandler } from 'express';
import { unauthenticated } from '../auth/ApiKeyService.js';
import { AppError, ErrorCode } from '../errors.js';
import { createMcpServer } from '../mcp/createMcpServer.js';
import type { Services } from '../services.js';
import { principalOf } from './guard.js';
import { sendError } from './httpErrors.js';
import { envelopeProblem } from './jsonRpcErrors.js';

/**
 * One MCP message per POST, answered as JSON (the Streamable HTTP transport in stateless mode): each request is
 * authenticated, rate-limited and size-limited like a GraphQL request, and served by a server built for its key.
 */
export function mcpHandler(services: Services): RequestHandler {
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
