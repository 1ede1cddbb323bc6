import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { Resolvers } from '../generated/types.js';
import { documentResolvers } from './documents.js';
import { searchResolvers } from './search.js';

/** Every resolver, merged by type. */
export const resolvers: Resolvers = {
  DateTime: DateTimeResolver,
  JSON: JSONResolver,
  Query: { ...documentResolvers.Query, ...searchResolvers.Query },
  Mutation: { ...documentResolvers.Mutation },
  Document: documentResolvers.Document,
  Chunk: documentResolvers.Chunk,
};
