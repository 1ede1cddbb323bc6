import type { Config } from '../config.js';
import type { Db } from '../db/Db.js';
import type { Logger } from '../logger.js';
import type { GraphStore } from './GraphStore.js';
import { PostgresGraphStore } from './postgres/PostgresGraphStore.js';

/**
 * Neo4j when CAIRN_NEO4J_URI is set, else the graph tables in the same Postgres database. The Neo4j store (and its
 * driver) is loaded only when configured: the embedded default does not pay for it.
 */
export async function createGraphStore(config: Pick<Config, 'neo4j'>, db: Db, logger: Logger): Promise<GraphStore> {
  if (!config.neo4j) return new PostgresGraphStore(db);
  const { Neo4jGraphStore } = await import('./neo4j/Neo4jGraphStore.js');
  return new Neo4jGraphStore({ ...config.neo4j, logger });
}
