import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import pg from 'pg';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/Db.js';
import { openDb } from '../../src/db/openDb.js';
import { Leadership, type LeaderTask, type LeaderTimers } from '../../src/leadership.js';
import { createLogger } from '../../src/logger.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';

const KEY = 0x7465737431;
const logger = createLogger('silent');

/** Timers the test fires by hand: a retry happens only when the test says time has passed. */
class ManualTimers implements LeaderTimers {
  private pending = new Map<number, () => void>();
  private next = 0;
  set(fn: () => void, _ms: number): number {
    this.pending.set(++this.next, fn);
    return this.next;
  }
  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  /** Runs what is due after one retry interval. */
  tick(): void {
    const due = [...this.pending.values()];
    this.pending.clear();
    for (const fn of due) fn();
  }
}

/** Counts starts and stops of one process's background work. */
function countingTask(): LeaderTask & { running: boolean; starts: number } {
  return {
    running: false,
    starts: 0,
    start() {
      this.running = true;
      this.starts += 1;
    },
    async stop() {
      this.running = false;
    },
  };
}

/** One simulated process: its own Db (so its own lock connection), a task and hand-driven timers. */
async function processOn(env: Record<string, string>, log = logger) {
  const db = await openDb(loadConfig(env));
  const task = countingTask();
  const timers = new ManualTimers();
  const lock = db.sessionLock(KEY, () => leadership.lost());
  const leadership: Leadership = new Leadership(lock, [task], { retryMs: 1000, logger: log, timers });
  return { db, task, timers, leadership };
}

/** A logger that keeps its warnings (and worse) in memory. */
function warningsLogger() {
  const messages: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      messages.push((JSON.parse(chunk.toString()) as { msg: string }).msg);
      done();
    },
  });
  return { log: pino({ level: 'warn' }, stream), messages };
}

const server = dbTargets().find((t) => t.name === 'postgres');

(server ? describe : describe.skip)('leadership on the real Postgres server', () => {
  let scratch: ScratchDatabase;
  const dbs: Db[] = [];
  beforeAll(async () => {
    scratch = await server!.createDatabase();
  });
  afterAll(async () => {
    for (const db of dbs) await db.close().catch(() => undefined);
    await scratch.drop();
  });

  it('one process leads; when its connection dies, another takes over at its next retry', async () => {
    const warnings = warningsLogger();
    const a = await processOn(scratch.env, warnings.log);
    const b = await processOn(scratch.env);
    dbs.push(a.db, b.db);
    await a.leadership.start();
    await b.leadership.start();
    expect([a.leadership.isLeader, b.leadership.isLeader]).toEqual([true, false]);
    expect([a.task.running, b.task.running]).toEqual([true, false]);

    // Retries change nothing while the leader lives.
    a.timers.tick();
    b.timers.tick();
    await b.leadership.check();
    expect(b.task.running).toBe(false);

    // The leader's lock connection is killed (as a kill -9 of its process would end it): Postgres frees the lock.
    const admin = new pg.Client({ connectionString: scratch.url });
    await admin.connect();
    const { rowCount } = await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'cairn-leader' AND datname = current_database() AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted)",
    );
    await admin.end();
    expect(rowCount).toBe(1);
    await eventually(() => !a.task.running, { what: '!a.task.running' });
    expect(a.leadership.isLeader).toBe(false);
    expect(warnings.messages).toEqual(['this process lost the leader lock: its background work stopped']);

    // B takes over when its retry interval passes, not before.
    expect(b.task.running).toBe(false);
    b.timers.tick();
    await eventually(() => b.task.running, { what: 'b.task.running' });
    expect(b.leadership.isLeader).toBe(true);

    // A retries with a new connection and stays a follower.
    a.timers.tick();
    await a.leadership.check();
    expect(a.leadership.isLeader).toBe(false);

    // B stopping hands the lock over at A's next retry.
    await b.leadership.stop();
    expect(b.task.running).toBe(false);
    a.timers.tick();
    await eventually(() => a.task.running, { what: 'a.task.running' });
    expect(a.task.starts).toBe(2);
    // Stopping on purpose gives the lock up without a warning: only the loss above warned.
    await a.leadership.stop();
    expect(warnings.messages).toHaveLength(1);
  });
});

(server ? describe : describe.skip)('CAIRN_DATABASE_SESSION_URL', () => {
  it('takes the leader lock there while the pool goes through CAIRN_DATABASE_URL (a transaction pooler)', async () => {
    const scratch = (await server!.createDatabase()) as ScratchDatabase & { url: string };
    // A pool URL nothing answers: only the session connection can reach Postgres.
    const db = await openDb(
      loadConfig({ CAIRN_DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none', CAIRN_DATABASE_SESSION_URL: scratch.url }),
    );
    const lock = db.sessionLock(KEY, () => undefined);
    try {
      expect(await lock.tryAcquire()).toBe(true);
    } finally {
      await lock.release();
      await db.close();
      await scratch.drop();
    }
  });
});

describe('leadership on PGlite', () => {
  it('the one process is the leader at once, and stops without a warning', async () => {
    const scratch = await dbTargets()[0]!.createDatabase();
    const warnings = warningsLogger();
    const p = await processOn(scratch.env, warnings.log);
    try {
      await p.leadership.start();
      expect(p.leadership.isLeader).toBe(true);
      expect(p.task.running).toBe(true);
      await p.leadership.stop();
      expect(p.task.running).toBe(false);
      expect(warnings.messages).toEqual([]);
    } finally {
      await p.db.close();
      await scratch.drop();
    }
  });
});
