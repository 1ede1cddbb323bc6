import {
  documentIdsOf,
  extractionDocumentsOf,
  type ImportJobRecord,
  type SourceRecord,
} from '../../../importers/index.js';
import type { ExtractorName } from '../../extraction/types.js';
import type { ExtractionSummary } from '../../extraction/jobPort.js';
import type { GraphQLContext } from '../context.js';
import type { Extractor, Resolvers } from '../generated/types.js';
import { toFilterSpec } from '../inputs.js';

/** Extractor names as the API spells them. */
export const toExtractorEnum = (names: readonly ExtractorName[]): Extractor[] =>
  names.map((n) => n.toUpperCase() as Extractor);

/** Extractor names as the services take them. */
export const fromExtractorEnum = (names: readonly Extractor[] | null | undefined): string[] | null | undefined =>
  names === null || names === undefined ? names : names.map((n) => n.toLowerCase());

/** The documents' extraction summary, or null where no extractor is wired in. */
const summaryOf = (ids: readonly string[], { services }: GraphQLContext): Promise<ExtractionSummary | null> =>
  services.extractGraph.summary(ids);

/** extractGraph, and the extraction fields of import jobs and sources. */
export const extractGraphResolvers: Resolvers = {
  Mutation: {
    extractGraph: (_, { input }, { services }) =>
      services.extractGraph.submit({
        documentIds: input.documentIds,
        filter:
          input.filter === undefined || input.filter === null
            ? input.filter
            : toFilterSpec(input.filter, 'input.filter'),
        extractors: fromExtractorEnum(input.extractors),
        dryRun: input.dryRun,
      }),
  },
  ImportJob: {
    extraction: (job: ImportJobRecord, _, context) => summaryOf(extractionDocumentsOf(job), context),
    extractionTokens: (job: ImportJobRecord) => job.extraction.tokens,
    extractionEstimate: (job: ImportJobRecord) => job.extraction.estimate,
  },
  Source: {
    extractors: (source: SourceRecord) => (source.extractors ? toExtractorEnum(source.extractors) : null),
    extraction: async (source: SourceRecord, _, context) => {
      if (!source.lastJobId || !context.services.extractGraph.extracts()) return null;
      const job = await context.services.imports.job(source.lastJobId);
      return summaryOf(job ? documentIdsOf(job) : [], context);
    },
  },
};
