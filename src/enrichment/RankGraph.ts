/** A weighted undirected graph over string node ids, small enough to rank in process. */
export class RankGraph {
  private readonly index = new Map<string, number>();
  private readonly ids: string[] = [];
  private readonly adjacency: Map<number, number>[] = [];

  /** The node's index, adding it if new. */
  node(id: string): number {
    let i = this.index.get(id);
    if (i === undefined) {
      i = this.ids.length;
      this.index.set(id, i);
      this.ids.push(id);
      this.adjacency.push(new Map());
    }
    return i;
  }

  has(id: string): boolean {
    return this.index.has(id);
  }

  /** Adds `weight` to the edge between a and b (both directions); self loops are ignored. */
  link(a: string, b: string, weight: number): void {
    if (a === b || !(weight > 0)) return;
    const i = this.node(a);
    const j = this.node(b);
    const ai = this.adjacency[i] as Map<number, number>;
    const aj = this.adjacency[j] as Map<number, number>;
    ai.set(j, (ai.get(j) ?? 0) + weight);
    aj.set(i, (aj.get(i) ?? 0) + weight);
  }

  /** Neighbours of a node with their edge weights. */
  neighbors(id: string): [string, number][] {
    const i = this.index.get(id);
    if (i === undefined) return [];
    return [...(this.adjacency[i] ?? new Map<number, number>())].map(([j, w]) => [this.ids[j] as string, w]);
  }

  get size(): number {
    return this.ids.length;
  }

  /**
   * Personalized PageRank: the stationary probability of a walk that follows edges in proportion to their weights and,
   * with probability 1 − `damping` at each step (and from nodes without edges), jumps back to a node drawn from
   * `personalization`. Power iteration until the L1 change falls under `tolerance`. Returns the score per node id.
   */
  personalizedPageRank(
    personalization: ReadonlyMap<string, number>,
    options: { damping: number; iterations: number; tolerance: number },
  ): Map<string, number> {
    const n = this.ids.length;
    const reset = new Float64Array(n);
    let total = 0;
    for (const [id, w] of personalization) {
      const i = this.index.get(id);
      if (i !== undefined && w > 0) {
        reset[i] = (reset[i] ?? 0) + w;
        total += w;
      }
    }
    const scores = new Map<string, number>();
    if (total <= 0) return scores;
    for (let i = 0; i < n; i++) reset[i] = (reset[i] ?? 0) / total;
    const strength = this.adjacency.map((edges) => [...edges.values()].reduce((s, w) => s + w, 0));
    let rank = Float64Array.from(reset);
    for (let iter = 0; iter < options.iterations; iter++) {
      const next = new Float64Array(n);
      let dangling = 0;
      for (let i = 0; i < n; i++) {
        const r = rank[i] ?? 0;
        const s = strength[i] ?? 0;
        if (s <= 0) {
          dangling += r;
          continue;
        }
        for (const [j, w] of this.adjacency[i] ?? []) next[j] = (next[j] ?? 0) + (options.damping * r * w) / s;
      }
      const jump = 1 - options.damping + options.damping * dangling;
      let change = 0;
      for (let i = 0; i < n; i++) {
        const v = (next[i] ?? 0) + jump * (reset[i] ?? 0);
        change += Math.abs(v - (rank[i] ?? 0));
        next[i] = v;
      }
      rank = next;
      if (change < options.tolerance) break;
    }
    this.ids.forEach((id, i) => scores.set(id, rank[i] ?? 0));
    return scores;
  }
}
