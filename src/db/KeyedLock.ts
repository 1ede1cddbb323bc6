import { createHash } from 'node:crypto';
import { KeyedQueue } from '../KeyedQueue.js';
import type { Db } from './Db.js';

/**
 * Runs work one at a time per key, in this process (a promise chain per key) and across processes sharing the
 * database (`Db.withLock`, a session advisory lock). The in-process chain comes first, so a process holds at most one
 * pooled connection per key while it waits for another process.
 */
export class KeyedLock {
  private readonly queue = new KeyedQueue();

  /** `space` (below 2^20) keeps one use's advisory keys apart from another's. */
  constructor(
    private readonly db: Db,
    private readonly space: number,
  ) {}

  /** Runs `fn` once every earlier holder of `key` has finished. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.queue.run(key, () => this.db.withLock(this.advisoryKey(key), () => fn()));
  }

  // Below 2^53, so it travels as an exact JS number; distinct spaces never share a key.
  private advisoryKey(key: string): number {
    return this.space * 2 ** 32 + (advisoryKey32(key) >>> 0);
  }
}

/** A 32-bit advisory-lock key for a text key (Postgres `int4`; different texts rarely share one, which only serialises). */
export function advisoryKey32(key: string): number {
  return createHash('sha256').update(key).digest().readInt32BE(0);
}
