import type {
  DocumentExtractionOutcome,
  ExtractionEstimate,
  ExtractionStatusCounts,
  ExtractOptions,
  ExtractorName,
} from './types.js';

/** Extraction state and results summed over some documents (an import job's, a source's last sync). */
export interface ExtractionSummary extends ExtractionStatusCounts {
  /** Entities and relationships these documents support. */
  entities: number;
  relationships: number;
}

/**
 * What extractGraph jobs, sources and the CLI need from extraction (ExtractionService provides it). Kept this small so
 * import jobs depend on nothing else of the extraction module.
 */
export interface DocumentExtractor {
  /** Extracts one document now, spending at most what `options.budget` has left on the model. */
  extractNow(documentId: string, options: ExtractOptions): Promise<DocumentExtractionOutcome>;
  /** What extracting these documents with these extractors would send, before anything is sent (dryRun). */
  estimate(documentIds: readonly string[], extractors: readonly ExtractorName[]): Promise<ExtractionEstimate>;
  /** Extraction state, entities and relationships summed over these documents (unknown ids count as nothing). */
  summary(documentIds: readonly string[]): Promise<ExtractionSummary>;
  /** Queues these documents for the background worker, with the extractors to use (undefined: the configured ones). */
  enqueue(
    documentIds: readonly string[],
    options: { jobId?: string; extractors?: readonly ExtractorName[] },
  ): Promise<void>;
}
