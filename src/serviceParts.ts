import { AuditRecorder } from './audit/AuditRecorder.js';
import { AuditService } from './audit/AuditService.js';
import { runAs, SWEEPER_ACTOR } from './audit/actor.js';
import { SpaceService } from './auth/SpaceService.js';
import { SpaceReads } from './spaces/SpaceReads.js';
import { ApiKeyService } from './auth/ApiKeyService.js';
import type { Config } from './config.js';
import { KeyedLock } from './db/KeyedLock.js';
import type { RecheckTimers } from './db/BackgroundRecheck.js';
import type { Db, StatementObserver } from './db/Db.js';
import { migrate } from './db/migrate.js';
import { composeWriteHooks } from './documents/composeWriteHooks.js';
import { DocumentService } from './documents/DocumentService.js';
import type { EmbeddingProvider } from './embeddings/EmbeddingProvider.js';
import { createEmbeddingProvider } from './embeddings/createEmbeddingProvider.js';
import { createExtractors } from './extraction/createExtractors.js';
import { ExtractionService } from './extraction/ExtractionService.js';
import type { Extractor } from './extraction/types.js';
import type { Logger } from './logger.js';
import { prepareVectorIndex, readRecordedEmbedder } from './retrieval/vectorIndex.js';
import { prepareMemoryVectorIndex } from './retrieval/vectorChangeLog.js';
import { Readiness } from './server/Readiness.js';
import { EvidenceCuration } from './extraction/EvidenceCuration.js';
import { EvidenceReader } from './extraction/EvidenceReader.js';
import { ExtractionEvidenceService } from './extraction/ExtractionEvidenceService.js';
import { CurationService } from './graph/curation/CurationService.js';
import { GraphService } from './graph/GraphService.js';
import type { GraphStore } from './graph/GraphStore.js';
import { createGraphStore } from './graph/createGraphStore.js';
import { ChunkEntityReader } from './graph/mentions/ChunkEntityReader.js';
import { EntityNameRepository } from './graph/mentions/EntityNameRepository.js';
import { MentionLinker } from './graph/mentions/MentionLinker.js';
import { MentionRepository } from './graph/mentions/MentionRepository.js';
import { PostgresMentionIndex } from './graph/mentions/PostgresMentionIndex.js';
import { OutboxWorker } from './graph/mentions/OutboxWorker.js';
import { OutboxRepository } from './graph/mentions/OutboxRepository.js';

// The core services' construction, for the composition root (createServices in services.ts), which adds importers.

/** What the core parts take of CreateServicesOptions (the rest concerns importers, built in services.ts). */
export interface CoreOptions {
  /** Skip the recorded-embedder check (default false). */
  allowEmbedderMismatch?: boolean;
  /** Use this embedder instead of building one from the configuration (tests). */
  embedder?: EmbeddingProvider;
  /** Use this graph store instead of building one from the configuration (tests). */
  graphStore?: GraphStore;
  /** The time the source scheduler and extraction leases read (tests inject a clock). */
  now?: () => Date;
  /** Use these extractors instead of the built-in ones (tests inject deterministic ones). */
  extractors?: Extractor[];
  /** Told of every statement the services' database sends (tracing; tests count one call's statements). */
  onStatement?: StatementObserver;
  /** The timers of the caches' background rechecks (tests inject their own and fire them). */
  recheckTimers?: RecheckTimers;
}

/** Advisory-lock space of entity creates (see KeyedLock). */
const ENTITY_CREATE_LOCK_SPACE = 0x6e74;

/** The sweep's work, as the sweeper's own actor: expired documents, then audit entries past retention. */
export function sweepsOf(documents: DocumentService, audit: AuditService): { deleteExpired(): Promise<number> } {
  return {
    deleteExpired: () =>
      runAs(SWEEPER_ACTOR, async () => {
        const deleted = await documents.deleteExpired();
        await audit.sweep();
        return deleted;
      }),
  };
}

/** Applies migrations and picks the embedder; unless told otherwise, checks it against the one the store recorded. */
export async function prepareDatabase(
  db: Db,
  config: Config,
  logger: Logger,
  options: CoreOptions,
): Promise<EmbeddingProvider> {
  const applied = await migrate(db);
  if (applied.length > 0) logger.info({ applied }, 'database migrations applied');
  const recorded = await readRecordedEmbedder(db);
  const embedder = options.embedder ?? (await createEmbeddingProvider(config.embedding, logger, recorded));
  // A model whose dimension is only known after a probe must answer before the index can be checked.
  if (embedder.dimensions <= 0) await embedder.ready();
  if (!options.allowEmbedderMismatch) await prepareVectorIndex(db, embedder.info, logger);
  await prepareMemoryVectorIndex(db, config.vectorMemoryIndexMaxChunks > 0);
  return embedder;
}

/** Evidence of extracted facts for the API. */
export function provenanceParts(db: Db, documents: DocumentService) {
  return { evidence: new ExtractionEvidenceService(db, documents) };
}

/** The graph store, initialised if it answers; `init` retries until it has succeeded once. */
export async function openGraphStore(db: Db, config: Config, logger: Logger, options: CoreOptions) {
  const store = options.graphStore ?? (await createGraphStore(config, db, logger));
  store.useMentionIndex?.(new PostgresMentionIndex(db));
  // Neo4j may be down at start: documents must still work, so its constraints are retried by readiness.
  let storeReady = false;
  const init = async () => {
    if (storeReady) return;
    await store.init();
    storeReady = true;
  };
  await init().catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'graph store not initialised yet'));
  return { store, init };
}

/** Documents, queueing extraction in their writes when an extractor is configured, and the extraction service. */
export function documentsWithExtraction(
  parts: { db: Db; graph: GraphService; linker: MentionLinker; embedder: EmbeddingProvider; recorder: AuditRecorder },
  config: Config,
  logger: Logger,
  options: CoreOptions,
) {
  const { db, graph, linker, embedder, recorder } = parts;
  const extraction = new ExtractionService({
    db,
    graph,
    config: config.extraction,
    extractors: options.extractors ?? createExtractors(config.extraction, { logger }),
    logger,
    exclusive: db.kind === 'pglite',
    ...(options.now ? { now: options.now } : {}),
  });
  const queueing = extraction.documentWriteHook();
  const hook = queueing ? composeWriteHooks(linker, queueing) : linker;
  const documents = new DocumentService(db, embedder, config.chunking, config, hook, recorder.documentSink());
  extraction.attach(documents);
  return { extraction, documents };
}

/** The graph and document services, with the mention linker, the Neo4j outbox and the audit log they record to. */
export function graphAndDocuments(
  parts: { db: Db; store: GraphStore; embedder: EmbeddingProvider },
  config: Config,
  logger: Logger,
  options: CoreOptions,
) {
  const { db, store, embedder } = parts;
  const mirror = store.kind === 'neo4j';
  const linker = new MentionLinker(db, mirror);
  const outbox = mirror ? new OutboxWorker(new OutboxRepository(db), store, logger) : undefined;
  const recorder = new AuditRecorder(db);
  const lock = new KeyedLock(db, ENTITY_CREATE_LOCK_SPACE);
  const reads = {
    mentions: new MentionRepository(db),
    names: new EntityNameRepository(db),
    chunkEntities: new ChunkEntityReader(db),
  };
  const graph = new GraphService(store, linker, reads, lock, outbox, recorder.graphAudit());
  const { extraction, documents } = documentsWithExtraction(
    { db, graph, linker, embedder, recorder },
    config,
    logger,
    options,
  );
  const curation = new CurationService(
    db,
    graph,
    { store, linker },
    { reader: new EvidenceReader(db), curation: new EvidenceCuration() },
    recorder.curationAudit(),
  );
  const audit = new AuditService(db, recorder, { documents, graph, curation }, config.auditRetentionDays);
  return { linker, outbox, graph, extraction, documents, audit, curation };
}

/** Readiness with the graph's check: the store answers (and is initialised), with the outbox backlog. */
export function graphReadiness(
  readiness: Readiness,
  store: GraphStore,
  initStore: () => Promise<void>,
  linker: MentionLinker,
): Readiness {
  readiness.register('graph', async () => {
    await store.ping();
    await initStore(); // only until it has succeeded once
    const backlog = await linker.outboxBacklog();
    return { ok: true, detail: `${store.kind}; outbox backlog ${backlog}` };
  });
  return readiness;
}

/** API keys and spaces: who may ask, and where. */
export function accessServices(db: Db, logger: Logger) {
  const apiKeys = new ApiKeyService(db, {
    onTouchError: (err) => logger.warn({ err }, 'could not record an API key use'),
  });
  const spaces = new SpaceService(db);
  return { apiKeys, spaces, spaceReads: new SpaceReads(db, spaces) };
}
