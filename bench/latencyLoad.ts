import neo4j, { type Session } from 'neo4j-driver';
import { corpusEntityNames } from './graphData.js';
import type { BeirDataset } from './datasets.js';
import { namedGraph, perturbedCorpus, scaledDocumentInput, type NamedGraph } from './syntheticCorpus.js';
import { createGraphStore } from '../src/graph/createGraphStore.js';
import type { GraphStore } from '../src/graph/GraphStore.js';
import { MentionLinker } from '../src/graph/mentions/MentionLinker.js';
import type { MentionOp } from '../src/graph/types.js';
import { dropHnswIndex, ensureHnswIndex } from '../src/retrieval/vectorIndex.js';
import type { Services } from '../src/services.js';

/** How to reach the Neo4j server the bench writes to. */
export interface Neo4jTarget {
  uri: string;
  user: string;
  password: string;
}

/** What was loaded into Postgres and how long each step took. */
export interface LoadFigures {
  entities: number;
  relationships: number;
  documents: number;
  chunks: number;
  /** Copies of SciFact it took (the last one partial). */
  copies: number;
  ingestSeconds: number;
  /** (entity, chunk) mentions linked by the document writes. */
  mentions: number;
  hnswSeconds: number;
}

/** How long writing the graph and the mention mirror to Neo4j took. */
export interface Neo4jWrite {
  graphSeconds: number;
  /** Entity→document mention links mirrored. */
  mirrored: number;
  mirrorSeconds: number;
}

const INGEST_BATCH = 1_000;
const GRAPH_BATCH = 2_000;

const seconds = (since: number) => (performance.now() - since) / 1000;

/**
 * Loads the Postgres side of the scale corpus: the entity names first (so each document write links the names its
 * chunks contain, as in production), then the perturbed SciFact copies through `upsertMany` with the HNSW index
 * dropped, then the index rebuilt once (per-row HNSW upkeep is far slower; RESULTS.md). The graph itself
 * goes to Neo4j afterwards (`writeGraphToNeo4j`), since other work sharing that server may wipe it at any time.
 */
export async function loadAtScale(
  services: Services,
  data: BeirDataset,
  sizes: { chunks: number; entities: number; relationships: number },
  prefix: string,
  log: (m: string) => void,
): Promise<{ figures: LoadFigures; graph: NamedGraph }> {
  const corpus = perturbedCorpus(data.corpus, sizes.chunks, services.config.chunking, prefix);
  const names = corpusEntityNames(data.corpus, sizes.entities);
  if (names.length < sizes.entities)
    throw new Error(`SciFact yields only ${names.length} entity names, ${sizes.entities} wanted`);
  const graph = namedGraph(names, sizes.relationships, prefix);
  // What GraphService.upsertGraph records after writing entities to the store: names for linking and query matching.
  await new MentionLinker(services.db, services.outbox !== undefined).entitiesChanged(
    graph.entities.map((e) => ({ entityId: e.id, name: e.name, aliases: e.aliases })),
  );

  await dropHnswIndex(services.db);
  let t0 = performance.now();
  let chunks = 0;
  for (let i = 0; i < corpus.docs.length; i += INGEST_BATCH) {
    const batch = corpus.docs.slice(i, i + INGEST_BATCH).map(scaledDocumentInput);
    for (const r of await services.documents.upsertMany(batch)) chunks += r.chunkCount;
    if ((i / INGEST_BATCH) % 5 === 4) log(`  ingest: ${chunks} chunks, ${(chunks / seconds(t0)).toFixed(0)} chunks/s`);
  }
  const ingestSeconds = seconds(t0);
  const counted = await services.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM mentions WHERE source = 'auto'`,
  );
  const mentions = counted.rows[0]?.n ?? 0;
  log(
    `  ingest: ${corpus.docs.length} documents, ${chunks} chunks, ${mentions} mentions in ${ingestSeconds.toFixed(1)} s`,
  );

  t0 = performance.now();
  await ensureHnswIndex(services.db);
  const hnswSeconds = seconds(t0);
  log(`  HNSW index built in ${hnswSeconds.toFixed(1)} s`);
  const figures = {
    entities: graph.entities.length,
    relationships: graph.relationships.length,
    documents: corpus.docs.length,
    chunks,
    copies: corpus.copies,
    ingestSeconds,
    mentions,
    hnswSeconds,
  };
  return { figures, graph };
}

/**
 * Writes the graph to Neo4j through the store, then mirrors every mention stored in Postgres as the outbox would
 * (entity→document MENTIONED_IN links, which neighbour queries step over). Idempotent, so it also restores the graph
 * after other work wiped the database.
 */
export async function writeGraphToNeo4j(services: Services, graph: NamedGraph): Promise<Neo4jWrite> {
  // A store of its own on the configured Neo4j (the services keep theirs private).
  const store = await createGraphStore(services.config, services.db, services.logger);
  try {
    return await writeThrough(store, services, graph);
  } finally {
    await store.close();
  }
}

/** Writes the graph and the mirrored mentions through `store`, timing each. */
async function writeThrough(store: GraphStore, services: Services, graph: NamedGraph): Promise<Neo4jWrite> {
  let t0 = performance.now();
  for (let i = 0; i < graph.entities.length; i += GRAPH_BATCH)
    await store.upsertEntities(graph.entities.slice(i, i + GRAPH_BATCH));
  for (let i = 0; i < graph.relationships.length; i += GRAPH_BATCH)
    await store.upsertRelationships(graph.relationships.slice(i, i + GRAPH_BATCH));
  const graphSeconds = seconds(t0);
  t0 = performance.now();
  const { rows } = await services.db.query<{ entity_id: string; document_id: string; title: string }>(
    'SELECT DISTINCT m.entity_id, m.document_id, d.title FROM mentions m JOIN documents d ON d.id = m.document_id',
  );
  const ops: MentionOp[] = rows.map((r) => ({
    op: 'link',
    entityId: r.entity_id,
    documentId: r.document_id,
    documentTitle: r.title,
  }));
  for (let i = 0; i < ops.length; i += GRAPH_BATCH) await store.applyMentionOps?.(ops.slice(i, i + GRAPH_BATCH));
  return { graphSeconds, mirrored: ops.length, mirrorSeconds: seconds(t0) };
}

/** Keeps this run's graph whole in Neo4j, which other work sharing the server may wipe at any time. */
export interface GraphKeeper {
  /** Whether every entity of the run is in Neo4j. */
  intact(): Promise<boolean>;
  /** Writes the graph unless it is intact; returns how long the write took, or undefined when it was not needed. */
  ensure(): Promise<Neo4jWrite | undefined>;
  /** Times the graph was written (the first load included). */
  writes(): number;
}

const MAX_WRITES = 10;
const WRITE_ATTEMPTS = 3;

/** A keeper for `graph`, whose entity ids start with `prefix`. */
export function graphKeeper(
  services: Services,
  graph: NamedGraph,
  target: Neo4jTarget,
  prefix: string,
  log: (m: string) => void,
): GraphKeeper {
  let writes = 0;
  const intact = async () => (await countNeo4jNodes(target, prefix)).entities === graph.entities.length;
  return {
    intact,
    writes: () => writes,
    async ensure() {
      if (await intact()) return undefined;
      if (++writes > MAX_WRITES) throw new Error('other work keeps wiping Neo4j; the graph lane cannot be measured');
      if (writes > 1) log('the graph is gone from Neo4j (other work wiped it): writing it again …');
      // A wipe running at the same time can fail the write ("Unable to load NODE", a missing endpoint): retry after a pause.
      for (let attempt = 1; ; attempt++) {
        try {
          const w = await writeGraphToNeo4j(services, graph);
          if (await intact()) return w;
        } catch (err) {
          if (attempt >= WRITE_ATTEMPTS) throw err;
          log(`writing the graph failed (${(err as Error).message.split('\n')[0] ?? ''}); trying again`);
        }
        if (attempt >= WRITE_ATTEMPTS) throw new Error('the graph could not be written to Neo4j whole');
        await new Promise((resolve) => setTimeout(resolve, 3_000));
      }
    },
  };
}

/** Runs `work` with a session of a short-lived driver (plain numbers, not Neo4j Integers). */
async function withSession<T>(target: Neo4jTarget, work: (session: Session) => Promise<T>): Promise<T> {
  const driver = neo4j.driver(target.uri, neo4j.auth.basic(target.user, target.password), {
    disableLosslessIntegers: true,
  });
  const session = driver.session();
  try {
    return await work(session);
  } finally {
    await session.close();
    await driver.close();
  }
}

/** Nodes of this run in Neo4j: entities and mirrored documents whose id starts with `prefix`. */
export async function countNeo4jNodes(
  target: Neo4jTarget,
  prefix: string,
): Promise<{ entities: number; documents: number }> {
  return withSession(target, async (session) => {
    const count = async (label: 'Entity' | 'Document') => {
      const res = await session.executeRead((tx) =>
        tx.run(`MATCH (n:${label}) WHERE n.id STARTS WITH $prefix RETURN count(n) AS n`, { prefix }),
      );
      return Number(res.records[0]?.get('n') ?? 0);
    };
    return { entities: await count('Entity'), documents: await count('Document') };
  });
}

/**
 * Deletes what this run wrote to Neo4j and nothing else: the data model has no per-run label, so nodes are picked by
 * the id prefix (through the id uniqueness constraints' indexes), with their relationships and mention edges. Other
 * work may share the server, so the database is never wiped. Returns the number of nodes deleted.
 */
export async function deleteNeo4jNodes(target: Neo4jTarget, prefix: string): Promise<number> {
  return withSession(target, async (session) => {
    let total = 0;
    for (const label of ['Document', 'Entity'] as const) {
      for (;;) {
        const res = await session.executeWrite((tx) =>
          tx.run(
            `MATCH (n:${label}) WHERE n.id STARTS WITH $prefix WITH n LIMIT 2000 DETACH DELETE n RETURN count(*) AS n`,
            { prefix },
          ),
        );
        const n = Number(res.records[0]?.get('n') ?? 0);
        total += n;
        if (n === 0) break;
      }
    }
    return total;
  });
}
