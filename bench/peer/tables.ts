import { percentile } from '../metrics.js';
import { machineLine, type Table } from '../report.js';
import type { Sequential, Window } from './measure.js';

/** Everything one run measured. */
export interface PeerRun {
  /** Names of the sides: Cairn over HTTP, Cairn in process, VectorCypherRetriever, HybridCypherRetriever. */
  sides: string[];
  seq: Sequential[];
  /** Throughput windows of Cairn over HTTP, VectorCypherRetriever and HybridCypherRetriever. */
  windows: Window[][];
  recall: { cairn: number[]; peer: number[] };
  clients: number;
  windowSeconds: number;
  warmup: number;
  queries: number;
  loaded: { documents: number; chunks: number; entities: number; relationships: number; mentions: number };
  efSearch: number;
  /** The Neo4j server's heap and page cache. */
  neo4jMemory: string;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const range = (xs: readonly number[], digits = 1) =>
  `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

/** Which process groups count as a side's CPU: Cairn's server and stores; the peer's Neo4j and its Python library. */
const CAIRN_CPU = ['server', 'postgres', 'neo4j'] as const;
const PEER_CPU = ['neo4j', 'python'] as const;
const LABEL: Record<string, string> = {
  server: 'server',
  postgres: 'Postgres',
  neo4j: 'Neo4j',
  python: 'Python client',
  bench: 'autocannon',
};

const cpuTotal = (w: Window, groups: readonly string[]) => groups.reduce((s, g) => s + (w.cpuPerRequest[g] ?? 0), 0);

function cpuCells(ws: readonly Window[], groups: readonly string[], client?: string): [string, string] {
  const split = groups.map((g) => `${LABEL[g]} ${range(ws.map((w) => w.cpuPerRequest[g] ?? 0))}`);
  if (client) split.push(`(load generator: ${LABEL[client]} ${range(ws.map((w) => w.cpuPerRequest[client] ?? 0))})`);
  return [range(ws.map((w) => cpuTotal(w, groups))), split.join(', ')];
}

/** The comparison table with ratio rows, and the vector recall table. */
export function peerTables(run: PeerRun): Table[] {
  const { seq, windows } = run;
  const rps = (ws: readonly Window[]) => ws.map((w) => w.requests / w.seconds);
  const latencyCells = (s: Sequential) => [percentile(s.ms, 50), percentile(s.ms, 95), mean(s.ms), mean(s.ndcg)];
  const [http, inProcess, vector, hybrid] = seq as [Sequential, Sequential, Sequential, Sequential];
  const [httpW, vectorW, hybridW] = windows as [Window[], Window[], Window[]];
  const rows: (string | number)[][] = [
    [run.sides[0] as string, ...latencyCells(http), range(rps(httpW), 0), ...cpuCells(httpW, CAIRN_CPU, 'bench')],
    [run.sides[1] as string, ...latencyCells(inProcess), '', '', ''],
    [run.sides[2] as string, ...latencyCells(vector), range(rps(vectorW), 0), ...cpuCells(vectorW, PEER_CPU)],
    [run.sides[3] as string, ...latencyCells(hybrid), range(rps(hybridW), 0), ...cpuCells(hybridW, PEER_CPU)],
  ];
  const ratio = (name: string, peer: Sequential, peerW: Window[]) => {
    const [a, b] = [latencyCells(http), latencyCells(peer)];
    const cpu = mean(httpW.map((w) => cpuTotal(w, CAIRN_CPU))) / mean(peerW.map((w) => cpuTotal(w, PEER_CPU)));
    return [
      `ratio Cairn over HTTP ÷ ${name}`,
      ...a.map((v, i) => `${(v / (b[i] as number)).toFixed(2)}×`),
      `${(mean(rps(httpW)) / mean(rps(peerW))).toFixed(2)}×`,
      `${cpu.toFixed(2)}×`,
      'means of the windows',
    ];
  };
  rows.push(ratio('VectorCypherRetriever', vector, vectorW), ratio('HybridCypherRetriever', hybrid, hybridW));
  const errors = windows.flat().reduce((s, w) => s + w.errors, 0);
  const { loaded } = run;
  const note = `Machine: ${machineLine()}; Cairn's server, Postgres, Neo4j, the Python process and the bench share it (other work on the machine too), so figures are noisy.`;
  return [
    {
      title: `Side by side with neo4j-graphrag: SciFact (${loaded.documents} documents, ${loaded.chunks} chunks, ${run.queries} queries), ${loaded.entities.toLocaleString('en')} entities, Postgres 16 + Neo4j 5`,
      headers: [
        'side',
        'p50 ms',
        'p95 ms',
        'mean ms',
        'nDCG@10',
        `requests/s at ${run.clients} clients`,
        'CPU ms per request',
        'CPU ms per request by process',
      ],
      rows,
      notes: [
        note,
        `Data: both sides hold the same chunks with identical 1024-d hashing vectors (the peer's copied from Postgres), ${loaded.entities.toLocaleString('en')} SciFact term entities with ${loaded.relationships.toLocaleString('en')} relationships, and the same ${loaded.mentions.toLocaleString('en')} chunk→entity mentions; Cairn's graph is in Neo4j 5.26 (${run.neo4jMemory}; labels Entity, Document), the peer's in the same server under PeerChunk, PeerEntity and MENTIONS with a cosine vector index and a fulltext index. Query vectors are Cairn's, passed to the peer, so no embedder runs on its side (Cairn embeds the query inside the request).`,
        `Latency: every side answers the ${run.queries} SciFact test queries one at a time, the sides taking turns per query, after ${run.warmup} warm-up queries each. Cairn over HTTP: a \`cairn serve\` child process (built dist/, every setting at its default but the hashing embedder and no rate limit), round trip of enrichContext with topK 10 as seen by fetch. In process: ContextEnricher.enrich with the same configuration. The peer's time is measured in Python around retriever.search (top_k 10, the retrieval query of issue 21).`,
        "nDCG@10: the distinct documents of the chunks each side returns, in rank order, against SciFact's qrels.",
        `Throughput: ${windows[0]?.length ?? 0} rounds of adjacent ${run.windowSeconds} s windows (Cairn, VectorCypher, HybridCypher) at ${run.clients} concurrent clients: autocannon in the bench for Cairn, ${run.clients} Python threads sharing one driver for the peer; the range is over the rounds. ${errors} errors.`,
        "CPU per request: utime + stime from /proc/<pid>/stat before and after each window, of the Cairn server, the Postgres postmaster and its backends, the Neo4j JVM and the Python process, ÷ requests. Cairn's total is server + Postgres + Neo4j (its load generator is shown apart); the peer's is Neo4j + the Python process, which is both the retriever library and the load generator. Ratios: latency and nDCG from the sequential pass, requests/s and CPU from the means of the windows.",
      ],
    },
    {
      title: `Side by side with neo4j-graphrag: vector recall@10 against exact (SciFact, ${loaded.chunks} chunks, ${run.queries} queries)`,
      headers: ['index', 'recall@10 mean', 'p5', 'min'],
      rows: [
        [
          `Cairn VECTOR search (pgvector HNSW on the half-precision cast, ef_search ${run.efSearch}, the default)`,
          mean(run.recall.cairn),
          percentile(run.recall.cairn, 5),
          Math.min(...run.recall.cairn),
        ],
        [
          'Neo4j vector index at its defaults (db.index.vector.queryNodes, as VectorCypherRetriever calls it)',
          mean(run.recall.peer),
          percentile(run.recall.peer, 5),
          Math.min(...run.recall.peer),
        ],
      ],
      notes: [
        note,
        'Exact: the 10 nearest chunks by full-precision cosine distance, a full scan in Postgres; a hit as near as the exact 10th counts (ties). Both indexes hold the same vectors.',
      ],
    },
  ];
}
