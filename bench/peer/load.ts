import neo4j, { type Driver } from 'neo4j-driver';
import { chunkText } from '../../src/chunking/chunkText.js';
import type { Services } from '../../src/services.js';
import type { BeirDataset } from '../datasets.js';
import { loadAtScale, writeGraphToNeo4j, type Neo4jTarget } from '../latencyLoad.js';
import type { NamedGraph } from '../syntheticCorpus.js';

export const ENTITIES = 10_000;
export const RELATIONSHIPS = 50_000;
export const VECTOR_INDEX = 'peer_chunk_embedding';
export const FULLTEXT_INDEX = 'peer_chunk_text';
const BATCH = 1_000;

/** What each side holds and how long loading it took. */
export interface LoadedData {
  documents: number;
  chunks: number;
  entities: number;
  relationships: number;
  /** Chunk-level mentions (Cairn's `mentions` rows with a chunk; the peer's MENTIONS edges). */
  mentions: number;
  cairnSeconds: number;
  peerSeconds: number;
  graph: NamedGraph;
}

const seconds = (since: number) => (performance.now() - since) / 1000;

/** The SciFact id of a Cairn document loaded by `loadAtScale` (`${prefix}c0_${id}`). */
export function sciFactId(documentId: string): string {
  return documentId.replace(/^.*?c0_/, '');
}

/**
 * Cairn's side: SciFact once (copy 0 of loadAtScale, ids under `prefix`), 10,000 term entities with 50,000
 * relationships whose names every document write links, and the graph and mentions written to Neo4j.
 */
export async function loadCairn(
  services: Services,
  data: BeirDataset,
  prefix: string,
  log: (m: string) => void,
): Promise<{ graph: NamedGraph; seconds: number; chunks: number }> {
  const t0 = performance.now();
  const chunks = data.corpus.reduce((n, d) => n + chunkText(d.text, services.config.chunking).length, 0);
  const { figures, graph } = await loadAtScale(
    services,
    data,
    { chunks, entities: ENTITIES, relationships: RELATIONSHIPS },
    prefix,
    log,
  );
  if (figures.copies !== 1) throw new Error(`expected SciFact once, got ${figures.copies} copies`);
  const neo = await writeGraphToNeo4j(services, graph);
  log(
    `  Neo4j: graph in ${neo.graphSeconds.toFixed(1)} s, ${neo.mirrored} mention links in ${neo.mirrorSeconds.toFixed(1)} s`,
  );
  return { graph, seconds: seconds(t0), chunks: figures.chunks };
}

/** Deletes the peer's nodes (labels PeerChunk and PeerEntity) and its indexes. */
export async function dropPeer(driver: Driver): Promise<void> {
  for (;;) {
    const res = await driver.executeQuery(
      'MATCH (n) WHERE n:PeerChunk OR n:PeerEntity WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS n',
    );
    if (Number(res.records[0]?.get('n') ?? 0) === 0) break;
  }
  for (const name of [VECTOR_INDEX, FULLTEXT_INDEX]) await driver.executeQuery(`DROP INDEX ${name} IF EXISTS`);
}

/** Creates the relationships type by type (Cypher cannot parameterise a relationship type). */
async function writeRelationships(
  driver: Driver,
  relationships: readonly { fromId: string; type: string; toId: string }[],
): Promise<void> {
  for (const type of new Set(relationships.map((r) => r.type))) {
    if (!/^[A-Z_]+$/.test(type)) throw new Error(`unexpected relationship type ${type}`);
    const ofType = relationships.filter((r) => r.type === type).map((r) => ({ from: r.fromId, to: r.toId }));
    for (let i = 0; i < ofType.length; i += BATCH) {
      await driver.executeQuery(
        `UNWIND $rows AS row MATCH (a:PeerEntity {id: row.from}), (b:PeerEntity {id: row.to}) CREATE (a)-[:${type}]->(b)`,
        { rows: ofType.slice(i, i + BATCH) },
      );
    }
  }
}

/**
 * The peer's side, in the same Neo4j under its own labels: a PeerChunk per Cairn chunk with Cairn's vector copied from
 * Postgres, a PeerEntity per entity with the same relationships, and (chunk)-[:MENTIONS]->(entity) for each of
 * Cairn's chunk mentions; a cosine vector index and a fulltext index on the chunks, as neo4j-graphrag expects.
 */
export async function loadPeer(
  services: Services,
  target: Neo4jTarget,
  graph: NamedGraph,
  log: (m: string) => void,
): Promise<{ seconds: number; mentions: number }> {
  const t0 = performance.now();
  const driver = neo4j.driver(target.uri, neo4j.auth.basic(target.user, target.password));
  try {
    await dropPeer(driver);
    await driver.executeQuery('CREATE CONSTRAINT peer_chunk_id IF NOT EXISTS FOR (c:PeerChunk) REQUIRE c.id IS UNIQUE');
    await driver.executeQuery(
      'CREATE CONSTRAINT peer_entity_id IF NOT EXISTS FOR (e:PeerEntity) REQUIRE e.id IS UNIQUE',
    );
    const { rows: chunks } = await services.db.query<{
      id: string;
      document_id: string;
      content: string;
      embedding: string;
    }>(
      'SELECT id::text AS id, document_id, content, embedding::text AS embedding FROM chunks WHERE embedding IS NOT NULL ORDER BY id',
    );
    for (let i = 0; i < chunks.length; i += BATCH) {
      const rows = chunks.slice(i, i + BATCH).map((c) => ({
        id: c.id,
        documentId: sciFactId(c.document_id),
        text: c.content,
        embedding: JSON.parse(c.embedding) as number[],
      }));
      await driver.executeQuery(
        `UNWIND $rows AS row
         CREATE (c:PeerChunk {id: row.id, document_id: row.documentId, text: row.text})
         WITH c, row CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)`,
        { rows },
      );
    }
    log(`  peer: ${chunks.length} chunks with Cairn's vectors`);
    for (let i = 0; i < graph.entities.length; i += BATCH) {
      const rows = graph.entities.slice(i, i + BATCH).map((e) => ({ id: e.id, name: e.name }));
      await driver.executeQuery('UNWIND $rows AS row CREATE (:PeerEntity {id: row.id, name: row.name})', { rows });
    }
    await writeRelationships(driver, graph.relationships);
    const { rows: mentions } = await services.db.query<{ chunk_id: string; entity_id: string }>(
      'SELECT DISTINCT chunk_id::text AS chunk_id, entity_id FROM mentions WHERE chunk_id IS NOT NULL',
    );
    for (let i = 0; i < mentions.length; i += BATCH * 5) {
      const rows = mentions.slice(i, i + BATCH * 5).map((m) => ({ chunk: m.chunk_id, entity: m.entity_id }));
      await driver.executeQuery(
        'UNWIND $rows AS row MATCH (c:PeerChunk {id: row.chunk}), (e:PeerEntity {id: row.entity}) CREATE (c)-[:MENTIONS]->(e)',
        { rows },
      );
    }
    log(
      `  peer: ${graph.entities.length} entities, ${graph.relationships.length} relationships, ${mentions.length} MENTIONS`,
    );
    const dimensions = services.embedder.dimensions;
    await driver.executeQuery(
      `CREATE VECTOR INDEX ${VECTOR_INDEX} IF NOT EXISTS FOR (c:PeerChunk) ON c.embedding
       OPTIONS {indexConfig: {\`vector.dimensions\`: ${Math.trunc(dimensions)}, \`vector.similarity_function\`: 'cosine'}}`,
    );
    await driver.executeQuery(
      `CREATE FULLTEXT INDEX ${FULLTEXT_INDEX} IF NOT EXISTS FOR (c:PeerChunk) ON EACH [c.text]`,
    );
    await driver.executeQuery('CALL db.awaitIndexes(1200)');
    return { seconds: seconds(t0), mentions: mentions.length };
  } finally {
    await driver.close();
  }
}
