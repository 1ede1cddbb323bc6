import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AppError, ErrorCode } from '../errors.js';

// PGlite has no lock of its own: two processes on one folder each replay and overwrite the other's WAL, so writes that
// one of them acknowledged vanish after a restart. This lock keeps a PGlite folder to one process.
//
// Why not proper-lockfile (or `lockfile`): they judge a lock stale only by the age of its mtime, kept fresh by a timer
// on the main thread. A server killed with SIGKILL would then block its own restart for the stale period, and PGlite
// runs its WASM on the main thread, so a long statement could delay the timer until another process takes a live lock.
// Here the owner's pid decides on the same host (a dead pid is stale at once); the mtime heartbeat is only the fallback
// for a lock written on another host (a shared volume), whose pid cannot be checked.

/** What a lock file records about the process that holds the folder. */
export interface LockOwner {
  pid: number;
  hostname: string;
  /** Linux's boot id: a lock written before a reboot is stale whatever its pid is now. */
  bootId?: string;
  startedAt: string;
  /** Unique per acquisition, so a release never deletes a lock that another process took over. */
  token: string;
  /** Where the holder serves HTTP when it is `cairn serve`: the CLI then works through that server. */
  url?: string;
}

/** A held lock on a data folder; `release` is idempotent. */
export interface DataDirLock {
  readonly file: string;
  release(): void;
}

/** How often the holder refreshes the lock's mtime (seen only by processes on other hosts). */
export const LOCK_HEARTBEAT_MS = 10_000;
/** A lock from another host whose mtime is older than this is abandoned. */
export const LOCK_FOREIGN_STALE_MS = 60_000;

// Locks this process holds, by file: a pid equal to ours that is not here comes from an earlier run (a container's pid 1).
const heldHere = new Map<string, LockOwner>();

/** The lock file of a data folder: a sibling, so PGlite's own folder holds only Postgres files. */
export function lockFileFor(dataDir: string): string {
  return `${path.resolve(dataDir)}.lock`;
}

function currentBootId(): string | undefined {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined; // not Linux: the pid check alone decides
  }
}

function parseOwner(raw: string): LockOwner | undefined {
  try {
    const o = JSON.parse(raw) as Partial<LockOwner>;
    if (
      !Number.isInteger(o.pid) ||
      (o.pid as number) <= 0 ||
      typeof o.hostname !== 'string' ||
      typeof o.token !== 'string'
    )
      return undefined;
    const owner: LockOwner = {
      pid: o.pid as number,
      hostname: o.hostname,
      bootId: typeof o.bootId === 'string' ? o.bootId : undefined,
      startedAt: String(o.startedAt ?? '?'),
      token: o.token,
    };
    if (typeof o.url === 'string' && /^https?:\/\//.test(o.url)) owner.url = o.url;
    return owner;
  } catch {
    return undefined;
  }
}

interface SeenLock {
  raw: string;
  owner: LockOwner | undefined;
  mtimeMs: number;
}

function readLock(file: string): SeenLock | undefined {
  try {
    const raw = fs.readFileSync(file, 'utf8');
    return { raw, owner: parseOwner(raw), mtimeMs: fs.statSync(file).mtimeMs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** True when `pid` runs: it exists and is not a zombie (a killed server whose parent never reaped it holds nothing). */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // it exists, owned by another user
  }
  return !isZombie(pid);
}

// A container whose init does not reap children keeps a server killed with -9 as a zombie, which signal 0 still
// reaches: the restart was refused once as "in use" by it. /proc shows its state (Linux; elsewhere assume running).
function isZombie(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

/** True when the lock's owner can no longer be running (so the lock may be taken over). */
function isStale(seen: SeenLock, now: number): boolean {
  const { owner } = seen;
  // Locks are linked in whole, so an unreadable one is damage; only the fallback create can show one briefly empty.
  if (!owner) return now - seen.mtimeMs > 5_000;
  if (owner.hostname !== os.hostname()) return now - seen.mtimeMs > LOCK_FOREIGN_STALE_MS;
  const boot = currentBootId();
  if (owner.bootId && boot && owner.bootId !== boot) return true;
  // Our own pid, but not a lock we hold: an earlier run in another pid namespace (a restarted container).
  if (owner.pid === process.pid) return true;
  return !pidAlive(owner.pid);
}

/** Creates `file` with `body` only if it does not exist; a reader never sees it half-written. */
function createExclusive(file: string, body: string): boolean {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, body, { flag: 'wx' });
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
    // A file system without hard links: an exclusive create (a reader may briefly see it empty, and then waits).
    try {
      fs.writeFileSync(file, body, { flag: 'wx' });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** Removes a stale lock unless it changed since it was judged stale (then it is put back). */
function removeStale(file: string, judged: string): void {
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
  try {
    fs.renameSync(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else removed it first
    throw err;
  }
  try {
    if (fs.readFileSync(aside, 'utf8') !== judged) fs.linkSync(aside, file); // a fresh lock taken meanwhile: restore it
  } catch {
    // EEXIST: yet another process locked it in between; the next attempt reads that lock.
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

function lockedError(dataDir: string, file: string, seen: SeenLock | undefined): AppError {
  const owner = seen?.owner;
  const where = owner
    ? `pid ${owner.pid} on host ${owner.hostname}, since ${owner.startedAt}${owner.url ? `, serving ${owner.url}` : ''}`
    : 'an unknown process (its lock file is unreadable)';
  const foreign = owner !== undefined && owner.hostname !== os.hostname();
  const heartbeat =
    foreign && seen
      ? ` (it refreshed the lock ${Math.round((Date.now() - seen.mtimeMs) / 1000)} s ago; a lock from another host is taken over after ${LOCK_FOREIGN_STALE_MS / 1000} s without that)`
      : '';
  return new AppError(
    ErrorCode.DATABASE_UNAVAILABLE,
    `The data folder ${dataDir} is in use by another Cairn process: ${where}${heartbeat}, which holds the lock ${file}. ` +
      'PGlite allows one process per folder; a second one would lose writes. ' +
      "Stop that process first, or use a running server's GraphQL API: createApiKey for keys, importUrl, importOpenApi or importUpload for imports, knowledgeStats for stats. " +
      "If it is a `cairn serve` still starting, run this again once it is ready: the CLI's stats, import and keys commands then work through its API. " +
      `Delete ${file} only if no Cairn process is running${owner && !foreign ? ` as pid ${owner.pid}` : ''}.`,
    { dataDir, lockFile: file, pid: owner?.pid ?? null, hostname: owner?.hostname ?? null, url: owner?.url ?? null },
  );
}

/**
 * Records in the lock of a folder this process holds the URL it serves HTTP at, so a CLI command started beside it can
 * work through its API instead of refusing. Written whole (rename), so a reader never sees half of it.
 */
export function recordServerUrl(dataDir: string, url: string): void {
  const file = lockFileFor(dataDir);
  const me = heldHere.get(file);
  if (!me) return; // not ours (in memory, or a Postgres server): nothing to record
  const updated: LockOwner = { ...me, url };
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(updated)}\n`, { flag: 'wx' });
  try {
    if (readLock(file)?.owner?.token !== me.token) return; // taken over meanwhile: never overwrite another's lock
    fs.renameSync(tmp, file);
    heldHere.set(file, updated);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** A live `cairn serve` holding a data folder, as its lock records it. */
export interface FolderServer {
  url: string;
  pid: number;
}

/**
 * The server that holds `dataDir`, when a live process on this host holds it and recorded its URL; undefined when the
 * folder is free, held by a dead or foreign process, or by one that serves no HTTP (another CLI command, a starting server).
 */
export function serverHoldingDataDir(dataDir: string): FolderServer | undefined {
  const file = lockFileFor(dataDir);
  const seen = readLock(file);
  const owner = seen?.owner;
  if (!seen || !owner?.url || owner.hostname !== os.hostname()) return undefined;
  // isStale judges other processes' locks; one this process holds is live.
  if (heldHere.get(file)?.token !== owner.token && isStale(seen, Date.now())) return undefined;
  return { url: owner.url, pid: owner.pid };
}

/** The same folder opened twice in one process: a bug in the caller, which must close the first handle. */
function openHereError(dataDir: string, file: string): AppError {
  return new AppError(
    ErrorCode.DATABASE_UNAVAILABLE,
    `The data folder ${dataDir} is already open in this process (pid ${process.pid}, lock ${file}); PGlite allows one instance per folder: close the first one before opening it again.`,
    { dataDir, lockFile: file, pid: process.pid, hostname: os.hostname() },
  );
}

/**
 * Takes the exclusive lock on a PGlite data folder, or throws `DATABASE_UNAVAILABLE` naming the folder and the holder.
 * Synchronous, so two opens racing in one process cannot both pass the check.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = lockFileFor(dataDir);
  if (heldHere.has(file)) throw openHereError(dataDir, file);
  const me: LockOwner = {
    pid: process.pid,
    hostname: os.hostname(),
    bootId: currentBootId(),
    startedAt: new Date().toISOString(),
    token: randomBytes(12).toString('hex'),
  };
  const body = `${JSON.stringify(me)}\n`;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createExclusive(file, body)) return hold(file, me);
    const seen = readLock(file);
    if (!seen) continue; // released meanwhile
    if (!isStale(seen, Date.now())) throw lockedError(dataDir, file, seen);
    removeStale(file, seen.raw);
  }
  throw new AppError(
    ErrorCode.DATABASE_UNAVAILABLE,
    `Could not lock the data folder ${dataDir}: other processes keep taking ${file}. Try again.`,
    { dataDir, lockFile: file },
  );
}

function hold(file: string, me: LockOwner): DataDirLock {
  const { token } = me;
  heldHere.set(file, me);
  // Only a process on another host needs this (it cannot check our pid); unref'd so it never keeps a process alive.
  const heartbeat = setInterval(() => {
    const now = new Date();
    fs.utimes(file, now, now, () => undefined);
  }, LOCK_HEARTBEAT_MS);
  heartbeat.unref();
  let released = false;
  return {
    file,
    release() {
      if (released) return;
      released = true;
      clearInterval(heartbeat);
      heldHere.delete(file);
      // Never delete a lock that is no longer ours (taken over after it looked abandoned).
      try {
        if (readLock(file)?.owner?.token === token) fs.rmSync(file, { force: true });
      } catch {
        // Unreadable now: leave it; the next open finds our pid dead and takes it over.
      }
    },
  };
}
