import { dbTargets, type DbTarget } from './databases.js';
import { graphStoreTargets, type GraphStoreTarget } from './graphStores.js';
import { startTestServer, type TestServer } from './testServer.js';

/** A server configuration a GraphQL suite runs against. */
export interface ServerRun {
  name: string;
  db: DbTarget;
  /** Neo4j as the graph store; absent means the Postgres graph store. */
  graph?: GraphStoreTarget;
}

/** One run per database with the Postgres graph store, plus PGlite with Neo4j when a Neo4j server is available. */
export function serverRuns(): ServerRun[] {
  const dbs = dbTargets();
  return [
    ...dbs.map((db) => ({ name: `postgres graph on ${db.name}`, db })),
    ...graphStoreTargets()
      .filter((g) => g.name.startsWith('neo4j'))
      .map((graph) => ({ name: 'neo4j graph on pglite', db: dbs[0] as DbTarget, graph })),
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
