import { AuditService } from './audit/AuditService.js';
import { SpaceService } from './auth/SpaceService.js';
import { ApiKeyService } from './auth/ApiKeyService.js';
import type { Config } from './config.js';
import { startCacheRechecks } from './cacheRechecks.js';
import type { Db } from './db/Db.js';
import { openDb } from './db/openDb.js';
import { replicaStatus } from './server/replicaStatus.js';
import type { ReplicaSet } from './db/ReplicaSet.js';
import { replicasOf } from './db/replicatedDb.js';
import { DocumentService } from './documents/DocumentService.js';
import { ExpirySweeper } from './documents/ExpirySweeper.js';
import type { EmbeddingProvider } from './embeddings/EmbeddingProvider.js';
import { ExtractionService } from './extraction/ExtractionService.js';
import { Leadership } from './leadership.js';
import type { Logger } from './logger.js';
import { SearchService } from './retrieval/SearchService.js';
import { withBulkLoad } from './retrieval/BulkLoad.js';
import { ensureHnswIndex } from './retrieval/vectorIndex.js';
import type { VectorIndexing } from './importerPort.js';
import { ReadAdmission } from './retrieval/ReadAdmission.js';
import { Readiness, type ComponentStatus } from './server/Readiness.js';
import { ContextEnricher } from './enrichment/ContextEnricher.js';
import { KnowledgeGapRepository } from './enrichment/KnowledgeGapRepository.js';
import { KnowledgeGapService } from './enrichment/KnowledgeGapService.js';
import { ExtractionEvidenceService } from './extraction/ExtractionEvidenceService.js';
import { CurationService } from './graph/curation/CurationService.js';
import { GraphService } from './graph/GraphService.js';
import { OutboxWorker } from './graph/mentions/OutboxWorker.js';
import type { DocumentExtractor } from './extraction/jobPort.js';
import {
  createSafeFetcher,
  ExtractGraphService,
  ImportService,
  SourceService,
  type Resolver,
  type SafeFetcher,
  purgeImportsOfSpace,
} from '../importers/index.js';
import { SecretBox } from './shared/secretBox.js';
import type { SpaceDeletionService } from './spaces/SpaceDeletionService.js';
import type { SpaceReads } from './spaces/SpaceReads.js';
import { spaceDeletion, type SpaceDeletionParts } from './spaces/spaceDeletionParts.js';
import {
  accessServices,
  graphAndDocuments,
  graphReadiness,
  openGraphStore,
  prepareDatabase,
  provenanceParts,
  sweepsOf,
  type CoreOptions,
} from './serviceParts.js';

/** The leader's session advisory lock ("leader" in ASCII, below 2^53 and apart from KeyedLock spaces). */
const LEADER_LOCK_KEY = 0x6c6561646572;

/** The long-lived objects of one Cairn process, built once by `createServices`. */
export interface Services {
  config: Config;
  logger: Logger;
  db: Db;
  /** The read replicas and their health; undefined without `CAIRN_DATABASE_REPLICA_URLS`. */
  replicas: ReplicaSet | undefined;
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
  /** Knowledge gaps: questions enrichContext answered poorly, their listing and reports. */
  gaps: KnowledgeGapService;
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
  /** Which spaces each space reads besides itself (declared by admins). */
  spaceReads: SpaceReads;
  /** Graph extraction from documents: its queue, background worker and state. */
  extraction: ExtractionService;
  /** The audit log: who changed what, and undo. */
  audit: AuditService;
  /** Deleting spaces, as durable jobs. */
  spaceDeletions: SpaceDeletionService;
  /** Stops background work and closes the database. */
  close(): Promise<void>;
}

/** Options for tools that must start on a store whose embedder differs (reindex). */
export interface CreateServicesOptions extends CoreOptions {
  /** Use this HTTP client for imports instead of the configured safe one (tests inject a DNS resolver). */
  fetcher?: SafeFetcher;
  /** Poll for queued import jobs (default true; one-shot CLI commands run only their own jobs). */
  importQueue?: boolean;
  /** Resolves host names for the git source address check (tests inject names). */
  resolve?: Resolver;
  /** Builds what extractGraph jobs extract with (tests inject a small one; the extraction service otherwise). */
  documentExtractor?: (parts: { documents: DocumentService }) => DocumentExtractor;
}

interface ImportParts {
  db: Db;
  documents: DocumentService;
  graph: GraphService;
  /** What extractGraph jobs and source syncs extract with. */
  extraction: DocumentExtractor;
}

/** The vector index's upkeep during import jobs, on this database. */
function vectorIndexing(db: Db): VectorIndexing {
  return {
    bulkLoad: (load, options) => withBulkLoad(db, load, options),
    ensureIndex: (logger) => ensureHnswIndex(db, logger),
  };
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
    indexing: vectorIndexing(db),
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

/** Search, enrichContext and the knowledge gaps it records. */
function retrievalParts(
  { db, embedder, graph }: { db: Db; embedder: EmbeddingProvider; graph: GraphService },
  config: Config,
  logger: Logger,
) {
  const search = new SearchService(db, embedder, config.rag, config.search, {
    memoryIndexMaxChunks: config.vectorMemoryIndexMaxChunks,
    efSearch: config.hnswEfSearch,
    logger,
  });
  const gapRows = new KnowledgeGapRepository(db, (err) => logger.warn({ err }, 'could not record knowledge gaps'));
  const gaps = new KnowledgeGapService(gapRows, search, config.enrich, logger);
  const enricher = new ContextEnricher(
    search,
    graph,
    gaps,
    { ...config.enrich, topK: config.rag.topK, maxTopK: config.rag.maxTopK },
    logger,
  );
  return { search, gaps, gapRows, enricher };
}

/** Readiness with the read queue and the replicas: always ready (a full queue refuses single calls), with counts. */
function readinessWithReads(db: Db, embedder: EmbeddingProvider, reads: ReadAdmission): Readiness {
  const replicas = replicasOf(db);
  const check = async (): Promise<ComponentStatus> => {
    const { running, waiting, rejected } = reads.stats;
    return { ok: true, detail: `${running} running, ${waiting} waiting, ${rejected} refused (queue full) since start` };
  };
  return new Readiness(db, embedder, {
    reads: check,
    ...(replicas ? { replicas: async () => replicaStatus(replicas) } : {}),
  });
}

/** Space deletion with the importers' step, resuming deletions a stopped process left (unless one-shot). */
async function startSpaceDeletions(
  parts: SpaceDeletionParts,
  config: Config,
  logger: Logger,
  options: CreateServicesOptions,
): Promise<SpaceDeletionService> {
  const polls = options.importQueue !== false;
  const imports = { what: 'imports', run: (space: string) => purgeImportsOfSpace(parts.db, space) };
  const deletions = spaceDeletion(parts, [imports], config, logger, polls);
  if (polls) await deletions.start();
  return deletions;
}

/** Composition root: opens the database, applies migrations, picks the embedder and wires the services. */
export async function createServices(
  config: Config,
  logger: Logger,
  options: CreateServicesOptions = {},
): Promise<Services> {
  const db = await openDb(config, { logger, now: options.now, onStatement: options.onStatement });
  try {
    const embedder = await prepareDatabase(db, config, logger, options);
    const { store, init: initStore } = await openGraphStore(db, config, logger, options);
    const parts = graphAndDocuments({ db, store, embedder }, config, logger, options);
    const { linker, outbox, graph, extraction, documents, audit, curation } = parts;
    const { search, gaps, gapRows, enricher } = retrievalParts({ db, embedder, graph }, config, logger);
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
    const access = accessServices(db, logger);
    const deletionParts = { db, ...access, documents, graph, gapRows, audit, curation };
    const spaceDeletions = await startSpaceDeletions(deletionParts, config, logger, options);
    const changes = await startCacheRechecks({ db, linker, ...access }, config, logger, options.recheckTimers);
    const reads = new ReadAdmission({ ...config.reads, logger });
    const readiness = graphReadiness(readinessWithReads(db, embedder, reads), store, initStore, linker);
    return {
      config,
      logger,
      db,
      replicas: replicasOf(db),
      embedder,
      documents,
      search,
      graph,
      ...provenanceParts(db, documents),
      curation,
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
      ...access,
      extraction,
      spaceDeletions,
      async close() {
        await spaceDeletions.stop();
        await sources.stop();
        await imports.stop();
        await extraction.stop();
        await leadership.stop();
        await changes.close();
        await sweeper.stop();
        await outbox?.stop();
        if (!options.graphStore) await store.close(); // a store passed in belongs to the caller
        await embedder.close?.();
        await gapRows.close();
        await access.apiKeys.settle();
        await db.close();
      },
    };
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}
