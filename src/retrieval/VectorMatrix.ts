/**
 * The best rows of one scan, best first: chunk ids and cosine similarities (ties: smaller id first). All-zero rows
 * score 0 but come last, as pgvector ranks their NaN distance after every other.
 */
export interface ScanResult {
  ids: Float64Array;
  scores: Float64Array;
}

/** Copies `vector` scaled to unit length into `out` at `offset`; false for an all-zero vector, which stays zero. */
export function normaliseInto(vector: ArrayLike<number>, out: Float32Array, offset = 0): boolean {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += (vector[i] as number) * (vector[i] as number);
  const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  for (let i = 0; i < vector.length; i++) out[offset + i] = (vector[i] as number) * scale;
  return sum > 0;
}

const FREE = -1;
const INITIAL_ROWS = 1024;

/**
 * Unit-length embeddings of one dimension in a single growable Float32Array, keyed by chunk id (a non-negative
 * integer below 2^53). Deleted rows become free slots that later inserts reuse; many holes trigger a compaction.
 */
export class VectorMatrix {
  private data: Float32Array;
  /** Chunk id per slot, FREE for a hole. */
  private ids: Float64Array;
  /** 1 for an all-zero row. */
  private zero: Uint8Array;
  private readonly slotOf = new Map<number, number>();
  private readonly free: number[] = [];
  /** Slots in use or freed: everything below is scanned. */
  private used = 0;

  constructor(
    readonly dim: number,
    capacity = INITIAL_ROWS,
  ) {
    this.data = new Float32Array(Math.max(1, capacity) * dim);
    this.ids = new Float64Array(Math.max(1, capacity)).fill(FREE);
    this.zero = new Uint8Array(Math.max(1, capacity));
  }

  /** Number of stored vectors. */
  get size(): number {
    return this.slotOf.size;
  }

  /** Whether `id` is stored. */
  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  /** Stores (or replaces) the vector of `id`, normalised; its length must be `dim`. */
  put(id: number, vector: ArrayLike<number>): void {
    if (vector.length !== this.dim)
      throw new Error(`vector of ${vector.length} dimensions in a ${this.dim}-dimension matrix`);
    let slot = this.slotOf.get(id);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.used++;
      if (slot >= this.ids.length) this.grow();
      this.ids[slot] = id;
      this.slotOf.set(id, slot);
    }
    this.zero[slot] = normaliseInto(vector, this.data, slot * this.dim) ? 0 : 1;
  }

  /** Forgets `id` (no-op when absent). */
  remove(id: number): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.slotOf.delete(id);
    this.ids[slot] = FREE;
    this.free.push(slot);
    // Holes are scanned too: once they are half the matrix, close them up.
    if (this.free.length > 1024 && this.free.length * 2 > this.used) this.compact();
  }

  /** The `k` rows most similar to `query` (cosine), best first; ties go to the smaller chunk id. */
  topK(query: ArrayLike<number>, k: number): ScanResult {
    if (query.length !== this.dim)
      throw new Error(`query of ${query.length} dimensions for a ${this.dim}-dimension matrix`);
    const q = new Float32Array(this.dim);
    normaliseInto(query, q);
    const heap = new TopK(Math.min(Math.max(0, Math.trunc(k)), this.size));
    if (heap.capacity === 0) return heap.sorted();
    const { data, ids, zero, dim, used } = this;
    const tail = dim - (dim % 4);
    for (let slot = 0, base = 0; slot < used; slot++, base += dim) {
      const id = ids[slot] as number;
      if (id === FREE) continue;
      // Four running sums let the engine overlap the multiply-adds.
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let i = 0;
      for (; i < tail; i += 4) {
        s0 += (data[base + i] as number) * (q[i] as number);
        s1 += (data[base + i + 1] as number) * (q[i + 1] as number);
        s2 += (data[base + i + 2] as number) * (q[i + 2] as number);
        s3 += (data[base + i + 3] as number) * (q[i + 3] as number);
      }
      for (; i < dim; i++) s0 += (data[base + i] as number) * (q[i] as number);
      heap.offer(zero[slot] === 1 ? Number.NEGATIVE_INFINITY : s0 + s1 + s2 + s3, id);
    }
    return heap.sorted();
  }

  private grow(): void {
    const rows = this.ids.length * 2;
    const data = new Float32Array(rows * this.dim);
    data.set(this.data);
    const ids = new Float64Array(rows).fill(FREE);
    ids.set(this.ids);
    const zero = new Uint8Array(rows);
    zero.set(this.zero);
    this.data = data;
    this.ids = ids;
    this.zero = zero;
  }

  private compact(): void {
    let to = 0;
    for (let from = 0; from < this.used; from++) {
      const id = this.ids[from] as number;
      if (id === FREE) continue;
      if (from !== to) {
        this.data.copyWithin(to * this.dim, from * this.dim, (from + 1) * this.dim);
        this.ids[to] = id;
        this.zero[to] = this.zero[from] as number;
        this.slotOf.set(id, to);
      }
      to++;
    }
    this.ids.fill(FREE, to, this.used);
    this.used = to;
    this.free.length = 0;
  }
}

/** A bounded min-heap of (score, id) whose root is the worst kept row: lowest score, then largest id. */
class TopK {
  private readonly scores: Float64Array;
  private readonly ids: Float64Array;
  private n = 0;

  constructor(readonly capacity: number) {
    this.scores = new Float64Array(capacity);
    this.ids = new Float64Array(capacity);
  }

  /** Keeps the row if the heap has room or it beats the worst kept row. */
  offer(score: number, id: number): void {
    if (this.n < this.capacity) {
      this.siftUp(this.n++, score, id);
    } else if (score > (this.scores[0] as number) || (score === this.scores[0] && id < (this.ids[0] as number))) {
      this.siftDown(0, score, id);
    }
  }

  /** The kept rows, best first. */
  sorted(): ScanResult {
    const order = Array.from({ length: this.n }, (_, i) => i).sort(
      (a, b) =>
        (this.scores[b] as number) - (this.scores[a] as number) || (this.ids[a] as number) - (this.ids[b] as number),
    );
    const score = (i: number) => (Number.isFinite(this.scores[i]) ? (this.scores[i] as number) : 0); // an all-zero row ranked as -Infinity
    return { ids: Float64Array.from(order, (i) => this.ids[i] as number), scores: Float64Array.from(order, score) };
  }

  /** True when (s1, i1) ranks below (s2, i2). */
  private static worse(s1: number, i1: number, s2: number, i2: number): boolean {
    return s1 < s2 || (s1 === s2 && i1 > i2);
  }

  private siftUp(pos: number, score: number, id: number): void {
    while (pos > 0) {
      const parent = (pos - 1) >> 1;
      if (!TopK.worse(score, id, this.scores[parent] as number, this.ids[parent] as number)) break;
      this.scores[pos] = this.scores[parent] as number;
      this.ids[pos] = this.ids[parent] as number;
      pos = parent;
    }
    this.scores[pos] = score;
    this.ids[pos] = id;
  }

  private siftDown(pos: number, score: number, id: number): void {
    for (;;) {
      let child = 2 * pos + 1;
      if (child >= this.n) break;
      const right = child + 1;
      if (
        right < this.n &&
        TopK.worse(
          this.scores[right] as number,
          this.ids[right] as number,
          this.scores[child] as number,
          this.ids[child] as number,
        )
      ) {
        child = right;
      }
      if (!TopK.worse(this.scores[child] as number, this.ids[child] as number, score, id)) break;
      this.scores[pos] = this.scores[child] as number;
      this.ids[pos] = this.ids[child] as number;
      pos = child;
    }
    this.scores[pos] = score;
    this.ids[pos] = id;
  }
}
