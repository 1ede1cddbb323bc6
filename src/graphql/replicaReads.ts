import type { ApolloServerPlugin } from '@apollo/server';
import { allowReplicaReads } from '../db/readRoute.js';
import type { GraphQLContext } from './context.js';

/**
 * Lets a GraphQL query (not a mutation or subscription) read from a replica: once its operation is known, its reads
 * may go to one. A mutation's reads stay on the primary, beside its writes.
 */
export function replicaReadsPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation }) {
          if (operation?.operation === 'query') allowReplicaReads();
        },
      };
    },
  };
}
