import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  ErrorCode as RpcCode,
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { rpcErrorOf } from './protocolErrors.js';
import { argumentsError } from './toolErrors.js';

/** The SDK's schema of each request Cairn's server answers (the same the SDK parses each request with). */
const REQUEST_SCHEMAS: ReadonlyMap<string, z.ZodType> = new Map<string, z.ZodType>(
  [
    InitializeRequestSchema,
    PingRequestSchema,
    ListToolsRequestSchema,
    CallToolRequestSchema,
    ListResourcesRequestSchema,
    ListResourceTemplatesRequestSchema,
    ReadResourceRequestSchema,
    ListPromptsRequestSchema,
    GetPromptRequestSchema,
  ].map((schema) => [schema.shape.method.value, schema]),
);

/**
 * The JSON-RPC error for a request whose params do not fit its method (say, tools/call `arguments` given as a
 * string): Invalid params (-32602) naming the first field at fault. The SDK itself would answer Internal error
 * (-32603) with zod's issue list as the message.
 */
export function invalidParamsResponse(message: JSONRPCMessage): JSONRPCErrorResponse | undefined {
  if (!isJSONRPCRequest(message)) return undefined;
  const parsed = REQUEST_SCHEMAS.get(message.method)?.safeParse(message);
  if (!parsed || parsed.success) return undefined;
  const error = rpcErrorOf(argumentsError(parsed.error), RpcCode.InvalidParams);
  return { jsonrpc: '2.0', id: message.id, error: { code: error.code, message: error.message, data: error.data } };
}
