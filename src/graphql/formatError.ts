import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError, ErrorCode, isAppError, loggableError, redactCredentials } from '../errors.js';
import type { Logger } from '../logger.js';
import { clientSafeMessage } from './clientMessage.js';
import { tokenLimitError } from './protection.js';
import { hideSuggestions, withHiddenSuggestions } from './suggestions.js';

// Codes Apollo assigns to request problems; their messages describe the client's mistake, so they pass through, with
// the values they repeat from the request cut and URL credentials hidden (clientSafeMessage).
const CLIENT_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

/** The AppError behind an error: thrown by a resolver, or carried by a validation rule or plugin. */
function appErrorOf(error: unknown, formatted: GraphQLFormattedError): AppError | undefined {
  const original = unwrapResolverError(error);
  if (isAppError(original)) return original;
  if (original instanceof GraphQLError && isAppError(original.originalError)) return original.originalError;
  if (formatted.extensions?.code === 'GRAPHQL_PARSE_FAILED') return tokenLimitError(formatted.message);
  return undefined;
}

/** An AppError's details with URL credentials hidden in its text values (they may repeat client input). */
function safeDetails(details: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(details).map(([k, v]) => [k, typeof v === 'string' ? redactCredentials(v) : v]),
  );
}

/**
 * Builds Apollo's `formatError`: AppErrors keep their code and message, Apollo's and graphql-js's request errors
 * keep theirs made safe (clientSafeMessage), anything else is masked and logged.
 */
export function createFormatError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const base = { message: formatted.message, locations: formatted.locations, path: formatted.path };
    const app = appErrorOf(error, formatted);
    if (app)
      return {
        ...base,
        message: redactCredentials(app.message),
        extensions: { ...safeDetails(app.details), code: app.code },
      };
    const code = formatted.extensions?.code;
    if (typeof code === 'string' && CLIENT_CODES.has(code)) {
      // Suggestions stay hidden unless suggestionsPlugin finds the caller may read the schema.
      return withHiddenSuggestions(
        { ...base, extensions: { code } },
        base.message,
        clientSafeMessage(hideSuggestions(base.message)),
      );
    }
    logger.error(
      { err: loggableError(unwrapResolverError(error)), path: formatted.path },
      'unexpected error in GraphQL request',
    );
    return {
      message: 'Internal server error',
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR },
    };
  };
}
