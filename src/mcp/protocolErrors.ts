import { ErrorCode as RpcCode, McpError } from '@modelcontextprotocol/sdk/types.js';
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
 * Resources and prompts have no tool-error result: their failures are JSON-RPC errors, whose message starts with
 * Cairn's code and whose `data` carries the code and details. Unexpected errors are logged and masked.
 */
export function protocolError(err: unknown, logger: Logger, what: string): McpError {
  const app = isAppError(err) ? err : undefined;
  if (!app) logger.error({ err: loggableError(err), what }, 'unexpected error in an MCP request');
  const shown = app ?? new AppError(ErrorCode.INTERNAL_SERVER_ERROR, 'Internal server error');
  const rpc =
    shown.code === ErrorCode.NOT_FOUND
      ? RESOURCE_NOT_FOUND
      : INVALID_PARAMS.has(shown.code)
        ? RpcCode.InvalidParams
        : RpcCode.InternalError;
  const message = redactCredentials(shown.message);
  return new McpError(rpc, `${shown.code}: ${message}`, { ...shown.details, code: shown.code });
}
