import { dbTargets, edgeTarget, type DbTarget } from './databases.js';
import { graphStoreTargets, type GraphStoreTarget } from './graphStores.js';
import { startTestServer, type TestServer } from './testServer.js';

/** A server configuration a GraphQL suite runs against. */
export interface ServerRun {
  name: string;
  db: DbTarget;
  /** Neo4j as the graph store; absent means the Postgres graph store. */
  graph?: GraphStoreTarget;
}

/** Which runs a suite needs. */
export interface ServerRunOptions {
  /**
   * The Postgres graph store on every database (PGlite and the server), for suites whose behaviour may differ between
   * them (the enricher's parallel lanes on PGlite's one connection, space isolation, undo). Default: on one database,
   * the server when configured (edgeTarget), since the SQL is the same and PGlite's WebAssembly costs CI most of its CPU.
   */
  everyDatabase?: boolean;
}

/** The Postgres graph store (on one database or every one), plus Neo4j on one database when a Neo4j server runs. */
export function serverRuns(options: ServerRunOptions = {}): ServerRun[] {
  const edge = edgeTarget();
  const dbs = options.everyDatabase ? dbTargets() : [edge];
  return [
    ...dbs.map((db) => ({ name: `postgres graph on ${db.name}`, db })),
    ...graphStoreTargets()
      .filter((g) => g.name.startsWith('neo4j'))
      .map((graph) => ({ name: `neo4j graph on ${edge.name}`, db: edge, graph })),
  ];
}

/** Starts a test server for a run; closing it also empties and closes its Neo4j store. */
export async function startRunServer(run: ServerRun, env: Record<string, string> = {}): Promise<TestServer> {
  const created = run.graph ? await run.graph.create() : undefined;
  const t = await startTestServer(run.db, env, undefined, created?.store);
  return {
    ...t,
    async close() {
      await t.close();
      await created?.dispose();
    },
  };
}
