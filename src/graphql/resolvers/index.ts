import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { Resolvers } from '../generated/types.js';
import { apiKeyResolvers } from './apiKeys.js';
import { auditResolvers } from './audit.js';
import { documentResolvers } from './documents.js';
import { enrichmentResolvers } from './enrichment.js';
import { curationResolvers } from './curation.js';
import { extractGraphResolvers } from './extractGraph.js';
import { graphResolvers } from './graph.js';
import { importResolvers } from './imports.js';
import { searchResolvers } from './search.js';
import { sourceResolvers } from './sources.js';
import { subscriptionResolvers } from './subscriptions.js';

/** Every resolver, merged by type. */
export const resolvers: Resolvers = {
  DateTime: DateTimeResolver,
  JSON: JSONResolver,
  Query: {
    ...documentResolvers.Query,
    ...searchResolvers.Query,
    ...graphResolvers.Query,
    ...enrichmentResolvers.Query,
    ...importResolvers.Query,
    ...sourceResolvers.Query,
    ...apiKeyResolvers.Query,
    ...auditResolvers.Query,
  },
  Mutation: {
    ...documentResolvers.Mutation,
    ...graphResolvers.Mutation,
    ...curationResolvers.Mutation,
    ...importResolvers.Mutation,
    ...sourceResolvers.Mutation,
    ...extractGraphResolvers.Mutation,
    ...apiKeyResolvers.Mutation,
    ...auditResolvers.Mutation,
    ...enrichmentResolvers.Mutation,
  },
  Subscription: subscriptionResolvers.Subscription,
  ImportJob: { ...importResolvers.ImportJob, ...extractGraphResolvers.ImportJob },
  Source: { ...sourceResolvers.Source, ...extractGraphResolvers.Source },
  ImportResult: importResolvers.ImportResult,
  Entity: graphResolvers.Entity,
  EnrichedChunk: enrichmentResolvers.EnrichedChunk,
  Relationship: graphResolvers.Relationship,
  EntityMerge: curationResolvers.EntityMerge,
  Document: documentResolvers.Document,
  DocumentExtraction: documentResolvers.DocumentExtraction,
  Chunk: documentResolvers.Chunk,
  ApiKey: apiKeyResolvers.ApiKey,
};
