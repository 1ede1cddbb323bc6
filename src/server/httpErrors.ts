import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { AppError, ErrorCode, loggableError } from '../errors.js';
import { clientSafeMessage } from '../graphql/clientMessage.js';
import type { Logger } from '../logger.js';
import { RpcCode, answersJsonRpc, sendJsonRpcError } from './jsonRpcErrors.js';

/**
 * Answers like a GraphQL error, so clients handle one error shape on every route; on /mcp, as a JSON-RPC error object
 * (`rpcCode` when given), the one shape MCP clients read.
 */
export function sendError(res: Response, status: number, error: AppError, rpcCode?: number): void {
  if (answersJsonRpc(res)) {
    sendJsonRpcError(res, status, error, rpcCode);
    return;
  }
  res.status(status).json({ errors: [{ message: error.message, extensions: { ...error.details, code: error.code } }] });
}

/** Answers a client error (4xx with a message meant for clients) or, for anything else, a logged, opaque 500. */
function sendUnexpected(logger: Logger, res: Response, err: unknown): void {
  const e = err as { status?: number; expose?: boolean; message?: string };
  if (e.expose && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    sendError(
      res,
      e.status,
      new AppError(
        e.status === 404 ? ErrorCode.NOT_FOUND : ErrorCode.BAD_REQUEST,
        clientSafeMessage(e.message ?? 'Bad request'),
      ),
    );
  } else {
    logger.error({ err: loggableError(err) }, 'unexpected error in an HTTP request');
    sendError(res, 500, new AppError(ErrorCode.INTERNAL_SERVER_ERROR, 'Internal server error'));
  }
}

/** Turns body-parser failures (too large, bad JSON) into JSON errors instead of Express's HTML page with a stack. */
export function bodyErrorHandler(logger: Logger, maxBodyBytes: number): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const e = err as { type?: string };
    if (e.type === 'entity.too.large') {
      sendError(
        res,
        413,
        new AppError(
          ErrorCode.PAYLOAD_TOO_LARGE,
          `The request body is larger than ${maxBodyBytes} bytes (CAIRN_MAX_BODY_BYTES).`,
          { limit: maxBodyBytes },
        ),
      );
    } else if (e.type === 'entity.parse.failed') {
      sendError(
        res,
        400,
        new AppError(ErrorCode.BAD_REQUEST, 'The request body is not valid JSON.'),
        RpcCode.PARSE_ERROR,
      );
    } else {
      sendUnexpected(logger, res, err);
    }
  };
}

const MALFORMED_PATH =
  'The request path is not valid percent-encoding (a "%" must start an escape such as %20 of UTF-8 bytes).';

/**
 * Refuses a path that does not percent-decode with 400 BAD_REQUEST before any route sees it: the router would
 * otherwise throw a URIError on some routes only (those with parameters) and let the rest fall through to 404.
 */
export const malformedPathHandler: RequestHandler = (req, res, next) => {
  try {
    decodeURIComponent(req.path);
  } catch {
    sendError(res, 400, new AppError(ErrorCode.BAD_REQUEST, MALFORMED_PATH));
    return;
  }
  next();
};

/** Answers a request no route took with 404 NOT_FOUND in the API's error shape (Express's own page is HTML). */
export const notFoundHandler: RequestHandler = (req, res) => {
  sendError(res, 404, new AppError(ErrorCode.NOT_FOUND, `There is nothing at ${req.method} ${req.path}.`));
};

/** The last error handler: JSON in every NODE_ENV, never Express's HTML page with a stack trace and file paths. */
export function finalErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    if (res.headersSent) {
      // Express then only closes the connection; nothing more reaches the client.
      next(err);
      return;
    }
    if (err instanceof URIError) sendError(res, 400, new AppError(ErrorCode.BAD_REQUEST, MALFORMED_PATH));
    else sendUnexpected(logger, res, err);
  };
}
