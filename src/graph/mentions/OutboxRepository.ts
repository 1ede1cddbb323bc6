import type { Db, Queryable } from '../../db/Db.js';
import type { MentionOp } from '../types.js';
import { ENQUEUE_OPS } from './outboxSql.js';

/** A queued graph write for Neo4j. */
export interface OutboxEntry {
  id: string;
  op: MentionOp;
  attempts: number;
}

/** The graph_outbox table: graph writes queued for Neo4j in the writer's transaction, applied by OutboxWorker. */
export class OutboxRepository {
  constructor(private readonly db: Db) {}

  /** Queues graph writes for Neo4j in the caller's transaction, in order, each link with its space (ENQUEUE_OPS). */
  async enqueue(q: Queryable, ops: readonly MentionOp[]): Promise<void> {
    if (ops.length === 0) return;
    await q.query(ENQUEUE_OPS, [ops.map((o) => JSON.stringify(o))]);
  }

  /** The oldest pending outbox entries. */
  async pending(limit: number): Promise<OutboxEntry[]> {
    // Order by the bigint column, not the text alias `id`: as text, '1000' sorts before '999' and ops apply out of order.
    const { rows } = await this.db.query<{ id: string; op: MentionOp; attempts: number }>(
      'SELECT id::text AS id, op, attempts FROM graph_outbox WHERE done_at IS NULL ORDER BY graph_outbox.id LIMIT $1',
      [limit],
    );
    return rows;
  }

  /** Marks entries applied. */
  async markDone(ids: readonly string[]): Promise<void> {
    if (ids.length > 0)
      await this.db.query('UPDATE graph_outbox SET done_at = now() WHERE id = ANY($1::bigint[])', [ids]);
  }

  /** Records a failed attempt on entries. */
  async markFailed(ids: readonly string[], error: string): Promise<void> {
    if (ids.length > 0)
      await this.db.query(
        'UPDATE graph_outbox SET attempts = attempts + 1, last_error = $2 WHERE id = ANY($1::bigint[])',
        [ids, error.slice(0, 2000)],
      );
  }

  /** Entries not yet applied. */
  async backlog(): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM graph_outbox WHERE done_at IS NULL',
    );
    return rows[0]?.n ?? 0;
  }

  /** Deletes applied entries older than a day (keeps the table small). */
  async prune(): Promise<void> {
    await this.db.query(`DELETE FROM graph_outbox WHERE done_at IS NOT NULL AND done_at < now() - interval '1 day'`);
  }
}
