import { randomUUID } from 'node:crypto';
import {
  KeyedLock,
  type Db,
  type DocumentExtractor,
  type ImportDocuments,
  type ImportGraph,
  type InputLimits,
  type Logger,
} from '../../src/importerPort.js';
import { AppError, ErrorCode, notFound } from '../../src/errors.js';
import type { SourceSyncExecutor } from '../ImportJobExecutor.js';
import type { ImportService } from '../ImportService.js';
import type { ImportJobRecord } from '../jobs/types.js';
import type { SourceRuntime } from './kinds/driver.js';
import { driverFor, refuseBlockedAddresses } from './sourceDrivers.js';
import { SourceScheduler } from './SourceScheduler.js';
import { nextRunAfter } from './schedule.js';
import { SourceRepository } from './SourceRepository.js';
import { resolveSshSettings } from './sshSettings.js';
import { SourceSyncJob } from './SourceSyncJob.js';
import { SourceSyncer } from './SourceSyncer.js';
import type { SourceRecord } from './types.js';
import { validateNewSource, validateSourcePatch, type RawSourceInput } from './validateSource.js';

/** What the source service is built from. */
export interface SourceServiceDeps {
  db: Db;
  documents: ImportDocuments;
  graph: ImportGraph;
  imports: ImportService;
  runtime: SourceRuntime;
  limits: InputLimits;
  logger: Logger;
  /** How often due schedules are looked for; 0 leaves it to `tick()` calls. */
  tickMs: number;
  /** CAIRN_EXTRACTION_LLM_MODEL is set: sources may choose the `llm` extractor. */
  llmModel?: boolean;
  /** The time (tests inject one). */
  now?: () => Date;
  /** A signal that fires once a sync has run for `ms` (tests inject one they fire themselves). */
  deadline?: (ms: number) => { signal: AbortSignal; dispose(): void };
}

const OPEN_JOB = new Set(['QUEUED', 'RUNNING']);
/** Advisory-lock space of a source's "Sync now" (see KeyedLock). */
const SOURCE_SYNC_LOCK_SPACE = 0x5359;

/**
 * Registered sources: their settings and "Sync now" (each sync runs as an import job; SourceSyncJob runs it). Due
 * schedules are SourceScheduler's.
 */
export class SourceService {
  private readonly repository: SourceRepository;
  private readonly syncer: SourceSyncer;
  private readonly syncJob: SourceSyncJob;
  private readonly now: () => Date;
  private readonly scheduler: SourceScheduler;
  /** Serialises a source's check-and-record of a sync across instances. */
  private readonly syncLock: KeyedLock;
  /** Queues a sync's documents with the source's extractors (set by the extractGraph service). */
  private extractor: Pick<DocumentExtractor, 'enqueue'> | undefined;

  constructor(private readonly deps: SourceServiceDeps) {
    this.repository = new SourceRepository(deps.db);
    this.syncLock = new KeyedLock(deps.db, SOURCE_SYNC_LOCK_SPACE);
    this.now = deps.now ?? (() => new Date());
    this.syncer = new SourceSyncer({
      repository: this.repository,
      documents: deps.documents,
      writer: { documents: deps.documents, graph: deps.graph, limits: deps.limits },
      specGuard: { write: (plan, write) => deps.imports.writeSpec(plan, write) },
      runtime: deps.runtime,
      drivers: (source) => driverFor(source, this.deps.runtime, this.repository),
      logger: deps.logger,
    });
    this.syncJob = new SourceSyncJob(this.repository, this.syncer, this.now, deps, () => this.extractor);
    const executor: SourceSyncExecutor = (job, request, context) => this.syncJob.run(job, request.sourceId, context);
    deps.imports.setSourceSyncExecutor(executor);
    this.scheduler = new SourceScheduler({
      repository: this.repository,
      sync: (sourceId) => this.sync(sourceId),
      openJob: (source) => this.openJob(source),
      now: this.now,
      logger: deps.logger,
      tickMs: deps.tickMs,
    });
  }

  /** Starts looking for due schedules every `tickMs`. */
  start(): void {
    this.scheduler.start();
  }

  /** Stops the scheduler, waiting for a tick in progress. */
  stop(): Promise<void> {
    return this.scheduler.stop();
  }

  /** Lets syncs queue their documents for extraction with the source's own extractors. */
  useExtractor(extractor: Pick<DocumentExtractor, 'enqueue'>): void {
    this.extractor = extractor;
  }

  async list(): Promise<SourceRecord[]> {
    return this.repository.list();
  }

  /** A source by id, or undefined. */
  /**
   * After an undo reverted documents a sync wrote: their items' fingerprints are forgotten, so the next sync imports
   * them again instead of taking the reverted documents for up to date.
   */
  forgetSynced(documentIds: readonly string[]): Promise<number> {
    return this.repository.forgetItemsWriting(documentIds);
  }

  async byId(id: string): Promise<SourceRecord | undefined> {
    return this.repository.get(id);
  }

  /** A source by id, else by name, or undefined. */
  async byIdOrName(idOrName: string): Promise<SourceRecord | undefined> {
    return (await this.repository.get(idOrName)) ?? (await this.repository.getByName(idOrName));
  }

  /** A source by id, else by name; NOT_FOUND naming what was asked. */
  async byIdOrNameOrFail(idOrName: string): Promise<SourceRecord> {
    const source = await this.byIdOrName(idOrName);
    if (!source) throw notFound('Source', idOrName);
    return source;
  }

  /** Registers a source; its first scheduled sync is the schedule's next time (syncSource runs one now). */
  async create(raw: RawSourceInput): Promise<SourceRecord> {
    const source = validateNewSource(raw, this.limits());
    await refuseBlockedAddresses(source, this.deps.runtime);
    if (await this.repository.getByName(source.name)) throw nameTaken(source.name);
    const id = randomUUID();
    const ssh = await resolveSshSettings(id, source, raw, undefined, this.deps.runtime.secrets);
    try {
      return await this.repository.create(id, { ...source, ...ssh }, nextRunAfter(source.schedule, this.now()));
    } catch (err) {
      if (/sources_name_key|unique/i.test((err as Error).message)) throw nameTaken(source.name);
      throw err;
    }
  }

  /** Changes a source; a new schedule takes effect at once (its next run is computed from now). */
  async update(id: string, raw: RawSourceInput): Promise<SourceRecord> {
    const source = await this.byIdOrNameOrFail(id);
    const patch = validateSourcePatch(source, raw, this.limits());
    if (patch.config) await refuseBlockedAddresses(patch.config, this.deps.runtime);
    if (patch.name !== undefined && patch.name !== source.name && (await this.repository.getByName(patch.name)))
      throw nameTaken(patch.name);
    const config = patch.config ?? { kind: source.kind, config: source.config };
    const ssh = await resolveSshSettings(
      source.id,
      config as typeof source,
      raw,
      { config: source, ssh: source },
      this.deps.runtime.secrets,
    );
    const next: SourceRecord = { ...source, ...(patch.config ?? {}), ...withoutConfig(patch), ...ssh } as SourceRecord;
    const nextRunAt = patch.schedule !== undefined ? nextRunAfter(next.schedule, this.now()) : source.nextRunAt;
    const updated = await this.repository.update(next, nextRunAt);
    if (!updated) throw notFound('Source', id);
    return updated;
  }

  /** Removes a source and its documents, or leaves them as ordinary documents when `keepDocuments`. */
  async delete(
    id: string,
    keepDocuments: boolean,
  ): Promise<{ source: SourceRecord; documentsRemoved: number; documentsKept: number }> {
    const source = await this.byIdOrNameOrFail(id);
    if (await this.openJob(source)) {
      throw new AppError(
        ErrorCode.CONFLICT,
        `source "${source.name}" is syncing (job ${source.lastJobId}); remove it once the sync has finished`,
        { id: source.id, jobId: source.lastJobId },
      );
    }
    let documentsRemoved = 0;
    let documentsKept = 0;
    if (keepDocuments) documentsKept = await this.deps.documents.detachOwnedBy(source.id);
    else
      for (const docId of await this.deps.documents.idsOwnedBy(source.id))
        if (await this.deps.documents.deleteOwned(docId, source.id)) documentsRemoved += 1;
    await this.repository.delete(source.id);
    return { source, documentsRemoved, documentsKept };
  }

  /** Starts a sync now ("Sync now"); a sync already queued or running is returned instead of a second one. */
  async sync(
    id: string,
    options: { async?: boolean; onProgress?: (progress: { done: number; total: number }) => void } = {},
  ): Promise<ImportJobRecord> {
    const { id: sourceId } = await this.byIdOrNameOrFail(id);
    // One check-and-record at a time per source across instances, so a double "Sync now" starts one sync.
    const { job, fresh } = await this.syncLock.run(sourceId, async () => {
      const source = await this.byIdOrNameOrFail(sourceId);
      const open = await this.openJob(source);
      if (open) return { job: open, fresh: false };
      const recorded = await this.deps.imports.record({ kind: 'source', sourceId: source.id, sourceName: source.name });
      await this.repository.markQueued(source.id, recorded.id);
      return { job: recorded, fresh: true };
    });
    if (options.async !== false) {
      if (fresh) this.deps.imports.kickQueue();
      return job;
    }
    // Waiting, the job runs here at once (a CLI runs only its own job).
    return fresh
      ? this.deps.imports.run(job.id, options.onProgress ? { onProgress: options.onProgress } : {})
      : this.deps.imports.waitFor(job.id);
  }

  /** The source's sync jobs, newest first: `first` of them (default 10), kept within 1 to 100. */
  jobs(id: string, first?: number | null): Promise<ImportJobRecord[]> {
    return this.deps.imports.jobsForSource(id, Math.max(1, Math.min(first ?? 10, 100)));
  }

  /** Live documents owned by each of these sources. */
  documentCounts(ids: readonly string[]): Promise<Map<string, number>> {
    return this.deps.documents.countOwnedBy(ids);
  }

  /** Starts the syncs whose scheduled time has come (see SourceScheduler.tick). Returns their jobs. */
  tick(): Promise<ImportJobRecord[]> {
    return this.scheduler.tick();
  }

  private async openJob(source: SourceRecord): Promise<ImportJobRecord | undefined> {
    if (!source.lastJobId) return undefined;
    const job = await this.deps.imports.job(source.lastJobId);
    return job && OPEN_JOB.has(job.status) ? job : undefined;
  }

  private limits() {
    return { folderRoot: this.deps.runtime.folderRoot, llmModel: this.deps.llmModel ?? false };
  }
}

function withoutConfig(patch: ReturnType<typeof validateSourcePatch>): Omit<typeof patch, 'config'> {
  const { config: _config, ...rest } = patch;
  return rest;
}

function nameTaken(name: string): AppError {
  return new AppError(
    ErrorCode.CONFLICT,
    `a source named "${name}" exists already; choose another name or update that one`,
    { name },
  );
}
