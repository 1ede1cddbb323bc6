import type { Db } from '../db/Db.js';
import type { Logger } from '../logger.js';
import { dropHnswIndex, ensureHnswIndex, usesHnsw } from './vectorIndex.js';

/**
 * How many rows HNSW builds in bulk in the time it takes to insert one row into a live index (pgvector 0.8 on the bench
 * machine: ~2,000 rows/s built against ~200 rows/s inserted at 20k rows; see bench/RESULTS.md).
 */
const BUILD_TO_INSERT_SPEED = 9;

/** Loads smaller than this keep the index: dropping it would slow concurrent searches for little gain. */
const MIN_REMAINING_CHUNKS = 1000;

/** What a bulk session may do and whom it tells. */
export interface BulkLoadOptions {
  /** false makes the session a no-op: the index stays, and searches keep their speed during the load. */
  deferIndex: boolean;
  /** Told when the index is dropped and rebuilt (a rebuild of a large store takes a while: say why nothing moves). */
  logger?: Logger | undefined;
}

/** Loads in this process that dropped the index, per database: the last one to finish rebuilds it. */
const activeDrops = new WeakMap<Db, number>();

/**
 * One large write session (an import job, a corpus load). On a server it drops the HNSW index as soon as the rest of the
 * load is projected to cost more with per-row index upkeep than with one rebuild at the end, and rebuilds it in
 * `finish`. Searches stay correct meanwhile (exact scans, slower); a crash leaves the index to the next start-up.
 */
export class BulkLoad {
  private existingChunks: number | undefined;
  private dropped = false;

  constructor(
    private readonly db: Db,
    private readonly options: BulkLoadOptions = { deferIndex: true },
  ) {}

  /** Whether this session dropped the index (it is rebuilt by `finish`). */
  get indexDeferred(): boolean {
    return this.dropped;
  }

  /**
   * Reports progress: `chunksWritten` so far in this session and the share of the load done (0..1]. May drop the index
   * when the projected remainder is large next to the store.
   */
  async progress(chunksWritten: number, fractionDone: number): Promise<void> {
    if (this.dropped || !this.options.deferIndex || !usesHnsw(this.db) || fractionDone <= 0 || fractionDone >= 1)
      return;
    const remaining = (chunksWritten * (1 - fractionDone)) / fractionDone;
    if (remaining < MIN_REMAINING_CHUNKS) return;
    this.existingChunks ??= await this.countChunks();
    if (!shouldDeferIndex(remaining, this.existingChunks + chunksWritten)) return;
    activeDrops.set(this.db, (activeDrops.get(this.db) ?? 0) + 1);
    this.dropped = true;
    await dropHnswIndex(this.db);
    this.options.logger?.info(
      { projectedChunks: Math.round(remaining), storedChunks: this.existingChunks + chunksWritten },
      'large load: HNSW index dropped until it ends (searches scan exactly meanwhile)',
    );
  }

  /** Rebuilds the index and refreshes the chunks' statistics if this session dropped it and no other session still loads. */
  async finish(): Promise<void> {
    if (!this.dropped) return;
    this.dropped = false;
    const left = (activeDrops.get(this.db) ?? 1) - 1;
    if (left > 0) activeDrops.set(this.db, left);
    else activeDrops.delete(this.db);
    if (left > 0) return;
    const started = performance.now();
    this.options.logger?.info('load done: rebuilding the HNSW index');
    await ensureHnswIndex(this.db);
    // Autovacuum analyses a freshly loaded table only after its next nap: until then the planner's guesses about the
    // new rows can make it scan every chunk instead of using the index it just got back.
    await this.db.exec('ANALYZE chunks');
    this.options.logger?.info({ ms: Math.round(performance.now() - started) }, 'HNSW index rebuilt');
  }

  private async countChunks(): Promise<number> {
    // The statistics collector's live-row count is close enough and, unlike count(*), costs nothing on a large table.
    const { rows } = await this.db.query<{ n: string }>(
      "SELECT n_live_tup AS n FROM pg_stat_user_tables WHERE relid = 'chunks'::regclass",
    );
    return Number(rows[0]?.n ?? 0);
  }
}

/** True when inserting `remaining` more chunks costs more with a live index than rebuilding it over `indexedBefore` + them. */
export function shouldDeferIndex(remaining: number, indexedBefore: number): boolean {
  return remaining >= MIN_REMAINING_CHUNKS && remaining * BUILD_TO_INSERT_SPEED > indexedBefore + remaining;
}

/**
 * Runs `load` as one bulk session, rebuilding the index at the end whether it succeeds or fails. A failed rebuild is
 * passed to `onRebuildError` when given (what was loaded stays; the next start-up builds the index), else thrown.
 */
export async function withBulkLoad<T>(
  db: Db,
  load: (session: BulkLoad) => Promise<T>,
  options: { deferIndex?: boolean; logger?: Logger; onRebuildError?: (err: unknown) => void } = {},
): Promise<T> {
  const session = new BulkLoad(db, { deferIndex: options.deferIndex ?? true, logger: options.logger });
  try {
    return await load(session);
  } finally {
    await session.finish().catch((err: unknown) => {
      if (!options.onRebuildError) throw err;
      options.onRebuildError(err);
    });
  }
}
