import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { Resolvers } from '../generated/types.js';
import { apiKeyResolvers } from './apiKeys.js';
import { documentResolvers } from './documents.js';
import { enrichmentResolvers } from './enrichment.js';
import { graphResolvers } from './graph.js';
import { importResolvers } from './imports.js';
import { searchResolvers } from './search.js';

/** Every resolver, merged by type. */
export const resolvers: Resolvers = {
  DateTime: DateTimeResolver,
  JSON: JSONResolver,
  Query: { ...documentResolvers.Query, ...searchResolvers.Query, ...graphResolvers.Query, ...enrichmentResolvers.Query, ...importResolvers.Query, ...apiKeyResolvers.Query },
  Mutation: { ...documentResolvers.Mutation, ...graphResolvers.Mutation, ...importResolvers.Mutation, ...apiKeyResolvers.Mutation },
  ImportJob: importResolvers.ImportJob,
  ImportResult: importResolvers.ImportResult,
  Entity: graphResolvers.Entity,
  EnrichedChunk: enrichmentResolvers.EnrichedChunk,
  Relationship: graphResolvers.Relationship,
  Document: documentResolvers.Document,
  Chunk: documentResolvers.Chunk,
  ApiKey: apiKeyResolvers.ApiKey,
};
