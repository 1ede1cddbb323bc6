import type { FusionMethod, LaneHit } from './types.js';

/** How to merge two ranked lists. */
export interface FusionOptions {
  method: FusionMethod;
  /** Weight of the vector list, 0..1; the keyword list gets `1 - vectorWeight`. */
  vectorWeight: number;
  /** RRF's rank offset k (60 in the original paper). */
  rrfK: number;
}

/** A chunk after fusion, with what each lane said about it. */
export interface FusedHit {
  chunkId: string;
  documentId: string;
  /** Fused score, 0..1. */
  score: number;
  vectorScore: number | null;
  keywordScore: number | null;
  vectorRank: number | null;
  keywordRank: number | null;
}

/**
 * Merges the vector and keyword lists (each best first) into one list, best first. A hit's score is its fused share
 * times the best score either lane gave any chunk for this query, so a query that nothing matches well scores low
 * throughout (and `minScore` can drop it) while the order stays that of the fused share:
 * - RRF: Σ weight / (k + rank), scaled so that rank 1 in both lists gives 1.
 * - LINEAR: vectorWeight · v + (1 − vectorWeight) · w, where v is the vector score min-max normalised over its list
 *   (best 1, worst 0) and w the keyword score as a share of the list's best (BM25 is already on an absolute scale: when
 *   only three chunks contain an exact identifier, the third keeps its credit instead of scoring 0); a lane that did
 *   not rank the chunk contributes 0.
 * Ties keep the better single-lane rank first, then the smaller chunk id, so results are deterministic.
 */
export function fuse(vector: readonly LaneHit[], keyword: readonly LaneHit[], options: FusionOptions): FusedHit[] {
  const byId = new Map<string, FusedHit>();
  const entry = (h: LaneHit): FusedHit => {
    let e = byId.get(h.chunkId);
    if (!e) {
      e = {
        chunkId: h.chunkId,
        documentId: h.documentId,
        score: 0,
        vectorScore: null,
        keywordScore: null,
        vectorRank: null,
        keywordRank: null,
      };
      byId.set(h.chunkId, e);
    }
    return e;
  };
  vector.forEach((h, i) => Object.assign(entry(h), { vectorScore: h.score, vectorRank: i + 1 }));
  keyword.forEach((h, i) => Object.assign(entry(h), { keywordScore: h.score, keywordRank: i + 1 }));

  const wv = clamp01(options.vectorWeight);
  const wk = 1 - wv;
  const normV = minMax(vector);
  const normK = shareOfBest(keyword);
  // Min-max scaling gives each lane's best hit 1 however poor it is; the lanes' raw scores say how good that is.
  const evidence = clamp01(Math.max(bestScore(vector), bestScore(keyword)));
  for (const e of byId.values()) {
    if (options.method === 'RRF') {
      const k = options.rrfK;
      const sum = (e.vectorRank ? wv / (k + e.vectorRank) : 0) + (e.keywordRank ? wk / (k + e.keywordRank) : 0);
      e.score = clamp01(sum * (k + 1)) * evidence;
    } else {
      const v = e.vectorScore === null ? 0 : normV(e.vectorScore);
      const w = e.keywordScore === null ? 0 : normK(e.keywordScore);
      e.score = clamp01(wv * v + wk * w) * evidence;
    }
  }
  return [...byId.values()].sort(
    (a, b) => b.score - a.score || bestRank(a) - bestRank(b) || compareIds(a.chunkId, b.chunkId),
  );
}

/** Min-max scaling over one lane's list; a list whose scores are all equal maps to 1. */
function minMax(list: readonly LaneHit[]): (s: number) => number {
  if (list.length === 0) return () => 0;
  let lo = Infinity;
  let hi = -Infinity;
  for (const h of list) {
    lo = Math.min(lo, h.score);
    hi = Math.max(hi, h.score);
  }
  const span = hi - lo;
  return span > 0 ? (s) => (s - lo) / span : () => 1;
}

/** Each score as a share of the list's best (all 1 when the best is 0). */
function shareOfBest(list: readonly LaneHit[]): (s: number) => number {
  const best = bestScore(list);
  return best > 0 ? (s) => s / best : () => 1;
}

function bestScore(list: readonly LaneHit[]): number {
  return list.reduce((best, h) => Math.max(best, h.score), 0);
}

function bestRank(h: FusedHit): number {
  return Math.min(h.vectorRank ?? Infinity, h.keywordRank ?? Infinity);
}

/** Chunk ids are bigint strings: compare numerically. */
function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** Clamps to 0..1 (NaN becomes 0). */
export function clamp01(x: number): number {
  return x > 0 ? Math.min(1, x) : 0;
}
