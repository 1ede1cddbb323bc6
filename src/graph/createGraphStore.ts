import type { Config } from '../config.js';
import type { Db } from '../db/Db.js';
import type { Logger } from '../logger.js';
import type { GraphStore } from './GraphStore.js';
import { Neo4jGraphStore } from './neo4j/Neo4jGraphStore.js';
import { PostgresGraphStore } from './postgres/PostgresGraphStore.js';

/** Neo4j when CAIRN_NEO4J_URI is set, else the graph tables in the same Postgres database. */
export function createGraphStore(config: Pick<Config, 'neo4j'>, db: Db, logger: Logger): GraphStore {
  if (!config.neo4j) return new PostgresGraphStore(db);
  return new Neo4jGraphStore({ ...config.neo4j, logger });
}
