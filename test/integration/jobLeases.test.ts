import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ImportJobRepository } from '../../importers/jobs/ImportJobRepository.js';
import { ImportJobRunner, MAX_JOB_ATTEMPTS, type JobContext } from '../../importers/jobs/ImportJobRunner.js';
import type { ImportJobRecord, ImportJobStatus, ImportRequest } from '../../importers/jobs/types.js';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/Db.js';
import { openDb } from '../../src/db/openDb.js';
import { silentLogger } from '../../src/logger.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';

const LEASE_MS = 30_000;
const request: ImportRequest = { kind: 'url', urls: ['https://example.com/a'], defaults: { tags: [], metadata: {} } };

/** A clock the test moves by hand. */
class Clock {
  private ms = Date.parse('2030-01-01T00:00:00Z');
  now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** A job body that holds each job until the test lets it end, and records every start. */
class HeldJobs {
  readonly started: { jobId: string; runner: string; signal: AbortSignal }[] = [];
  private readonly releases = new Map<string, (status: ImportJobStatus) => void>();

  executor(runner: string) {
    return (job: ImportJobRecord, context: JobContext) =>
      new Promise<ImportJobStatus>((resolve) => {
        this.started.push({ jobId: job.id, runner, signal: context.signal });
        this.releases.set(`${runner}/${job.id}`, resolve);
        context.signal.addEventListener('abort', () => resolve('INTERRUPTED'));
      });
  }

  finish(runner: string, jobId: string, status: ImportJobStatus = 'SUCCEEDED'): void {
    this.releases.get(`${runner}/${jobId}`)?.(status);
  }
}

describe.each(dbTargets())('import job leases ($name)', (target) => {
  let scratch: ScratchDatabase;
  let db: Db;
  let jobs: ImportJobRepository;
  const runners: ImportJobRunner[] = [];
  beforeAll(async () => {
    scratch = await target.createDatabase();
    db = await openDb(loadConfig(scratch.env));
    jobs = new ImportJobRepository(db);
  });
  afterAll(async () => {
    for (const runner of runners) await runner.stop();
    await db?.close();
    await scratch?.drop();
  });

  // pollMs only tells whether the runner polls: these tests never `start` it, so no timer fires; they call `tick`.
  const runner = (held: HeldJobs, name: string, clock: Clock, concurrency = 2, exclusive = false, pollMs = 0) => {
    const r = new ImportJobRunner(
      jobs,
      held.executor(name),
      { concurrency, leaseMs: LEASE_MS, pollMs, exclusive, now: clock.now },
      silentLogger(),
    );
    runners.push(r);
    return r;
  };
  const until = async (check: () => boolean | Promise<boolean>) => {
    // Waits for the database round trips, not for the clock (leases read the injected one).
    await eventually(check, { every: 10 });
  };
  const clearQueue = () =>
    db.query(`UPDATE import_jobs SET status = 'SUCCEEDED' WHERE status IN ('QUEUED', 'RUNNING')`);

  it('runs at most `concurrency` background jobs per instance', async () => {
    await clearQueue();
    const clock = new Clock();
    const held = new HeldJobs();
    const a = runner(held, 'a', clock, 2, false, 60_000);
    const created = [];
    for (let i = 0; i < 5; i++) created.push(await jobs.create(request, ['x']));
    await a.tick();
    await until(() => held.started.length === 2);
    await a.tick();
    expect(held.started).toHaveLength(2);
    const running = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM import_jobs WHERE status = 'RUNNING' AND runner_id = $1`,
      [a.runnerId],
    );
    expect(running.rows[0]?.n).toBe(2);
    // The oldest first; when one ends the next is claimed.
    expect(held.started.map((s) => s.jobId)).toEqual([created[0]!.id, created[1]!.id]);
    held.finish('a', created[0]!.id);
    await until(() => held.started.length === 3);
    expect(held.started[2]?.jobId).toBe(created[2]!.id);
    await a.stop();
  });

  it('lets another instance take over a job only once its lease has run out, and stops the old holder', async () => {
    await clearQueue();
    const clock = new Clock();
    const held = new HeldJobs();
    const a = runner(held, 'a', clock);
    const b = runner(held, 'b', clock);
    const job = await jobs.create(request, ['x']);
    await a.tick();
    await until(() => held.started.length === 1);

    clock.advance(LEASE_MS - 1);
    await b.tick();
    expect(held.started).toHaveLength(1);

    // A renews: the lease runs a full term from now.
    await a.renewLeases();
    clock.advance(LEASE_MS - 1);
    await b.tick();
    expect(held.started).toHaveLength(1);

    // A stops renewing (a stalled or dead process): past the lease, B takes the job over and resumes it.
    clock.advance(2);
    await b.tick();
    await until(() => held.started.length === 2);
    expect(held.started[1]).toMatchObject({ jobId: job.id, runner: 'b' });
    const row = await db.query<{ runner_id: string; attempts: number }>(
      'SELECT runner_id, attempts FROM import_jobs WHERE id = $1',
      [job.id],
    );
    expect(row.rows[0]).toEqual({ runner_id: b.runnerId, attempts: 2 });

    // A learns at its next renewal that it lost the job and stops it; its end does not overwrite B's run.
    await a.renewLeases();
    await until(() => held.started[0]!.signal.aborted);
    await a.stop(); // waits for A's job body, which has recorded its end by now
    expect(
      await db.query('SELECT status, runner_id FROM import_jobs WHERE id = $1', [job.id]).then((r) => r.rows[0]),
    ).toEqual({ status: 'RUNNING', runner_id: b.runnerId });
    held.finish('b', job.id);
    await until(async () => (await jobs.get(job.id))?.status === 'SUCCEEDED');
    await b.stop();
  });

  it(`marks a job INTERRUPTED once its instance died ${MAX_JOB_ATTEMPTS} times, instead of taking it over again`, async () => {
    await clearQueue();
    const clock = new Clock();
    const job = await jobs.create(request, ['x']);
    for (let attempt = 1; attempt <= MAX_JOB_ATTEMPTS; attempt++) {
      const held = new HeldJobs();
      const dying = runner(held, `dying-${attempt}`, clock);
      await dying.tick();
      await until(() => held.started.length === 1);
      clock.advance(LEASE_MS + 1); // it never renews: as if killed
    }
    const held = new HeldJobs();
    const last = runner(held, 'last', clock);
    await last.tick();
    expect(held.started).toHaveLength(0);
    expect((await jobs.get(job.id))?.status).toBe('INTERRUPTED');
    // resumeImportJob's requeue starts the count again.
    expect(await jobs.requeue(job.id)).toBe(true);
    await last.tick();
    await until(() => held.started.length === 1);
  });

  it('hands a job stopped by a shutdown back to the queue for another instance, when told to', async () => {
    await clearQueue();
    const clock = new Clock();
    const held = new HeldJobs();
    const leaving = new ImportJobRunner(
      jobs,
      held.executor('leaving'),
      { concurrency: 2, leaseMs: LEASE_MS, pollMs: 0, exclusive: false, handBackOnStop: true, now: clock.now },
      silentLogger(),
    );
    runners.push(leaving);
    const job = await jobs.create(request, ['x']);
    await leaving.tick();
    await until(() => held.started.length === 1);
    await leaving.stop();
    expect(
      await db
        .query('SELECT status, runner_id, attempts FROM import_jobs WHERE id = $1', [job.id])
        .then((r) => r.rows[0]),
    ).toEqual({ status: 'QUEUED', runner_id: null, attempts: 0 });
    const staying = runner(held, 'staying', clock);
    await staying.tick();
    await until(() => held.started.length === 2);
    expect(held.started[1]).toMatchObject({ jobId: job.id, runner: 'staying' });
  });

  it('takes no queued job of anyone else when it does not poll (a one-shot CLI run)', async () => {
    await clearQueue();
    const clock = new Clock();
    const held = new HeldJobs();
    const queued = await jobs.create(request, ['x']);
    const own = await jobs.create(request, ['y']);
    const oneShot = runner(held, 'cli', clock);
    const ran = oneShot.run(own.id);
    await until(() => held.started.length === 1);
    held.finish('cli', own.id);
    expect((await ran).status).toBe('SUCCEEDED');
    await jobs.get(queued.id); // a round trip, time for a claim after the job ended
    await oneShot.stop();
    expect(held.started.map((s) => s.jobId)).toEqual([own.id]);
    expect((await jobs.get(queued.id))?.status).toBe('QUEUED');
  });

  it('on a database it owns alone, resumes jobs left RUNNING at start without waiting for their lease', async () => {
    await clearQueue();
    const clock = new Clock();
    const job = await jobs.create(request, ['x']);
    const gone = runner(new HeldJobs(), 'gone', clock);
    await gone.tick();
    await until(async () => (await jobs.get(job.id))?.status === 'RUNNING');
    const held = new HeldJobs();
    const restarted = runner(held, 'restarted', clock, 2, true);
    await restarted.tick();
    expect(held.started).toHaveLength(0); // the lease still holds for a shared database
    await restarted.start();
    await restarted.tick();
    await until(() => held.started.length === 1);
    expect(held.started[0]?.jobId).toBe(job.id);
  });
});
