import type { Db } from '../db/Db.js';
import type { DocumentService } from '../documents/DocumentService.js';
import type { DocumentWriteHook } from '../documents/DocumentWriteHook.js';
import type { GraphService } from '../graph/GraphService.js';
import type { ExtractionConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { ExtractionPipeline, forExtraction } from './ExtractionPipeline.js';
import type { ExtractionState } from './ExtractionQueueRepository.js';

export type { ExtractionState } from './ExtractionQueueRepository.js';
import { ExtractionRepository } from './ExtractionRepository.js';
import { ExtractionWorker, toResult, type WorkerTimers } from './ExtractionWorker.js';
import { ExtractionWriteHook } from './ExtractionWriteHook.js';
import type { DocumentExtractor, ExtractionSummary } from './jobPort.js';
import { estimateExtraction } from './llm/index.js';
import { extractionCacheKey } from './runExtractors.js';
import type {
  DocumentExtractionOutcome,
  ExtractionEstimate,
  ExtractionStatusCounts,
  ExtractOptions,
  Extractor,
  ExtractorName,
} from './types.js';

/** What the extraction service is built from. */
export interface ExtractionServiceDeps {
  db: Db;
  graph: GraphService;
  config: ExtractionConfig;
  extractors: readonly Extractor[];
  logger: Logger;
  /** True when this process owns the database alone (PGlite). */
  exclusive: boolean;
  now?: () => Date;
  timers?: WorkerTimers;
}

/**
 * Extraction as the API layer sees it: the queue (enqueue, state, counts), the background worker, and extracting a
 * document now. Documents are attached after the DocumentService is built (it takes this service's write hook).
 */
/** Documents read at once while estimating a dry run. */
const ESTIMATE_BATCH = 200;

export class ExtractionService implements DocumentExtractor {
  readonly #repository: ExtractionRepository;
  readonly #writeHook: DocumentWriteHook | undefined;
  private pipeline: ExtractionPipeline | undefined;
  private worker: ExtractionWorker | undefined;
  private readonly configured: ExtractorName[];
  private documents: DocumentService | undefined;

  constructor(private readonly deps: ExtractionServiceDeps) {
    this.#repository = new ExtractionRepository(deps.db);
    const available = new Set(deps.extractors.map((e) => e.name));
    this.configured = deps.config.extractors.filter((name) => available.has(name));
    this.#writeHook =
      this.configured.length > 0 ? new ExtractionWriteHook(this.#repository.queue, () => this.nudge()) : undefined;
  }

  /** True when documents written are queued for extraction. */
  get enabled(): boolean {
    return this.#writeHook !== undefined;
  }

  /** The document write hook that queues extraction; undefined when no configured extractor is available. */
  documentWriteHook(): DocumentWriteHook | undefined {
    return this.#writeHook;
  }

  /** Connects the documents (built with `documentWriteHook()`) and builds the pipeline and worker. */
  attach(documents: DocumentService): void {
    const { config } = this.deps;
    this.documents = documents;
    this.pipeline = new ExtractionPipeline({
      db: this.deps.db,
      documents,
      graph: this.deps.graph,
      repository: this.#repository,
      extractors: this.deps.extractors,
      configured: this.configured,
      rules: config,
    });
    this.worker = new ExtractionWorker(
      this.#repository.queue,
      this.pipeline,
      {
        concurrency: config.concurrency,
        batchDocuments: config.batchDocuments,
        pollMs: config.pollMs,
        leaseMs: config.leaseMs,
        maxAttempts: config.maxAttempts,
        exclusive: this.deps.exclusive,
        ...(this.deps.now ? { now: this.deps.now } : {}),
        ...(this.deps.timers ? { timers: this.deps.timers } : {}),
      },
      this.deps.logger,
      () => this.deps.graph.backfillMentions(),
    );
  }

  /** Starts the background worker (when extraction is on). */
  async start(): Promise<void> {
    if (this.enabled) await this.worker?.start();
  }

  /** Stops the worker, letting the documents in hand finish or go back to the queue. */
  async stop(): Promise<void> {
    await this.worker?.stop();
  }

  /** Queues documents for extraction, e.g. for an extractGraph job with chosen extractors. */
  async enqueue(
    documentIds: readonly string[],
    options: { jobId?: string; extractors?: readonly ExtractorName[] } = {},
  ): Promise<void> {
    await this.#repository.queue.enqueue(this.deps.db, documentIds, options);
    this.nudge();
  }

  /** Documents by extraction state. */
  statusCounts(): Promise<ExtractionStatusCounts> {
    return this.#repository.queue.statusCounts();
  }

  /** Documents' extraction states by id (documents never queued are absent). */
  documentStates(documentIds: readonly string[]): Promise<Map<string, ExtractionState>> {
    return this.#repository.queue.states(documentIds);
  }

  /** One document's extraction state (undefined: never queued). */
  documentState(documentId: string): Promise<ExtractionState | undefined> {
    return this.#repository.queue.state(documentId);
  }

  /** Lets the worker look for work now. */
  nudge(): void {
    this.worker?.nudge();
  }

  /** Extracts one document now, outside the queue (an extractGraph job). */
  async extractNow(documentId: string, options: ExtractOptions = {}): Promise<DocumentExtractionOutcome> {
    if (!this.pipeline) throw new Error('ExtractionService.attach was not called');
    const queue = this.#repository.queue;
    const token = await queue.requestToken(documentId);
    const outcome = await this.pipeline.extract(documentId, options);
    // Its state and counts are the document's, whoever ran it: stats and the job's summary read them.
    if (outcome.status !== 'SKIPPED') await queue.recordOutcome(documentId, token, toResult(outcome));
    return outcome;
  }

  /** Extraction state, entities and relationships summed over these documents (an import job's, a source's sync). */
  summary(documentIds: readonly string[]): Promise<ExtractionSummary> {
    return this.#repository.queue.summary(documentIds);
  }

  /**
   * What extracting these documents would send to the model, before anything is sent (extractGraph's dryRun): only the
   * LLM extractor costs tokens, and only for chunks its cache lacks.
   */
  async estimate(documentIds: readonly string[], extractors: readonly ExtractorName[]): Promise<ExtractionEstimate> {
    const documents = this.documents;
    if (!documents) throw new Error('ExtractionService.attach was not called');
    const llm = extractors.includes('llm') ? this.deps.extractors.find((e) => e.name === 'llm') : undefined;
    const chunks: { documentId: string; title: string; content: string }[] = [];
    let cached = 0;
    let total = 0;
    for (let at = 0; at < documentIds.length; at += ESTIMATE_BATCH) {
      const batch = documentIds.slice(at, at + ESTIMATE_BATCH);
      if (!llm) {
        for (const n of (await documents.chunkCounts(batch)).values()) total += n;
        continue;
      }
      const loaded = (await documents.manyWithChunks(batch)).flatMap(({ document, chunks: own }) =>
        own.map((chunk) => ({ document, chunk, key: extractionCacheKey(llm, forExtraction(document), chunk) })),
      );
      const hits = await this.#repository.cache.getMany(loaded.map((l) => l.key));
      for (const { document, chunk, key } of loaded) {
        if (hits.has(key)) cached++;
        else chunks.push({ documentId: document.id, title: document.title, content: chunk.content });
      }
    }
    if (llm) return estimateExtraction(chunks, this.deps.config.llm, cached, documentIds.length);
    return {
      documents: documentIds.length,
      chunks: total,
      cachedChunks: 0,
      estimatedInputTokens: 0,
      estimatedOutputTokens: 0,
      estimatedCostUsd: null,
    };
  }

  /** Extracts everything queued that this instance may take, and resolves when done (CLI one-shots and tests). */
  async drain(): Promise<void> {
    await this.worker?.drain();
  }
}
