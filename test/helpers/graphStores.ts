import { loadConfig } from '../../src/config.js';
import { openDb } from '../../src/db/openDb.js';
import type { Db } from '../../src/db/Db.js';
import type { GraphStore } from '../../src/graph/GraphStore.js';
import { PostgresMentionIndex } from '../../src/graph/mentions/PostgresMentionIndex.js';
import { PostgresGraphStore } from '../../src/graph/postgres/PostgresGraphStore.js';
import { dbTargets, edgeTarget, type ScratchDatabase } from './databases.js';

/** A graph store a suite can run against, created empty. */
export interface GraphStoreTarget {
  name: string;
  create(): Promise<CreatedGraphStore>;
}

/** A store, the Postgres database holding its mentions (the store's own for Postgres, one made on demand for Neo4j), and its cleanup. */
export interface CreatedGraphStore {
  store: GraphStore;
  mentionsDb(): Promise<Db>;
  dispose(): Promise<void>;
}

/** Neo4j connection settings for tests, when a server is available. */
export function neo4jTestSettings(): { uri: string; user: string; password: string } | undefined {
  const uri = process.env.CAIRN_TEST_NEO4J_URI;
  if (!uri) return undefined;
  return {
    uri,
    user: process.env.CAIRN_TEST_NEO4J_USER ?? 'neo4j',
    password: process.env.CAIRN_TEST_NEO4J_PASSWORD ?? 'cairn-test-password',
  };
}

/**
 * Deletes every node and relationship of the Neo4j database in batches (its schema stays). A test's own driver: the
 * product has no way to wipe a graph.
 */
export async function wipeNeo4j(settings: { uri: string; user: string; password: string }): Promise<void> {
  // Loaded here, as the product loads it: only suites that reach Neo4j pay for the driver.
  const { default: neo4jDriver } = await import('neo4j-driver');
  const driver = neo4jDriver.driver(settings.uri, neo4jDriver.auth.basic(settings.user, settings.password));
  try {
    for (;;) {
      const { records } = await driver.executeQuery('MATCH (n) WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS n');
      if (Number(records[0]?.get('n') ?? 0) === 0) break;
    }
  } finally {
    await driver.close();
  }
}

let warned = false;

/** The Postgres store on every database target, plus Neo4j when CAIRN_TEST_NEO4J_URI is set (required under CI). */
export function graphStoreTargets(): GraphStoreTarget[] {
  const targets: GraphStoreTarget[] = dbTargets().map((db) => ({
    name: `postgres store on ${db.name}`,
    async create() {
      const scratch = await db.createDatabase();
      const database = await openDb(loadConfig(scratch.env));
      return {
        store: new PostgresGraphStore(database),
        mentionsDb: async () => database,
        async dispose() {
          await database.close();
          await scratch.drop();
        },
      };
    },
  }));
  const neo4j = neo4jTestSettings();
  if (neo4j) {
    targets.push({
      name: 'neo4j store',
      async create() {
        await wipeNeo4j(neo4j);
        const { Neo4jGraphStore } = await import('../../src/graph/neo4j/Neo4jGraphStore.js');
        const store = new Neo4jGraphStore(neo4j);
        let mentions: Promise<Db> | undefined;
        let scratch: ScratchDatabase | undefined;
        return {
          store,
          mentionsDb() {
            mentions ??= (async () => {
              // On the server when there is one: Neo4j is under test here, not the mentions' database.
              scratch = await edgeTarget().createDatabase();
              const database = await openDb(loadConfig(scratch.env));
              store.useMentionIndex(new PostgresMentionIndex(database));
              return database;
            })();
            return mentions;
          },
          async dispose() {
            await store.close();
            await wipeNeo4j(neo4j);
            await (await mentions)?.close();
            await scratch?.drop();
          },
        };
      },
    });
  } else if (process.env.CI) {
    throw new Error('CI is set but CAIRN_TEST_NEO4J_URI is not: the real Neo4j server must run in CI (see .ci/run).');
  } else if (!warned) {
    warned = true;
    console.warn(
      'Skipping the Neo4j half of this suite: CAIRN_TEST_NEO4J_URI is not set (`bash scripts/neo4j-server.sh start` prints one).',
    );
  }
  return targets;
}
