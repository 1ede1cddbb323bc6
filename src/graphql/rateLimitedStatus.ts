import type { ApolloServerPlugin } from '@apollo/server';
import { ErrorCode } from '../errors.js';
import type { GraphQLContext } from './context.js';

/** The longest Retry-After among the response's RATE_LIMITED errors, or undefined when it has none. */
function retryAfterOf(errors: readonly { extensions?: Record<string, unknown> }[]): number | undefined {
  let longest: number | undefined;
  for (const e of errors) {
    if (e.extensions?.code !== ErrorCode.RATE_LIMITED) continue;
    const seconds = e.extensions.retryAfterSeconds;
    const s = typeof seconds === 'number' && Number.isFinite(seconds) ? Math.max(1, Math.ceil(seconds)) : 1;
    longest = Math.max(longest ?? 0, s);
  }
  return longest;
}

/**
 * Answers a GraphQL response that a resolver refused with RATE_LIMITED (e.g. the read queue is full) with HTTP 429
 * and Retry-After, as the rate limit in front of GraphQL does, so that HTTP clients and proxies back off on their own.
 */
export function rateLimitedStatusPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== 'single') return;
          const seconds = retryAfterOf(response.body.singleResult.errors ?? []);
          if (seconds === undefined) return;
          response.http.status = 429;
          response.http.headers.set('retry-after', String(seconds));
        },
      };
    },
  };
}
