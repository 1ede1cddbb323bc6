import { unwrapResolverError } from '@apollo/server/errors';
import type { GraphQLFormattedError } from 'graphql';
import { ErrorCode, isAppError } from '../errors.js';
import type { Logger } from '../logger.js';

// Codes Apollo assigns to request problems; their messages describe the client's mistake, so they pass through.
const CLIENT_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

/** Builds Apollo's `formatError`: AppErrors keep their code and message, anything else is masked. */
export function createFormatError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    const base = { message: formatted.message, locations: formatted.locations, path: formatted.path };
    if (isAppError(original)) {
      return { ...base, message: original.message, extensions: { ...original.details, code: original.code } };
    }
    const code = formatted.extensions?.code;
    if (typeof code === 'string' && CLIENT_CODES.has(code)) return { ...base, extensions: { code } };
    logger.error({ err: original, path: formatted.path }, 'unexpected error in GraphQL request');
    return {
      message: 'Internal server error',
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR },
    };
  };
}
