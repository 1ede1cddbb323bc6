import type { SpaceService } from '../auth/SpaceService.js';
import type { Db } from '../db/Db.js';
import { notFound } from '../errors.js';
import type { Logger } from '../logger.js';
import { SpaceDeletionRepository, type SpaceDeletionRecord } from './SpaceDeletionRepository.js';

/** One kind of thing a space holds, removed batch by batch. */
export interface SpacePurgeStep {
  /** Names the step in the log. */
  what: string;
  /** Removes a batch of what `space` still holds; returns how many went (0: nothing is left). */
  run(space: string): Promise<number>;
}

/** What deleting spaces is built from. */
export interface SpaceDeletionDeps {
  db: Db;
  spaces: SpaceService;
  /** In order: documents first (through their service, so chunks, mentions and the Neo4j mirror go too). */
  steps: readonly SpacePurgeStep[];
  /** About how many things the space holds (the progress's total). */
  count(space: string): Promise<number>;
  /** Takes the space off the keys bound to it. */
  unbindKeys(space: string): Promise<number>;
  /** Forgets which spaces the space reads and is read by (see SpaceReads), so no request reads it on. */
  forgetReads(space: string): Promise<void>;
  leaseMs: number;
  /** How often to look for deletions whose instance died; 0: only at start and when asked. */
  pollMs: number;
  /** True when this process owns the database alone (PGlite): every lease at start is from a dead run. */
  exclusive: boolean;
  logger: Logger;
  now?: () => Date;
}

/** Rounds of every step before a space that keeps filling (a job still writing) fails its deletion. */
const MAX_ROUNDS = 5;
/** Postgres: a row elsewhere still references the space. */
const FOREIGN_KEY_VIOLATION = '23503';

/**
 * Deletes spaces as durable jobs: a request marks the space (requests can no longer name it) and takes it off its keys
 * at once, then the steps remove everything in it batch by batch, recording progress under a lease in
 * `space_deletions`; an instance that starts (or polls) takes over a deletion whose lease ran out. Every step is
 * idempotent, so a deletion resumed after a crash carries on where it stopped.
 */
export class SpaceDeletionService {
  private readonly repository: SpaceDeletionRepository;
  private readonly running = new Map<string, Promise<void>>();
  private readonly stopping = new AbortController();
  private readonly now: () => Date;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: SpaceDeletionDeps) {
    this.repository = new SpaceDeletionRepository(deps.db);
    this.now = deps.now ?? (() => new Date());
  }

  /** Resumes deletions left by a stopped process, and polls for those of dead instances. */
  async start(): Promise<void> {
    if (this.deps.exclusive) await this.repository.expireAllLeases();
    if (this.deps.pollMs > 0) {
      this.timer = setInterval(() => void this.resume(), this.deps.pollMs);
      this.timer.unref();
    }
    await this.resume();
  }

  /** Stops taking deletions and waits for those running here (they resume from where they stopped). */
  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled(this.running.values());
  }

  /** Starts deleting a space (or resumes a deletion that failed); NOT_FOUND when no such space exists. */
  async request(spaceId: string): Promise<SpaceDeletionRecord> {
    if (!(await this.deps.spaces.markDeleting(spaceId))) throw notFound('Space', spaceId);
    await this.deps.unbindKeys(spaceId);
    await this.deps.forgetReads(spaceId);
    const record = await this.repository.start(spaceId, await this.deps.count(spaceId));
    await this.resume(spaceId);
    return record;
  }

  /** The last deletion of a space, or undefined. */
  get(spaceId: string): Promise<SpaceDeletionRecord | undefined> {
    return this.repository.get(spaceId);
  }

  /** Resolves with the deletion once it ran here to its end (or at once when it is not running here). */
  async waitFor(spaceId: string): Promise<SpaceDeletionRecord | undefined> {
    await this.running.get(spaceId);
    return this.repository.get(spaceId);
  }

  /** Takes deletions nobody holds (`spaceId`: that one only) and runs them here. */
  private async resume(spaceId?: string): Promise<void> {
    try {
      for (;;) {
        if (this.stopping.signal.aborted) return;
        const space = await this.repository.claim(this.now(), this.leaseUntil(), spaceId);
        if (space === undefined || this.running.has(space)) return;
        const run = this.run(space).finally(() => this.running.delete(space));
        this.running.set(space, run);
        if (spaceId !== undefined) return;
      }
    } catch (err) {
      this.deps.logger.warn({ err }, 'could not look for space deletions');
    }
  }

  private leaseUntil(): Date {
    return new Date(this.now().getTime() + this.deps.leaseMs);
  }

  /** Runs every step until the space holds nothing, then removes the space; records how it ended. */
  private async run(space: string): Promise<void> {
    const log = this.deps.logger.child({ space });
    log.info('deleting space');
    try {
      for (let round = 0; round < MAX_ROUNDS; round++) {
        for (const step of this.deps.steps) await this.drain(space, step);
        if (await this.removeSpace(space)) {
          await this.repository.finish(space, 'SUCCEEDED', null);
          log.info('space deleted');
          return;
        }
      }
      throw new Error(`space "${space}" kept receiving new rows (an import still running?); delete it again`);
    } catch (err) {
      if (this.stopping.signal.aborted) return; // its lease runs out; the next start resumes it
      log.error({ err }, 'space deletion failed');
      await this.repository
        .finish(space, 'FAILED', err instanceof Error ? err.message : String(err))
        .catch((e: unknown) => log.error({ err: e }, 'could not record a failed space deletion'));
    }
  }

  /** Runs one step until it removes nothing more, recording progress after each batch. */
  private async drain(space: string, step: SpacePurgeStep): Promise<void> {
    for (;;) {
      this.stopping.signal.throwIfAborted();
      const removed = await step.run(space);
      if (removed === 0) return;
      await this.repository.advance(space, removed, this.leaseUntil());
    }
  }

  /** Removes the space's row; false while something still references it. */
  private async removeSpace(space: string): Promise<boolean> {
    try {
      await this.deps.spaces.removeDeleted(space);
      return true;
    } catch (err) {
      if ((err as { code?: unknown }).code === FOREIGN_KEY_VIOLATION) return false;
      throw err;
    }
  }
}
