import type { Queryable } from '../db/Db.js';
import { toDate, toDateOrNull } from '../db/rowValues.js';

/** Where the deletion of a space stands. */
export type SpaceDeletionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED';

/** The deletion of one space, as `space_deletions` records it. */
export interface SpaceDeletionRecord {
  spaceId: string;
  status: SpaceDeletionStatus;
  progress: { done: number; total: number };
  error: string | null;
  requestedAt: Date;
  finishedAt: Date | null;
}

interface Row {
  space_id: string;
  status: SpaceDeletionStatus;
  done: number;
  total: number;
  error: string | null;
  requested_at: Date | string;
  finished_at: Date | string | null;
}

const COLUMNS = 'space_id, status, done, total, error, requested_at, finished_at';

const toRecord = (r: Row): SpaceDeletionRecord => ({
  spaceId: r.space_id,
  status: r.status,
  progress: { done: r.done, total: Math.max(r.total, r.done) },
  error: r.error,
  requestedAt: toDate(r.requested_at),
  finishedAt: toDateOrNull(r.finished_at),
});

/** The `space_deletions` table: one row per space deleted (the last deletion of an id), with progress and a lease. */
export class SpaceDeletionRepository {
  constructor(private readonly db: Queryable) {}

  /** Starts (or restarts, when it failed or a space of that id was deleted before) the deletion of a space. */
  async start(spaceId: string, total: number): Promise<SpaceDeletionRecord> {
    const { rows } = await this.db.query<Row>(
      `INSERT INTO space_deletions (space_id, status, total) VALUES ($1, 'RUNNING', $2)
       ON CONFLICT (space_id) DO UPDATE SET status = 'RUNNING', error = NULL, finished_at = NULL,
              done = CASE WHEN space_deletions.status = 'SUCCEEDED' THEN 0 ELSE space_deletions.done END,
              total = CASE WHEN space_deletions.status = 'SUCCEEDED' THEN EXCLUDED.total
                           ELSE greatest(space_deletions.total, EXCLUDED.total) END,
              requested_at = CASE WHEN space_deletions.status = 'SUCCEEDED' THEN now()
                                  ELSE space_deletions.requested_at END
       RETURNING ${COLUMNS}`,
      [spaceId, total],
    );
    return toRecord(rows[0] as Row);
  }

  async get(spaceId: string): Promise<SpaceDeletionRecord | undefined> {
    const { rows } = await this.db.query<Row>(`SELECT ${COLUMNS} FROM space_deletions WHERE space_id = $1`, [spaceId]);
    return rows[0] && toRecord(rows[0]);
  }

  /**
   * Takes a running deletion whose lease ran out (or that nobody holds) until `until`; `spaceId` limits it to one.
   * Returns the space taken, or undefined.
   */
  async claim(now: Date, until: Date, spaceId?: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ space_id: string }>(
      `UPDATE space_deletions SET locked_until = $2
        WHERE space_id = (SELECT space_id FROM space_deletions
                           WHERE status = 'RUNNING' AND coalesce(locked_until, '-infinity') < $1
                             AND ($3::text IS NULL OR space_id = $3)
                           ORDER BY requested_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING space_id`,
      [now, until, spaceId ?? null],
    );
    return rows[0]?.space_id;
  }

  /** Adds `removed` to the progress and extends the lease. */
  async advance(spaceId: string, removed: number, until: Date): Promise<void> {
    await this.db.query(
      'UPDATE space_deletions SET done = done + $2, locked_until = $3 WHERE space_id = $1 AND status = $4',
      [spaceId, removed, until, 'RUNNING'],
    );
  }

  /** Records how a deletion ended. */
  async finish(spaceId: string, status: 'SUCCEEDED' | 'FAILED', error: string | null): Promise<void> {
    await this.db.query(
      `UPDATE space_deletions SET status = $2, error = $3, finished_at = now(), locked_until = NULL
        WHERE space_id = $1`,
      [spaceId, status, error?.slice(0, 2000) ?? null],
    );
  }

  /** Ends every lease now: this process owns the database alone (PGlite), so their holder is gone. */
  async expireAllLeases(): Promise<void> {
    await this.db.query(`UPDATE space_deletions SET locked_until = NULL WHERE status = 'RUNNING'`);
  }
}
