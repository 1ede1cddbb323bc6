import type { ApolloServerPlugin } from '@apollo/server';
import { isEnumType, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { clientSafeMessage } from './clientMessage.js';
import type { GraphQLContext } from './context.js';

// graphql-js suggests names ("Did you mean "keywordRank"?"), which reveal the schema. They are sent only to those who
// may read the schema anyway: admins, which the local keyless principal is (introspectionGuard's rule). formatError
// hides them by default and keeps the full text aside, under a symbol that JSON never serialises.

const WITH_SUGGESTIONS = Symbol('message with suggestions');

/** A formatted error that may carry its message with suggestions. */
type SuggestingError = GraphQLFormattedError & { [WITH_SUGGESTIONS]?: string };

/** The message without graphql-js's suggestions, pointing at the SDL instead. */
export function hideSuggestions(message: string): string {
  return message.replace(/ ?Did you mean .*\?$/s, ' (suggestions hidden; see schema.graphql)');
}

/** `formatted` with its suggestions hidden, keeping `full` (graphql-js's raw message) for suggestionsPlugin. */
export function withHiddenSuggestions(
  formatted: GraphQLFormattedError,
  full: string,
  hidden: string,
): GraphQLFormattedError {
  const error: SuggestingError = { ...formatted, message: hidden, [WITH_SUGGESTIONS]: full };
  return error;
}

// "Value "FAQS" does not exist in "DocumentType" enum." and "Enum "DocumentType" cannot represent non-enum value: …".
const ENUM_NAME = /(?:does not exist in "(\w+)" enum|Enum "(\w+)" cannot represent)/;

/** The message with the enum's valid values appended, when it is about a wrong enum value. */
export function listEnumValues(message: string, schema: GraphQLSchema): string {
  const match = ENUM_NAME.exec(message);
  const type = schema.getType(match?.[1] ?? match?.[2] ?? '');
  if (!isEnumType(type)) return message;
  return `${message} Valid values: ${type
    .getValues()
    .map((v) => v.name)
    .join(', ')}.`;
}

/** Restores suggestions, with an enum's valid values, for a principal allowed to introspect. */
export function suggestionsPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, contextValue, schema }) {
          if (response.body.kind !== 'single' || contextValue.principal?.role !== 'admin') return;
          const errors = response.body.singleResult.errors as readonly SuggestingError[] | undefined;
          if (!errors) return;
          response.body.singleResult.errors = errors.map((e) => {
            const full = e[WITH_SUGGESTIONS];
            return full === undefined ? e : { ...e, message: clientSafeMessage(listEnumValues(full, schema)) };
          });
        },
      };
    },
  };
}
