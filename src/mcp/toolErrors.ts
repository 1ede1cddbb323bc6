import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { AppError, ErrorCode, badInput, isAppError, loggableError, redactCredentials } from '../errors.js';
import type { Logger } from '../logger.js';

// A tool's arguments are the fields of its GraphQL `input`, so the shared validation's "input.query" is argument "query".
const INPUT_PREFIX = /^input\./;

/** An AppError with its field named as the tool's argument. */
function asArgumentError(error: AppError): AppError {
  const field = error.details.field;
  if (typeof field !== 'string' || !INPUT_PREFIX.test(field)) return error;
  const argument = field.replace(INPUT_PREFIX, '');
  const message = error.message.startsWith(`${field}:`)
    ? `${argument}${error.message.slice(field.length)}`
    : error.message;
  return new AppError(error.code, message, { ...error.details, field: argument });
}

/** The first problem zod found in the arguments, as BAD_USER_INPUT naming the argument (its value is never repeated). */
export function argumentsError(error: z.ZodError): AppError {
  const issue = error.issues[0];
  if (!issue) return badInput('arguments', 'are not valid');
  if (issue.code === 'unrecognized_keys') {
    const where = issue.path.length > 0 ? ` in ${issue.path.join('.')}` : '';
    return badInput(
      issue.path.join('.') || 'arguments',
      `unknown argument${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}${where}; see the tool's input schema`,
    );
  }
  const field =
    issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('') ||
    'arguments';
  // zod calls a JSON object with any keys a "record".
  const reason = issue.message.replace(/^Invalid input: /, '').replace(/^expected record\b/, 'expected an object');
  const message = issue.code === 'invalid_type' && /received undefined$/.test(reason) ? 'is required' : reason;
  return badInput(field, message);
}

/** An MCP tool error (isError) carrying Cairn's code and message; the text starts with the code for models to read. */
export function toolError(error: AppError): CallToolResult {
  const shown = asArgumentError(error);
  const message = redactCredentials(shown.message);
  return {
    isError: true,
    content: [{ type: 'text', text: `${shown.code}: ${message}` }],
    structuredContent: { error: { ...shown.details, code: shown.code, message } },
  };
}

/** Any failure of a tool as a tool error: AppErrors as they are, anything else logged and masked as GraphQL masks it. */
export function failureResult(err: unknown, logger: Logger, tool: string): CallToolResult {
  if (isAppError(err)) return toolError(err);
  logger.error({ err: loggableError(err), tool }, 'unexpected error in an MCP tool');
  return toolError(new AppError(ErrorCode.INTERNAL_SERVER_ERROR, 'Internal server error'));
}
