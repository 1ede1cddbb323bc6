import { ErrorCode as RpcCode } from '@modelcontextprotocol/sdk/types.js';
import { AppError, ErrorCode, isAppError, loggableError, redactCredentials } from '../errors.js';
import type { Logger } from '../logger.js';

/** MCP's code for a resource that does not exist (the specification's -32002). */
const RESOURCE_NOT_FOUND = -32002;

const INVALID_PARAMS: ReadonlySet<string> = new Set([
  ErrorCode.BAD_USER_INPUT,
  ErrorCode.FORBIDDEN,
  ErrorCode.QUERY_TOO_COMPLEX,
]);

/**
 * A JSON-RPC error as the SDK sends it (its `code`, `message` and `data`). Not the SDK's McpError: that one puts
 * "MCP error <code>: " in its message, which then goes over the wire and a client adds the same prefix again.
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** An AppError as a JSON-RPC error: the message starts with Cairn's code, `data` carries the code and details. */
export function rpcErrorOf(error: AppError, rpc: number): RpcError {
  return new RpcError(rpc, `${error.code}: ${redactCredentials(error.message)}`, {
    ...error.details,
    code: error.code,
  });
}

/**
 * Resources and prompts have no tool-error result: their failures are JSON-RPC errors, whose message starts with
 * Cairn's code and whose `data` carries the code and details. Unexpected errors are logged and masked.
 */
export function protocolError(err: unknown, logger: Logger, what: string): RpcError {
  const app = isAppError(err) ? err : undefined;
  if (!app) logger.error({ err: loggableError(err), what }, 'unexpected error in an MCP request');
  const shown = app ?? new AppError(ErrorCode.INTERNAL_SERVER_ERROR, 'Internal server error');
  const rpc =
    shown.code === ErrorCode.NOT_FOUND
      ? RESOURCE_NOT_FOUND
      : INVALID_PARAMS.has(shown.code)
        ? RpcCode.InvalidParams
        : RpcCode.InternalError;
  return rpcErrorOf(shown, rpc);
}
