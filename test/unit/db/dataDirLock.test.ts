import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import {
  LOCK_FOREIGN_STALE_MS,
  LOCK_HEARTBEAT_MS,
  lockDataDir,
  lockFileFor,
  recordServerUrl,
  serverHoldingDataDir,
  type LockOwner,
} from '../../../src/db/dataDirLock.js';
import { AppError, ErrorCode } from '../../../src/errors.js';
import { eventually } from '../../helpers/eventually.js';

// The PGlite folder lock on its own (no database): who may take a lock over, and when not.

/** A lock file exactly as another process's lockDataDir would have written it. */
function writeLock(dataDir: string, owner: Partial<LockOwner>, ageMs = 0): string {
  const file = lockFileFor(dataDir);
  const full: LockOwner = {
    pid: 1,
    hostname: os.hostname(),
    startedAt: new Date().toISOString(),
    token: 'someone-else',
    ...owner,
  };
  fs.writeFileSync(file, `${JSON.stringify(full)}\n`);
  if (ageMs > 0) {
    const then = new Date(Date.now() - ageMs);
    fs.utimesSync(file, then, then);
  }
  return file;
}

function lockError(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected the lock to be refused');
}

/** The pid of a Node process that has already exited, as a server killed with SIGKILL leaves behind. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => child.once('exit', r));
  return child.pid as number;
}

// Any pid: on another host it is never looked up.
const FOREIGN_PID = 123456;

const bootId = (() => {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined;
  }
})();

describe('data folder lock', () => {
  let root: string;
  let dataDir: string;
  let sleeper: ChildProcess | undefined;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-lock-'));
    dataDir = path.join(root, 'pglite');
    fs.mkdirSync(dataDir);
  });
  afterEach(() => {
    sleeper?.kill('SIGKILL');
    sleeper = undefined;
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('records the URL of the server holding it, names it to the refused, and is still released', async () => {
    recordServerUrl(dataDir, 'http://127.0.0.1:4000'); // not held: nothing to record
    expect(fs.existsSync(lockFileFor(dataDir))).toBe(false);
    const lock = lockDataDir(dataDir);
    const before = JSON.parse(fs.readFileSync(lock.file, 'utf8')) as LockOwner;
    recordServerUrl(dataDir, 'http://127.0.0.1:4000');
    expect(JSON.parse(fs.readFileSync(lock.file, 'utf8'))).toEqual({ ...before, url: 'http://127.0.0.1:4000' });
    lock.release();
    expect(fs.existsSync(lock.file)).toBe(false); // same token: the release still recognises its lock

    sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    writeLock(dataDir, { pid: sleeper.pid as number, url: 'http://127.0.0.1:4567' });
    const err = lockError(() => lockDataDir(dataDir));
    expect(err.message).toContain(`pid ${sleeper.pid} on host ${os.hostname()}`);
    expect(err.message).toContain('serving http://127.0.0.1:4567');
    expect(err.details).toEqual(expect.objectContaining({ url: 'http://127.0.0.1:4567', pid: sleeper.pid }));
  });

  it('is exclusive while held, names the folder and the holder, and is gone once released', () => {
    const lock = lockDataDir(dataDir);
    expect(lock.file).toBe(`${dataDir}.lock`);
    const recorded = JSON.parse(fs.readFileSync(lock.file, 'utf8')) as LockOwner;
    expect(recorded).toEqual(expect.objectContaining({ pid: process.pid, hostname: os.hostname() }));

    const err = lockError(() => lockDataDir(dataDir));
    expect(err.code).toBe(ErrorCode.DATABASE_UNAVAILABLE);
    expect(err.message).toContain(`The data folder ${dataDir} is already open in this process (pid ${process.pid}`);
    expect(err.details).toEqual(expect.objectContaining({ dataDir, pid: process.pid, lockFile: lock.file }));
    // The refusal did not disturb the holder's lock.
    expect(fs.readFileSync(lock.file, 'utf8')).toBe(`${JSON.stringify(recorded)}\n`);

    lock.release();
    lock.release(); // idempotent
    expect(fs.existsSync(lock.file)).toBe(false);
    // Open, close, open again in one process (as tests and `migrate` then `serve` do).
    for (let i = 0; i < 3; i++) lockDataDir(dataDir).release();
    expect(fs.readdirSync(root)).toEqual(['pglite']);
  });

  it('refuses a lock whose owner still runs on this host, and takes it over once that process is gone', async () => {
    sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    const pid = sleeper.pid as number;
    const file = writeLock(dataDir, { pid, bootId });
    const before = fs.readFileSync(file, 'utf8');
    const err = lockError(() => lockDataDir(dataDir));
    expect(err.code).toBe(ErrorCode.DATABASE_UNAVAILABLE);
    expect(err.message).toContain(
      `The data folder ${dataDir} is in use by another Cairn process: pid ${pid} on host ${os.hostname()}`,
    );
    expect(err.message).toMatch(/Stop that process first/);
    expect(err.message).toContain('createApiKey');
    expect(err.details).toEqual(expect.objectContaining({ dataDir, pid, lockFile: file }));
    expect(fs.readFileSync(file, 'utf8')).toBe(before);

    const exited = new Promise((r) => sleeper?.once('exit', r));
    sleeper.kill('SIGKILL');
    await exited;
    const lock = lockDataDir(dataDir);
    expect((JSON.parse(fs.readFileSync(file, 'utf8')) as LockOwner).pid).toBe(process.pid);
    lock.release();
  });

  it('takes over at once a lock left by a process that has exited (a server killed with SIGKILL)', async () => {
    const file = writeLock(dataDir, { pid: await deadPid(), bootId });
    const lock = lockDataDir(dataDir);
    expect((JSON.parse(fs.readFileSync(file, 'utf8')) as LockOwner).pid).toBe(process.pid);
    lock.release();
    expect(fs.existsSync(file)).toBe(false);
  });

  it('takes over a lock whose owner is a zombie (killed, and never reaped by an init that does not reap)', async () => {
    // `head` waits for a byte on fd 3; its parent then becomes `sleep 30`, which never waits for it. Once the exec has
    // happened the byte goes in, `head` exits, and it stays a zombie until `sleep` is killed.
    sleeper = spawn('sh', ['-c', 'head -c1 <&3 >/dev/null & echo $!; exec sleep 30'], {
      stdio: ['ignore', 'pipe', 'ignore', 'pipe'],
    });
    const shell = sleeper.pid as number;
    const zombie = Number(
      await new Promise<string>((resolve) => sleeper!.stdout!.once('data', (d: Buffer) => resolve(d.toString()))),
    );
    const stat = (pid: number) =>
      fs.existsSync(`/proc/${pid}/stat`) ? fs.readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
    await eventually(() => stat(shell).includes('(sleep)'), { what: 'the shell to exec sleep' });
    (sleeper.stdio[3] as NodeJS.WritableStream).write('x');
    await eventually(() => stat(zombie).includes(') Z '), { what: 'head to become a zombie' });
    const file = writeLock(dataDir, { pid: zombie, bootId });
    const lock = lockDataDir(dataDir);
    expect((JSON.parse(fs.readFileSync(file, 'utf8')) as LockOwner).pid).toBe(process.pid);
    lock.release();
  });

  it("takes over a lock with this process's own pid that it does not hold (an earlier run of a restarted container)", () => {
    writeLock(dataDir, { pid: process.pid, bootId });
    lockDataDir(dataDir).release();
  });

  (bootId ? it : it.skip)('takes over a lock written before a reboot, even if its pid runs now', () => {
    sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    writeLock(dataDir, { pid: sleeper.pid as number, bootId: '00000000-0000-0000-0000-000000000000' });
    lockDataDir(dataDir).release();
  });

  it('judges a lock from another host by its heartbeat (its pid cannot be checked here)', () => {
    const file = writeLock(dataDir, { pid: FOREIGN_PID, hostname: `not-${os.hostname()}` });
    const err = lockError(() => lockDataDir(dataDir));
    expect(err.message).toContain(`on host not-${os.hostname()}`);
    expect(err.message).toMatch(/refreshed the lock \d+ s ago/);

    writeLock(dataDir, { pid: FOREIGN_PID, hostname: `not-${os.hostname()}` }, LOCK_FOREIGN_STALE_MS + 5_000);
    const lock = lockDataDir(dataDir);
    expect((JSON.parse(fs.readFileSync(file, 'utf8')) as LockOwner).hostname).toBe(os.hostname());
    lock.release();
  });

  it('refreshes its mtime while held, for processes on other hosts', async () => {
    // Only timers are faked: the refresh itself is real file I/O.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const lock = lockDataDir(dataDir);
      const old = new Date(Date.now() - 10 * 60_000);
      fs.utimesSync(lock.file, old, old);
      jest.advanceTimersByTime(LOCK_HEARTBEAT_MS);
      let mtime = old.getTime();
      for (let i = 0; i < 200 && mtime === old.getTime(); i++) mtime = (await fs.promises.stat(lock.file)).mtimeMs;
      expect(mtime).toBeGreaterThan(old.getTime() + 60_000);
      lock.release();
      jest.advanceTimersByTime(LOCK_HEARTBEAT_MS * 3); // stopped: nothing recreates or touches the file
      expect(fs.existsSync(lock.file)).toBe(false);
    } finally {
      jest.useRealTimers();
    }
  });

  it('treats a damaged lock file as held only while it is fresh', () => {
    const file = lockFileFor(dataDir);
    fs.writeFileSync(file, '{"pid": tru');
    expect(lockError(() => lockDataDir(dataDir)).message).toContain('an unknown process');
    const then = new Date(Date.now() - 60_000);
    fs.utimesSync(file, then, then);
    lockDataDir(dataDir).release();
  });

  it('never deletes a lock that another process took over meanwhile', () => {
    const lock = lockDataDir(dataDir);
    const file = writeLock(dataDir, { pid: 4242, token: 'the-new-owner' });
    lock.release();
    expect((JSON.parse(fs.readFileSync(file, 'utf8')) as LockOwner).token).toBe('the-new-owner');
  });
});

describe('the server a lock points the CLI to', () => {
  let base: string;
  let dataDir: string;
  beforeEach(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-lock-url-'));
    dataDir = path.join(base, 'pglite');
  });
  afterEach(() => {
    fs.rmSync(base, { recursive: true, force: true });
  });

  it('is recorded by the holder in its own lock, and found while the holder lives', () => {
    const lock = lockDataDir(dataDir);
    try {
      expect(serverHoldingDataDir(dataDir)).toBeUndefined(); // holding the folder, serving no HTTP yet
      recordServerUrl(dataDir, 'http://127.0.0.1:4321');
      expect(serverHoldingDataDir(dataDir)).toEqual({ url: 'http://127.0.0.1:4321', pid: process.pid });
      // The token is kept: the holder still releases its own lock.
    } finally {
      lock.release();
    }
    expect(fs.existsSync(lockFileFor(dataDir))).toBe(false);
    expect(serverHoldingDataDir(dataDir)).toBeUndefined();
  });

  it('is never recorded in a lock held by another process, nor taken from a dead one', async () => {
    const file = writeLock(dataDir, { pid: process.ppid, url: 'http://127.0.0.1:1111' });
    const before = fs.readFileSync(file, 'utf8');
    recordServerUrl(dataDir, 'http://127.0.0.1:9999');
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    expect(serverHoldingDataDir(dataDir)).toEqual({ url: 'http://127.0.0.1:1111', pid: process.ppid });
    writeLock(dataDir, { pid: await deadPid(), url: 'http://127.0.0.1:1111' });
    expect(serverHoldingDataDir(dataDir)).toBeUndefined();
    writeLock(dataDir, { pid: process.ppid, url: 'file:///etc/passwd' });
    expect(serverHoldingDataDir(dataDir)).toBeUndefined();
  });
});
