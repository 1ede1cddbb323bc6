import type { ErrorRequestHandler, Response } from 'express';
import { AppError, ErrorCode } from '../errors.js';
import type { Logger } from '../logger.js';

/** Answers like a GraphQL error, so clients handle one error shape on every route. */
export function sendError(res: Response, status: number, error: AppError): void {
  res.status(status).json({ errors: [{ message: error.message, extensions: { ...error.details, code: error.code } }] });
}

/** Turns body-parser failures (too large, bad JSON) into JSON errors instead of Express's HTML page with a stack. */
export function bodyErrorHandler(logger: Logger, maxBodyBytes: number): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const e = err as { type?: string; status?: number; expose?: boolean; message?: string };
    if (e.type === 'entity.too.large') {
      sendError(res, 413, new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `The request body is larger than ${maxBodyBytes} bytes (CAIRN_MAX_BODY_BYTES).`, { limit: maxBodyBytes }));
    } else if (e.type === 'entity.parse.failed') {
      sendError(res, 400, new AppError(ErrorCode.BAD_REQUEST, 'The request body is not valid JSON.'));
    } else if (e.expose && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
      sendError(res, e.status, new AppError(ErrorCode.BAD_REQUEST, e.message ?? 'Bad request'));
    } else {
      logger.error({ err }, 'unexpected error in an HTTP request');
      sendError(res, 500, new AppError(ErrorCode.INTERNAL_SERVER_ERROR, 'Internal server error'));
    }
  };
}
