import { AuditRecorder } from './audit/AuditRecorder.js';
import { AuditService } from './audit/AuditService.js';
import { runAs, SWEEPER_ACTOR } from './audit/actor.js';
import { SpaceService } from './auth/SpaceService.js';
import { ApiKeyService } from './auth/ApiKeyService.js';
import type { Config } from './config.js';
import { CHANGES_CHANNEL } from './db/changeFeed.js';
import { KeyedLock } from './db/KeyedLock.js';
import type { Db } from './db/Db.js';
import { migrate } from './db/migrate.js';
import { openDb } from './db/openDb.js';
import { composeWriteHooks, defaultSpaceOnly } from './documents/composeWriteHooks.js';
import { DocumentService } from './documents/DocumentService.js';
import { ExpirySweeper } from './documents/ExpirySweeper.js';
import type { EmbeddingProvider } from './embeddings/EmbeddingProvider.js';
import { createEmbeddingProvider } from './embeddings/createEmbeddingProvider.js';
import { createExtractors } from './extraction/createExtractors.js';
import { ExtractionService } from './extraction/ExtractionService.js';
import type { Extractor } from './extraction/types.js';
import { Leadership } from './leadership.js';
import type { Logger } from './logger.js';
import { SearchService } from './retrieval/SearchService.js';
import { ReadAdmission } from './retrieval/ReadAdmission.js';
import { prepareVectorIndex, readRecordedEmbedder } from './retrieval/vectorIndex.js';
import { prepareMemoryVectorIndex } from './retrieval/vectorChangeLog.js';
import { Readiness, type ComponentStatus } from './server/Readiness.js';
import { ContextEnricher } from './enrichment/ContextEnricher.js';
import { KnowledgeGapRepository } from './enrichment/KnowledgeGapRepository.js';
import { EvidenceCuration } from './extraction/EvidenceCuration.js';
import { EvidenceReader } from './extraction/EvidenceReader.js';
import { ExtractionEvidenceService } from './extraction/ExtractionEvidenceService.js';
import { CurationService } from './graph/curation/CurationService.js';
import { GraphService } from './graph/GraphService.js';
import type { GraphStore } from './graph/GraphStore.js';
import { createGraphStore } from './graph/createGraphStore.js';
import { MentionLinker } from './graph/mentions/MentionLinker.js';
import { PostgresMentionIndex } from './graph/mentions/PostgresMentionIndex.js';
import { OutboxWorker } from './graph/mentions/OutboxWorker.js';
import type { DocumentExtractor } from './extraction/jobPort.js';
import {
  createSafeFetcher,
  ExtractGraphService,
  ImportService,
  SourceService,
  type Resolver,
  type SafeFetcher,
} from '../importers/index.js';
import { SecretBox } from './shared/secretBox.js';

/** The leader's session advisory lock ("leader" in ASCII, below 2^53 and apart from KeyedLock spaces). */
const LEADER_LOCK_KEY = 0x6c6561646572;

/** Advisory-lock space of entity creates (see KeyedLock). */
const ENTITY_CREATE_LOCK_SPACE = 0x6e74;

/** The long-lived objects of one Cairn process, built once by `createServices`. */
export interface Services {
  config: Config;
  logger: Logger;
  db: Db;
  embedder: EmbeddingProvider;
  documents: DocumentService;
  search: SearchService;
  graph: GraphService;
  /** Admins' merges, undos and rejections of entities. */
  curation: CurationService;
  /** The evidence of extracted facts (Entity.evidence, Relationship.evidence). */
  evidence: ExtractionEvidenceService;
  enricher: ContextEnricher;
  /** Admission control of enrichContext and search calls (CAIRN_READ_CONCURRENCY, CAIRN_READ_QUEUE). */
  reads: ReadAdmission;
  gaps: KnowledgeGapRepository;
  /** Applies queued mention changes to Neo4j; undefined on the Postgres graph store. */
  outbox: OutboxWorker | undefined;
  sweeper: ExpirySweeper;
  /** Runs the expiry sweep and the outbox in one process among those sharing the database (`start` it to take part). */
  leadership: Leadership;
  /** URL, OpenAPI, upload and folder imports, run as recorded jobs. */
  imports: ImportService;
  /** Registered sources (git, site, spec URL, folder), their schedules and syncs. */
  sources: SourceService;
  /** extractGraph jobs and extraction counts of jobs and sources. */
  extractGraph: ExtractGraphService;
  readiness: Readiness;
  /** API keys: creation, revocation and verification. */
  apiKeys: ApiKeyService;
  /** Spaces: creation, listing, and the space each request works in. */
  spaces: SpaceService;
  /** Graph extraction from documents: its queue, background worker and state. */
  extraction: ExtractionService;
  /** The audit log: who changed what, and undo. */
  audit: AuditService;
  /** Stops background work and closes the database. */
  close(): Promise<void>;
}

/** The sweep's work, as the sweeper's own actor: expired documents, then audit entries past retention. */
function sweepsOf(documents: DocumentService, audit: AuditService): { deleteExpired(): Promise<number> } {
  return {
    deleteExpired: () =>
      runAs(SWEEPER_ACTOR, async () => {
        const deleted = await documents.deleteExpired();
        await audit.sweep();
        return deleted;
      }),
  };
}

/** Options for tools that must start on a store whose embedder differs (reindex). */
export interface CreateServicesOptions {
  /** Skip the recorded-embedder check (default false). */
  allowEmbedderMismatch?: boolean;
  /** Use this embedder instead of building one from the configuration (tests). */
  embedder?: EmbeddingProvider;
  /** Use this graph store instead of building one from the configuration (tests). */
  graphStore?: GraphStore;
  /** Use this HTTP client for imports instead of the configured safe one (tests inject a DNS resolver). */
  fetcher?: SafeFetcher;
  /** Poll for queued import jobs (default true; one-shot CLI commands run only their own jobs). */
  importQueue?: boolean;
  /** Resolves host names for the git source address check (tests inject names). */
  resolve?: Resolver;
  /** The time the source scheduler and extraction leases read (tests inject a clock). */
  now?: () => Date;
  /** Use these extractors instead of the built-in ones (tests inject deterministic ones). */
  extractors?: Extractor[];
  /** Builds what extractGraph jobs extract with (tests inject a small one; the extraction service otherwise). */
  documentExtractor?: (parts: { documents: DocumentService }) => DocumentExtractor;
}

/** Applies migrations and picks the embedder; unless told otherwise, checks it against the one the store recorded. */
async function prepareDatabase(
  db: Db,
  config: Config,
  logger: Logger,
  options: CreateServicesOptions,
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

/** Evidence of extracted facts for the API, and admins' curation of the graph. */
function provenanceParts(
  db: Db,
  graph: GraphService,
  internals: { store: GraphStore; linker: MentionLinker },
  documents: DocumentService,
) {
  return {
    evidence: new ExtractionEvidenceService(db, documents),
    curation: new CurationService(db, graph, internals, {
      reader: new EvidenceReader(db),
      curation: new EvidenceCuration(),
    }),
  };
}

/** The graph store, initialised if it answers; `init` retries until it has succeeded once. */
async function openGraphStore(db: Db, config: Config, logger: Logger, options: CreateServicesOptions) {
  const store = options.graphStore ?? createGraphStore(config, db, logger);
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

interface ImportParts {
  db: Db;
  documents: DocumentService;
  graph: GraphService;
  /** What extractGraph jobs and source syncs extract with. */
  extraction: DocumentExtractor;
}

/** Import jobs and registered sources, started (their pollers only when `importQueue` is not false). */
async function startImports(
  { db, documents, graph, extraction }: ImportParts,
  config: Config,
  logger: Logger,
  options: CreateServicesOptions,
) {
  const fetcher = options.fetcher ?? createSafeFetcher(config.import);
  const imports = new ImportService({
    db,
    documents,
    graph,
    fetcher,
    config: config.import,
    limits: config,
    logger,
    exclusive: db.kind === 'pglite',
    jobs: { ...config.import.jobs, pollMs: options.importQueue === false ? 0 : config.import.jobs.pollMs },
  });
  const sources = new SourceService({
    db,
    documents,
    graph,
    imports,
    runtime: {
      fetcher,
      importConfig: config.import,
      cacheDir: config.sources.cacheDir,
      folderRoot: config.sources.folderRoot,
      secrets: new SecretBox(config.secrets.key, config.secrets.previousKeys),
      logger,
      ...(options.resolve ? { resolve: options.resolve } : {}),
    },
    limits: config,
    logger,
    tickMs: options.importQueue === false ? 0 : config.sources.tickMs,
    llmModel: Boolean(config.extraction.llm.model),
    ...(options.now ? { now: options.now } : {}),
  });
  // Before the queue starts, so a queued extractGraph job finds what runs it.
  const extractor = options.documentExtractor?.({ documents }) ?? extraction;
  const extractGraph = new ExtractGraphService(
    { imports, sources, documents, config: config.extraction, logger },
    extractor,
  );
  await imports.start();
  sources.start();
  return { imports, sources, extractGraph };
}

/** Documents, queueing extraction in their writes when an extractor is configured, and the extraction service. */
function documentsWithExtraction(
  parts: { db: Db; graph: GraphService; linker: MentionLinker; embedder: EmbeddingProvider; recorder: AuditRecorder },
  config: Config,
  logger: Logger,
  options: CreateServicesOptions,
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
  const hook = extraction.writeHook ? composeWriteHooks(linker, defaultSpaceOnly(extraction.writeHook)) : linker;
  const documents = new DocumentService(db, embedder, config.chunking, hook, recorder.documentSink());
  extraction.attach(documents);
  return { extraction, documents };
}

/** The graph and document services, with the mention linker, the Neo4j outbox and the audit log they record to. */
function graphAndDocuments(
  parts: { db: Db; store: GraphStore; embedder: EmbeddingProvider },
  config: Config,
  logger: Logger,
  options: CreateServicesOptions,
) {
  const { db, store, embedder } = parts;
  const mirror = store.kind === 'neo4j';
  const linker = new MentionLinker(db, mirror, undefined, config.queryNamesMaxAgeMs);
  const outbox = mirror ? new OutboxWorker(linker.mentions, store, logger) : undefined;
  const recorder = new AuditRecorder(db);
  const lock = new KeyedLock(db, ENTITY_CREATE_LOCK_SPACE);
  const graph = new GraphService(store, linker, lock, outbox, recorder.graphAudit());
  const { extraction, documents } = documentsWithExtraction(
    { db, graph, linker, embedder, recorder },
    config,
    logger,
    options,
  );
  const audit = new AuditService(db, recorder, { documents, graph }, config.auditRetentionDays);
  return { linker, outbox, graph, extraction, documents, audit };
}

/** Readiness with the graph's check: the store answers (and is initialised), with the outbox backlog. */
function graphReadiness(
  readiness: Readiness,
  store: GraphStore,
  initStore: () => Promise<void>,
  linker: MentionLinker,
): Readiness {
  readiness.register('graph', async () => {
    await store.ping();
    await initStore(); // only until it has succeeded once
    const backlog = await linker.mentions.backlog();
    return { ok: true, detail: `${store.kind}; outbox backlog ${backlog}` };
  });
  return readiness;
}

/** Readiness with the read queue: always ready (a full queue refuses single calls), with its counts. */
function readinessWithReads(db: Db, embedder: EmbeddingProvider, reads: ReadAdmission): Readiness {
  const check = async (): Promise<ComponentStatus> => {
    const { running, waiting, rejected } = reads.stats;
    return { ok: true, detail: `${running} running, ${waiting} waiting, ${rejected} refused (queue full) since start` };
  };
  return new Readiness(db, embedder, { reads: check });
}

/** API keys and spaces: who may ask, and where. */
function accessServices(db: Db, graphStoreKind: GraphStore['kind'], logger: Logger) {
  const apiKeys = new ApiKeyService(db, {
    onTouchError: (err) => logger.warn({ err }, 'could not record an API key use'),
  });
  return { apiKeys, spaces: new SpaceService(db, graphStoreKind) };
}

/** Composition root: opens the database, applies migrations, picks the embedder and wires the services. */
export async function createServices(
  config: Config,
  logger: Logger,
  options: CreateServicesOptions = {},
): Promise<Services> {
  const db = await openDb(config);
  try {
    const embedder = await prepareDatabase(db, config, logger, options);
    const { store, init: initStore } = await openGraphStore(db, config, logger, options);
    const parts = graphAndDocuments({ db, store, embedder }, config, logger, options);
    const { linker, outbox, graph, extraction, documents, audit } = parts;
    const search = new SearchService(db, embedder, config.rag, config.search, {
      memoryIndexMaxChunks: config.vectorMemoryIndexMaxChunks,
      efSearch: config.hnswEfSearch,
      logger,
    });
    const gaps = new KnowledgeGapRepository(db);
    const enricher = new ContextEnricher(search, graph, gaps, config.enrich, logger);
    const sweeper = new ExpirySweeper(sweepsOf(documents, audit), config.expirySweepIntervalMs, logger);
    const leaderLock = db.sessionLock(LEADER_LOCK_KEY, () => leadership.lost());
    const leadership: Leadership = new Leadership(leaderLock, outbox ? [sweeper, outbox] : [sweeper], {
      retryMs: config.leaderRetryMs,
      logger,
    });
    const { imports, sources, extractGraph } = await startImports(
      { db, documents, graph, extraction },
      config,
      logger,
      options,
    );
    // One-shot CLI commands leave extraction to the server (a killed one-shot would hold leases until they run out).
    if (options.importQueue !== false) await extraction.start();
    const { apiKeys, spaces } = accessServices(db, store.kind, logger);
    // Other processes on this database announce changes to what this one caches; `undefined`: some may be missed.
    const changes = await db.listen(CHANGES_CHANNEL, (topic) => {
      if (topic === undefined || topic === 'names') linker.forgetNames();
      if (topic === undefined || topic === 'keys') apiKeys.forgetActive();
    });
    const reads = new ReadAdmission({ ...config.reads, logger });
    const readiness = graphReadiness(readinessWithReads(db, embedder, reads), store, initStore, linker);
    return {
      config,
      logger,
      db,
      embedder,
      documents,
      search,
      graph,
      ...provenanceParts(db, graph, { store, linker }, documents),
      enricher,
      reads,
      audit,
      gaps,
      outbox,
      sweeper,
      leadership,
      imports,
      sources,
      extractGraph,
      readiness,
      apiKeys,
      spaces,
      extraction,
      async close() {
        sources.stop();
        await imports.stop();
        await extraction.stop();
        await leadership.stop();
        await changes.close();
        await sweeper.stop();
        await outbox?.stop();
        if (!options.graphStore) await store.close(); // a store passed in belongs to the caller
        await embedder.close?.();
        await db.close();
      },
    };
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}
