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

/**
 * Lets a GraphQL query (not a mutation or subscription) read the spaces its space reads (see SpaceReads): once its
 * operation is known to write nothing, before any resolver runs. Mutations read and write their own space only.
 */
export function spaceReadsPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, contextValue }) {
          if (operation?.operation === 'query') await contextValue.services.spaceReads.widen();
        },
      };
    },
  };
}
