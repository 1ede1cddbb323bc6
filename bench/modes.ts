import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/paths.js';
import type { SearchService } from '../src/retrieval/SearchService.js';
import { DEFAULT_SEARCH_TUNING, defaultVectorWeight } from '../src/retrieval/searchRequest.js';
import type { FusionMethod, SearchMode } from '../src/retrieval/types.js';
import type { BeirDataset } from './datasets.js';
import type { BenchEmbedder } from './ingestSearch.js';
import { distinct, ndcgAt, percentile, recallAt } from './metrics.js';
import { machineLine, type Table } from './report.js';

/** One search configuration of the per-mode table. */
export interface ModeSpec {
  mode: SearchMode;
  fusion: FusionMethod;
  /** The configuration a request that names no mode gets. */
  isDefault: boolean;
}

/** Quality and latency of one search configuration on one store. */
export interface ModeResult extends ModeSpec {
  ndcg10: number;
  recall100: number;
  p50Ms: number;
  p95Ms: number;
}

const isDefault = (mode: SearchMode, fusion: FusionMethod) =>
  mode === DEFAULT_SEARCH_TUNING.mode && (mode !== 'HYBRID' || fusion === DEFAULT_SEARCH_TUNING.fusion);

/** VECTOR, KEYWORD, HYBRID with LINEAR fusion and HYBRID with RRF (for reference). */
export const MODES: readonly ModeSpec[] = (
  [
    ['VECTOR', 'LINEAR'],
    ['KEYWORD', 'LINEAR'],
    ['HYBRID', 'LINEAR'],
    ['HYBRID', 'RRF'],
  ] as const
).map(([mode, fusion]) => ({ mode, fusion, isDefault: isDefault(mode, fusion) }));

/** Quality is judged on this many chunks, latency on the usual answer size. */
const QUALITY_TOP_K = 100;
const LATENCY_TOP_K = 10;
const WARMUP = 10;

/** Targets of issue #4: nDCG@10 floors per mode; HYBRID must also beat both single lanes. */
const KEYWORD_TARGET = 0.65;
const HYBRID_TARGET = 0.68;

/** The row label of a configuration. */
export function modeLabel(m: ModeSpec): string {
  const name = m.mode === 'HYBRID' ? `HYBRID ${m.fusion}` : m.mode;
  return m.isDefault ? `${name} (default)` : m.mode === 'HYBRID' && m.fusion === 'RRF' ? `${name} (reference)` : name;
}

/**
 * Evaluates every configuration on one ingested store: nDCG@10 and recall@100 over all queries at topK 100, then
 * latency at topK 10 with the configurations interleaved per query, so that load from other work on the machine
 * falls on all of them alike.
 */
export async function evaluateModes(
  search: SearchService,
  data: BeirDataset,
  modes: readonly ModeSpec[] = MODES,
): Promise<ModeResult[]> {
  const ask = (m: ModeSpec, query: string, topK: number) =>
    search.hits({ query, topK, filter: {}, mode: m.mode, fusion: m.fusion });
  const results: ModeResult[] = [];
  for (const m of modes) {
    let ndcg = 0;
    let recall = 0;
    for (const q of data.queries) {
      const ranked = distinct((await ask(m, q.text, QUALITY_TOP_K)).map((h) => h.document.id));
      const rel = data.qrels.get(q.id) ?? new Map<string, number>();
      ndcg += ndcgAt(ranked, rel, 10);
      recall += recallAt(ranked, rel, 100);
    }
    results.push({
      ...m,
      ndcg10: ndcg / data.queries.length,
      recall100: recall / data.queries.length,
      p50Ms: Number.NaN,
      p95Ms: Number.NaN,
    });
    console.log(`  ${modeLabel(m)}: nDCG@10 ${(ndcg / data.queries.length).toFixed(3)}`);
  }
  console.log(`  latency of every mode at topK ${LATENCY_TOP_K} …`);
  for (const m of modes) for (const q of data.queries.slice(0, WARMUP)) await ask(m, q.text, LATENCY_TOP_K);
  const latencies = modes.map(() => [] as number[]);
  for (const [qi, q] of data.queries.entries()) {
    for (let j = 0; j < modes.length; j++) {
      const i = (qi + j) % modes.length; // rotate which configuration goes first
      const s = performance.now();
      await ask(modes[i] as ModeSpec, q.text, LATENCY_TOP_K);
      latencies[i]?.push(performance.now() - s);
    }
  }
  return results.map((r, i) => ({
    ...r,
    p50Ms: percentile(latencies[i] ?? [], 50),
    p95Ms: percentile(latencies[i] ?? [], 95),
  }));
}

/** "met (+0.012)" or "missed by 0.010". */
function versus(value: number, target: number): string {
  return value >= target ? `met (+${(value - target).toFixed(3)})` : `missed by ${(target - value).toFixed(3)}`;
}

/** The target cell of a configuration's row, judged against the other rows of the same store. */
function targetCell(r: ModeResult, sameStore: readonly ModeResult[]): string {
  if (r.mode === 'KEYWORD') return `nDCG@10 ≥ ${KEYWORD_TARGET}: ${versus(r.ndcg10, KEYWORD_TARGET)}`;
  if (r.mode !== 'HYBRID' || !r.isDefault) return '–';
  const others = sameStore.filter((o) => o.mode !== 'HYBRID');
  const best = Math.max(...others.map((o) => o.ndcg10));
  const beats =
    r.ndcg10 > best
      ? `beats both (+${(r.ndcg10 - best).toFixed(3)})`
      : `does not beat ${others.find((o) => o.ndcg10 === best)?.mode ?? 'both'} (${(r.ndcg10 - best).toFixed(3)})`;
  return `nDCG@10 ≥ ${HYBRID_TARGET}: ${versus(r.ndcg10, HYBRID_TARGET)}; ${beats}`;
}

/** The per-mode table: one row per (store, configuration), for the stores ingested with `embedder`. */
export function modesTable(
  data: BeirDataset,
  embedder: BenchEmbedder,
  stores: readonly { target: string; modes: readonly ModeResult[] }[],
): Table {
  const t = DEFAULT_SEARCH_TUNING;
  return {
    title: `Search modes: SciFact (${data.corpus.length} documents, ${data.queries.length} queries), ${embedder.label}`,
    headers: [
      'store',
      'mode',
      'nDCG@10',
      'recall@100',
      `p50 ms (topK ${LATENCY_TOP_K})`,
      `p95 ms (topK ${LATENCY_TOP_K})`,
      'target',
    ],
    rows: stores.flatMap((s) =>
      s.modes.map((m) => [s.target, modeLabel(m), m.ndcg10, m.recall100, m.p50Ms, m.p95Ms, targetCell(m, s.modes)]),
    ),
    notes: [
      `Machine: ${machineLine()}; other work shares the cores, so latencies are noisy.`,
      `Quality at topK ${QUALITY_TOP_K} (documents ranked by their best chunk); latency at topK ${LATENCY_TOP_K}, after ${WARMUP} warm-up queries per mode, with the modes interleaved query by query. Latency includes embedding the query (none in KEYWORD).`,
      `Each store is ingested once and every mode is evaluated on it. HYBRID lanes rank max(topK, ${t.candidates}) chunks each; LINEAR weights the vector lane ${defaultVectorWeight(embedder.provider)} (the default for this embedder), RRF uses k = ${t.rrfK}. BM25 k1 ${t.bm25K1}, b ${t.bm25B}.`,
      `Targets (issue #4): KEYWORD nDCG@10 ≥ ${KEYWORD_TARGET}; HYBRID (default fusion) nDCG@10 ≥ ${HYBRID_TARGET} and above both VECTOR and KEYWORD. Latency: search p95 ≤ 20 ms on the server, ≤ 100 ms on PGlite.`,
    ],
  };
}

/**
 * Adds the rows of an earlier partial run (`--only=pglite`, then `--only=postgres`) that this run did not redo: rows
 * of the table with the same title in RESULTS.md whose first cell (the store) names no store of `table`. Rows are
 * then ordered by `storeOrder`.
 */
export function withEarlierRows(
  table: Table,
  storeOrder: readonly string[],
  file = path.join(projectRoot, 'bench', 'RESULTS.md'),
): Table {
  const fresh = new Set(table.rows.map((r) => String(r[0])));
  const section = fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split(/^(?=### )/m)
        .find((s) => s.split('\n')[0] === `### ${table.title}`)
    : undefined;
  const earlier = (section ?? '')
    .split('\n')
    .filter((l) => l.startsWith('| '))
    .slice(2) // header and separator
    .map((l) => l.slice(2, -2).split(' | '))
    .filter((cells) => cells.length === table.headers.length && !fresh.has(cells[0] ?? ''));
  const rank = (r: (string | number)[]) => {
    const i = storeOrder.indexOf(String(r[0]));
    return i < 0 ? storeOrder.length : i;
  };
  const rows = [...earlier, ...table.rows]
    .map((r, i) => ({ r, i }))
    .sort((a, b) => rank(a.r) - rank(b.r) || a.i - b.i)
    .map((x) => x.r);
  return { ...table, rows };
}
