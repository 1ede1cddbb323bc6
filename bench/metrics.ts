/** nDCG@k of a ranked list of ids against graded judgements. */
export function ndcgAt(ranked: readonly string[], relevant: ReadonlyMap<string, number>, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    const g = relevant.get(id) ?? 0;
    if (g > 0) dcg += (2 ** g - 1) / Math.log2(i + 2);
  });
  const ideal = [...relevant.values()].sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}

/** recall@k: share of relevant ids found in the first k. */
export function recallAt(ranked: readonly string[], relevant: ReadonlyMap<string, number>, k: number): number {
  const rel = [...relevant.entries()].filter(([, g]) => g > 0).map(([id]) => id);
  if (rel.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return rel.filter((id) => top.has(id)).length / rel.length;
}

/** The p-th percentile (0-100) by nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Keeps the first occurrence of each id, in order. */
export function distinct(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

/** Samples this process's RSS until stopped; returns the peak in bytes. */
export function rssSampler(intervalMs = 50): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}
