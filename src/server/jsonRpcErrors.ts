import type { RequestHandler, Response } from 'express';
import { AppError, ErrorCode } from '../errors.js';

/** JSON-RPC 2.0's error codes, as /mcp answers them. */
export const RpcCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** The range JSON-RPC leaves to servers: refusals of the HTTP request itself (key, size, rate, method). */
  SERVER_ERROR: -32000,
} as const;

const JSON_RPC_ERRORS = 'cairnJsonRpcErrors';

/**
 * Marks the request's errors as JSON-RPC error objects (MCP clients read no other shape) instead of GraphQL's
 * `{"errors": [...]}`: every refusal on the route (key, rate limit, body size, bad JSON) then answers in it.
 */
export const answerErrorsAsJsonRpc: RequestHandler = (_req, res, next) => {
  res.locals[JSON_RPC_ERRORS] = true;
  next();
};

/** True when `answerErrorsAsJsonRpc` ran for this response. */
export const answersJsonRpc = (res: Response): boolean => res.locals[JSON_RPC_ERRORS] === true;

/** The JSON-RPC code for an HTTP refusal: bad requests are Invalid Request, failures Internal error. */
function rpcCodeFor(status: number, error: AppError): number {
  if (error.code === ErrorCode.BAD_REQUEST && status === 400) return RpcCode.INVALID_REQUEST;
  if (status >= 500) return RpcCode.INTERNAL_ERROR;
  return RpcCode.SERVER_ERROR;
}

/**
 * A JSON-RPC error response (id null: the request's id is unknown or invalid) whose message starts with Cairn's code,
 * as the MCP tools' errors do, and whose `data` carries the code and details; the HTTP status stays as it is.
 */
export function sendJsonRpcError(
  res: Response,
  status: number,
  error: AppError,
  rpcCode = rpcCodeFor(status, error),
  id: string | number | null = null,
): void {
  res.status(status).json({
    jsonrpc: '2.0',
    id,
    error: { code: rpcCode, message: `${error.code}: ${error.message}`, data: { ...error.details, code: error.code } },
  });
}

const EXAMPLE = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const validId = (id: unknown): id is string | number =>
  typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));

const invalid = (field: string, reason: string): AppError =>
  new AppError(ErrorCode.BAD_REQUEST, `${reason} (a request looks like ${EXAMPLE}).`, { field });

/**
 * Why `body` is not one JSON-RPC 2.0 message as MCP allows it (ids are strings or integers, params an object), or
 * undefined. The SDK would answer these with -32700 (Parse error), which JSON-RPC keeps for text that is not JSON.
 */
export function envelopeProblem(body: unknown): AppError | undefined {
  if (!isPlainObject(body)) return invalid('body', 'The body must be one JSON-RPC message: a JSON object');
  if (body.jsonrpc !== '2.0') return invalid('jsonrpc', '"jsonrpc" must be "2.0"');
  if ('id' in body && !validId(body.id)) return invalid('id', '"id" must be a string or an integer');
  const isResponse = !('method' in body) && ('result' in body || 'error' in body);
  if (isResponse) return 'id' in body ? undefined : invalid('id', 'A response needs the "id" of its request');
  if (typeof body.method !== 'string') return invalid('method', '"method" must be a string such as "tools/call"');
  if ('params' in body && !isPlainObject(body.params)) return invalid('params', '"params" must be an object');
  return undefined;
}
