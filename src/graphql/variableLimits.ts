import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { badInput } from '../errors.js';
import { MAX_JSON_DEPTH } from '../storableText.js';
import type { GraphQLContext } from './context.js';

/** The longest list a request may carry in its variables: the largest batch any mutation takes (upsertGraph's). */
export const MAX_VARIABLE_LIST_ITEMS = 5000;

/**
 * The first place in `variables` holding a list longer than MAX_VARIABLE_LIST_ITEMS or nesting deeper than
 * MAX_JSON_DEPTH, with the reason; undefined when there is none. Iterative, so no input can exhaust the stack.
 */
export function variablesOverLimit(
  variables: Readonly<Record<string, unknown>>,
): { path: string; reason: string } | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = Object.entries(variables).map(([k, v]) => ({
    value: v,
    path: `variables.${k}`,
    depth: 0,
  }));
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, path, depth } = item;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH)
      return {
        path,
        reason: `is nested more than ${MAX_JSON_DEPTH} levels deep; at most ${MAX_JSON_DEPTH} are accepted`,
      };
    if (Array.isArray(value)) {
      if (value.length > MAX_VARIABLE_LIST_ITEMS)
        return {
          path,
          reason: `is a list of ${value.length} items; at most ${MAX_VARIABLE_LIST_ITEMS} are accepted in one request`,
        };
      value.forEach((v, i) => stack.push({ value: v, path: `${path}[${i}]`, depth: depth + 1 }));
    } else {
      for (const [k, v] of Object.entries(value)) stack.push({ value: v, path: `${path}.${k}`, depth: depth + 1 });
    }
  }
  return undefined;
}

/**
 * Refuses oversized variables with BAD_USER_INPUT before GraphQL coerces them: coercing a million-item list held the
 * event loop for seconds (every other request, health checks included, waited) before any resolver could refuse it.
 */
export function variableLimitsPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request }) {
          const over = variablesOverLimit(request.variables ?? {});
          if (!over) return;
          const error = badInput(over.path, over.reason);
          throw new GraphQLError(error.message, { originalError: error, extensions: { http: { status: 400 } } });
        },
      };
    },
  };
}
