import type { Db } from '../db/Db.js';
import { chunkEmbeddingPage, chunkEmbeddingsByIds, countChunksByEmbedding } from '../documents/chunkEmbeddings.js';
import type { Logger } from '../logger.js';
import {
  REWRITE_MARKER,
  consumeVectorChanges,
  latestVectorChange,
  prepareMemoryVectorIndex,
  readVectorChanges,
} from './vectorChangeLog.js';
import { VectorMatrix, type ScanResult } from './VectorMatrix.js';
import { parseVectorText } from './vectorText.js';

/** Settings of the in-memory vector index. */
export interface MemoryVectorIndexOptions {
  /** Most chunks held in memory; above it searches use the SQL scan. */
  maxChunks: number;
  /** Told once when the store outgrows `maxChunks`. */
  logger?: Logger | undefined;
}

/** Rows read per page when loading everything. */
const LOAD_PAGE = 2000;
/** More pending changes than this are applied by reloading everything, which reads each row once. */
const MAX_INCREMENTAL = 5000;

/** pgvector's largest dimension. */
const MAX_DIMENSIONS = 16000;

/**
 * Every chunk embedding of a PGlite store, held in memory and scanned exactly in JavaScript (faster than pgvector's
 * scan in WASM; bench/RESULTS.md). PGlite is opened by one process only, so a trigger-fed change log (see
 * vectorChangeLog.ts), read before each search, keeps this copy exactly in sync with committed writes.
 */
export class MemoryVectorIndex {
  /** Undefined before the first load, while the store has no embeddings, or when it mixes dimensions. */
  private matrix: VectorMatrix | undefined;
  private loaded = false;
  /** The store mixes vector dimensions (an untyped column): the SQL scan answers, as it did before. */
  private mixed = false;
  /** Over `maxChunks`: the log is dropped and the SQL scan answers for the rest of this process. */
  private off = false;
  /** A sync that has not started yet, which later callers join; one that has started may have missed their writes. */
  private queued: Promise<void> | undefined;
  private running: Promise<void> = Promise.resolve();
  /** Parse buffer, reused for every row. */
  private readonly scratch = new Float64Array(MAX_DIMENSIONS);

  constructor(
    private readonly db: Db,
    private readonly options: MemoryVectorIndexOptions,
  ) {}

  /** Whether searches can use this index (false once the store outgrew the cap). */
  get enabled(): boolean {
    return !this.off;
  }

  /** Chunks held in memory (as of the last sync). */
  get size(): number {
    return this.matrix?.size ?? 0;
  }

  /** Applies every write committed before the call (the first call loads everything). */
  sync(): Promise<void> {
    if (!this.queued) {
      const next: Promise<void> = this.running.then(() => {
        this.queued = undefined;
        return this.syncNow();
      });
      this.queued = next;
      this.running = next.catch(() => undefined);
    }
    return this.queued;
  }

  /**
   * Syncs, then returns the `k` chunks most similar to `query` with how many chunks are indexed; undefined when the
   * index cannot answer (over the cap, mixed dimensions, or a query of another dimension) and the SQL scan must.
   */
  async nearest(query: Float32Array, k: number): Promise<{ hits: ScanResult; total: number } | undefined> {
    await this.sync();
    if (this.off || this.mixed) return undefined;
    const matrix = this.matrix;
    if (!matrix) return { hits: { ids: new Float64Array(0), scores: new Float64Array(0) }, total: 0 };
    if (matrix.dim !== query.length) return undefined;
    return { hits: matrix.topK(query, k), total: matrix.size };
  }

  private async syncNow(): Promise<void> {
    if (this.off) return;
    if (!this.loaded) return this.reload();
    const changes = await readVectorChanges(this.db, MAX_INCREMENTAL);
    if (!changes) return;
    if (changes.more || this.mixed || changes.chunkIds.includes(REWRITE_MARKER)) return this.reload();
    const rows = await chunkEmbeddingsByIds(this.db, changes.chunkIds);
    const present = new Set<number>();
    for (const r of rows) {
      const id = Number(r.id);
      const vector = this.parse(r.vector);
      // A store whose last vector went away may come back with another embedder's dimension.
      if (!this.matrix || (this.matrix.size === 0 && this.matrix.dim !== vector.length))
        this.matrix = new VectorMatrix(vector.length);
      if (vector.length !== this.matrix.dim) return this.reload();
      this.matrix.put(id, vector);
      present.add(id);
    }
    for (const id of changes.chunkIds) if (!present.has(id)) this.matrix?.remove(id);
    if ((this.matrix?.size ?? 0) > this.options.maxChunks) return this.turnOff();
    await consumeVectorChanges(this.db, changes.lastSeq);
  }

  /** Reads every embedding into a new matrix; a search waits for it rather than seeing a half-loaded index. */
  private async reload(): Promise<void> {
    if (!this.loaded) await prepareMemoryVectorIndex(this.db, true); // no-op DDL when start-up already ran it
    // PGlite runs one statement at a time, so every write logged up to `seq` has committed and the pages below see
    // it; later writes stay in the log and the next sync re-reads their rows, so nothing is missed or applied twice.
    const seq = await latestVectorChange(this.db);
    // Counting first spares reading a store too large to hold (it is counted on every start, loaded only if it fits).
    if ((await countChunksByEmbedding(this.db, true)) > this.options.maxChunks) return this.turnOff();
    let matrix: VectorMatrix | undefined;
    let mixed = false;
    for (let last = '0'; ;) {
      const rows = await chunkEmbeddingPage(this.db, last, LOAD_PAGE);
      if (rows.length === 0) break;
      for (const r of rows) {
        const vector = this.parse(r.vector);
        matrix ??= new VectorMatrix(vector.length, rows.length);
        if (vector.length === matrix.dim) matrix.put(Number(r.id), vector);
        else mixed = true;
      }
      if (matrix && matrix.size > this.options.maxChunks) return this.turnOff();
      last = rows.at(-1)?.id ?? last;
    }
    if (seq !== undefined) await consumeVectorChanges(this.db, seq);
    this.matrix = mixed ? undefined : matrix;
    this.mixed = mixed;
    this.loaded = true;
  }

  private parse(text: string): Float64Array {
    return this.scratch.subarray(0, parseVectorText(text, this.scratch));
  }

  /** Frees the memory and drops the log, so writes stop paying for it; searches use the SQL scan from now on. */
  private async turnOff(): Promise<void> {
    this.off = true;
    this.matrix = undefined;
    this.options.logger?.warn(
      { maxChunks: this.options.maxChunks },
      'more chunks than CAIRN_VECTOR_MEMORY_INDEX_MAX_CHUNKS: vector search scans in SQL for the rest of this process',
    );
    await prepareMemoryVectorIndex(this.db, false);
  }
}

const shared = new WeakMap<Db, MemoryVectorIndex>();

/** The one index of `db`, created with `options` on first use (the change log has a single reader, so every search on a store must share it). */
export function memoryVectorIndexFor(db: Db, options: MemoryVectorIndexOptions): MemoryVectorIndex {
  let index = shared.get(db);
  if (!index) {
    index = new MemoryVectorIndex(db, options);
    shared.set(db, index);
  }
  return index;
}
