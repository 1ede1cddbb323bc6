import neo4j from 'neo4j-driver';
import { isSchemaAlreadyThere, type Neo4jConnection } from './Neo4jConnection.js';
import { BACKFILL_SPACES, relationshipIdIndex, relationshipIdIndexName, SCHEMA_STATEMENTS } from './cypher.js';

/** How long to wait for a new relationship index to come online (it is created before its type has relationships). */
const AWAIT_INDEX_SECONDS = neo4j.int(60);

/** Constraints and indexes of the store, including the per-type relationship `id` indexes created on first use. */
export class Neo4jSchema {
  /** Relationship types whose `id` index this instance has ensured (or is ensuring). */
  private readonly indexedTypes = new Map<string, Promise<void>>();

  constructor(private readonly conn: Neo4jConnection) {}

  /** Creates the node constraints and indexes, and the `id` index of the given relationship types. */
  async init(relationshipTypes: readonly string[]): Promise<void> {
    for (const statement of SCHEMA_STATEMENTS) await this.create(statement);
    await this.ensureRelationshipIndexes(relationshipTypes);
  }

  /** Gives nodes written before spaces existed their space, a batch per transaction until none is left. */
  async backfillSpaces(): Promise<void> {
    for (;;) {
      const n = await this.conn.write(async (tx) => Number((await tx.run(BACKFILL_SPACES)).records[0]?.get('n') ?? 0));
      if (n === 0) return;
    }
  }

  /**
   * Creates the `id` index of relationship types not seen yet by this instance (Community indexes relationship
   * properties per type only). Schema changes run in their own transactions, before the data transaction.
   */
  async ensureRelationshipIndexes(types: readonly string[]): Promise<void> {
    for (const type of new Set(types)) {
      let pending = this.indexedTypes.get(type);
      if (!pending) {
        pending = this.createIndexOnline(type);
        this.indexedTypes.set(type, pending);
        pending.catch(() => this.indexedTypes.delete(type));
      }
      await pending;
    }
  }

  /** Creates a relationship `id` index and waits until it is online, so that upserts plan index seeks from the start. */
  private async createIndexOnline(type: string): Promise<void> {
    await this.create(relationshipIdIndex(type));
    await this.conn.read((tx) =>
      tx.run('CALL db.awaitIndex($name, $seconds)', {
        name: relationshipIdIndexName(type),
        seconds: AWAIT_INDEX_SECONDS,
      }),
    );
  }

  /** Runs one idempotent schema statement, tolerating a concurrent creator of the same index or constraint. */
  private async create(statement: string): Promise<void> {
    try {
      await this.conn.write((tx) => tx.run(statement));
    } catch (err) {
      if (!isSchemaAlreadyThere(err)) throw err;
    }
  }
}
