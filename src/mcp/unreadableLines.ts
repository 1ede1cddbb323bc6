import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode as RpcCode,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { ZodError } from 'zod';
import { AppError, ErrorCode } from '../errors.js';
import { rpcErrorOf } from './protocolErrors.js';

const EXAMPLE = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';

const NOT_JSON = new AppError(
  ErrorCode.BAD_REQUEST,
  `A line is not JSON; send one JSON-RPC message per line: ${EXAMPLE}.`,
);

const NOT_A_MESSAGE = new AppError(
  ErrorCode.BAD_REQUEST,
  'A line is not a JSON-RPC 2.0 message: it must be a JSON object whose "jsonrpc" is "2.0", whose "id" (if any) is a ' +
    `string or an integer, whose "method" is a string and whose "params" (if any) is an object, such as ${EXAMPLE}.`,
);

/** A JSON-RPC error response to no known request: JSON-RPC gives it id null, which the SDK's type leaves out. */
export type UnreadableLineResponse = Omit<JSONRPCErrorResponse, 'id'> & { id: null };

/** The JSON-RPC error for a line the stdio transport could not read as a message, or undefined for other errors. */
export function unreadableLineResponse(error: Error): UnreadableLineResponse | undefined {
  const refusal =
    error instanceof SyntaxError
      ? rpcErrorOf(NOT_JSON, RpcCode.ParseError)
      : error instanceof ZodError
        ? rpcErrorOf(NOT_A_MESSAGE, RpcCode.InvalidRequest)
        : undefined;
  if (!refusal) return undefined;
  // The id is null: the line's id is unknown or is itself what is wrong.
  return { jsonrpc: '2.0', id: null, error: { code: refusal.code, message: refusal.message, data: refusal.data } };
}

/**
 * Answers the lines a stdio transport cannot read: the SDK reports them to `onerror` (a SyntaxError for text that
 * is not JSON, a ZodError for JSON that is not a JSON-RPC message) and sends nothing, so a client waits forever.
 * JSON-RPC wants Parse error (-32700) and Invalid Request (-32600), with id null. Call after the server connects.
 */
export function answerUnreadableLines(transport: Transport): void {
  const report = transport.onerror;
  transport.onerror = (error) => {
    const response = unreadableLineResponse(error);
    // The SDK's transport serializes the message as it is; only its type has no id null.
    if (response) transport.send(response as unknown as JSONRPCMessage).catch((err: unknown) => report?.(err as Error));
    report?.(error);
  };
}
