import { runAs, runInSpace, SCHEDULER_ACTOR, type Logger } from '../../src/importerPort.js';
import type { ImportJobRecord } from '../jobs/types.js';
import { nextRunAfter } from './schedule.js';
import type { SourceRepository } from './SourceRepository.js';
import type { SourceRecord } from './types.js';

/** What the scheduler starts syncs with. */
export interface SourceSchedulerDeps {
  repository: SourceRepository;
  /** Starts a source's sync (SourceService.sync). */
  sync: (sourceId: string) => Promise<ImportJobRecord>;
  /** The source's last job while it is queued or running. */
  openJob: (source: SourceRecord) => Promise<ImportJobRecord | undefined>;
  now: () => Date;
  logger: Logger;
  /** How often due schedules are looked for; 0 leaves it to `tick()` calls. */
  tickMs: number;
}

/** Starts the syncs of sources whose scheduled time has come, and settles syncs their process abandoned. */
export class SourceScheduler {
  private timer: NodeJS.Timeout | undefined;
  /** The tick in progress: `stop()` waits for it, so no sync starts after the process began shutting down. */
  private current: Promise<ImportJobRecord[]> | undefined;
  private stopped = false;

  constructor(private readonly deps: SourceSchedulerDeps) {}

  /** Starts looking for due schedules every `tickMs`. */
  start(): void {
    if (this.deps.tickMs <= 0) return;
    this.timer = setInterval(() => void runAs(SCHEDULER_ACTOR, () => this.tick()), this.deps.tickMs);
    this.timer.unref();
  }

  /** Stops ticking and waits for a tick in progress; a tick after this starts nothing. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.current?.catch(() => undefined);
  }

  /** Starts the syncs whose scheduled time has come; each due run is taken by one process only. Returns their jobs. */
  async tick(): Promise<ImportJobRecord[]> {
    if (this.current || this.stopped) return [];
    this.current = this.startDue();
    try {
      return await this.current;
    } finally {
      this.current = undefined;
    }
  }

  private async startDue(): Promise<ImportJobRecord[]> {
    const started: ImportJobRecord[] = [];
    const { repository, logger } = this.deps;
    await this.settleAbandoned();
    const now = this.deps.now();
    for (const source of await repository.due(now)) {
      if (this.stopped) break;
      if (
        !source.nextRunAt ||
        !(await repository.claimRun(source.id, source.nextRunAt, nextRunAfter(source.schedule, now)))
      )
        continue;
      try {
        // In the source's space: its job, and the documents the job writes, belong there.
        started.push(await runInSpace(source.space, () => this.deps.sync(source.id)));
      } catch (err) {
        logger.warn({ err: (err as Error).message, sourceId: source.id }, 'scheduled source sync could not start');
      }
    }
    return started;
  }

  /** A source left SYNCING by a process that died (its job is no longer open) is recorded as interrupted. */
  private async settleAbandoned(): Promise<void> {
    for (const source of await this.deps.repository.withStatus('SYNCING')) {
      if (await this.deps.openJob(source)) continue;
      const message =
        'the sync stopped with its process; the items it finished are kept and the next sync does the rest';
      await this.deps.repository.markFinished(source.id, {
        status: 'FAILED',
        counts: source.counts,
        error: { code: 'INTERRUPTED', message },
        finishedAt: this.deps.now(),
      });
    }
  }
}
