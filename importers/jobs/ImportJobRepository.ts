import { randomUUID } from 'node:crypto';
import type { Db, ExtractionEstimate } from '../../src/importerPort.js';
import { encodeCursor, type KeysetCursor } from '../../src/shared/cursor.js';
import { JOB_COLUMNS, toItem, toJob, type ItemRow, type JobRow } from './importJobRows.js';
import type { ImportJobItemRecord, ImportJobRecord, ImportJobStatus, ImportRequest, ItemOutcome } from './types.js';

const MAX_WARNINGS = 200;
/** SQL: a RUNNING job's lease ran out before the time in parameter `now` (NULL only in rows of a release without leases). */
const leaseExpired = (now: string) =>
  `coalesce(locked_until, heartbeat_at + interval '60 seconds', '-infinity') < ${now}`;

/** A claim's times: now, and the end of the lease it takes. */
export interface JobLease {
  now: Date;
  until: Date;
}

/** A job this runner took: `takenOverFrom` names the runner whose lease ran out, for a job taken over. */
export interface ClaimedJob {
  id: string;
  takenOverFrom: string | null;
}

/** A page of jobs, newest first. */
export interface ImportJobPage {
  rows: { cursor: string; job: ImportJobRecord }[];
  hasNextPage: boolean;
  totalCount: number;
}

/** Reads and writes `import_jobs` and `import_job_items`; every state change is one statement or transaction. */
export class ImportJobRepository {
  constructor(private readonly db: Db) {}

  /** Records a QUEUED job with one PENDING item per label. */
  async create(request: ImportRequest, labels: readonly string[]): Promise<ImportJobRecord> {
    const id = randomUUID();
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO import_jobs (id, kind, status, request, progress_total) VALUES ($1, $2, 'QUEUED', $3, $4)`,
        [id, request.kind, JSON.stringify(request), labels.length],
      );
      if (labels.length > 0) {
        await tx.query(
          `INSERT INTO import_job_items (job_id, ordinal, label, status)
           SELECT $1, o - 1, l, 'PENDING' FROM unnest($2::text[]) WITH ORDINALITY AS t(l, o)`,
          [id, labels],
        );
      }
    });
    return (await this.get(id)) as ImportJobRecord;
  }

  /** Jobs by id with their items, in no particular order. */
  async getMany(ids: readonly string[]): Promise<ImportJobRecord[]> {
    if (ids.length === 0) return [];
    const jobs = await this.db.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM import_jobs WHERE id = ANY($1::text[])`, [
      ids,
    ]);
    return this.withItems(jobs.rows);
  }

  /** One job, or undefined. */
  async get(id: string): Promise<ImportJobRecord | undefined> {
    return (await this.getMany([id]))[0];
  }

  /** Jobs newest first, optionally with one status. */
  async list(first: number, after: KeysetCursor | undefined, status?: ImportJobStatus): Promise<ImportJobPage> {
    const params: unknown[] = [status ?? null];
    let keyset = '';
    if (after) {
      params.push(after.createdAt, after.id);
      keyset = ' AND (created_at, id) < ($2::timestamptz, $3)';
    }
    params.push(first + 1);
    const where = '($1::text IS NULL OR status = $1)';
    const [page, count] = await Promise.all([
      this.db.query<JobRow>(
        `SELECT ${JOB_COLUMNS} FROM import_jobs WHERE ${where}${keyset} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
        params,
      ),
      this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM import_jobs WHERE ${where}`, [status ?? null]),
    ]);
    const jobs = await this.withItems(page.rows.slice(0, first));
    return {
      rows: jobs.map((job) => ({ cursor: encodeCursor({ createdAt: job.createdAt.toISOString(), id: job.id }), job })),
      hasNextPage: page.rows.length > first,
      totalCount: count.rows[0]?.n ?? 0,
    };
  }

  /** A source's sync jobs, newest first. */
  async listForSource(sourceId: string, first: number): Promise<ImportJobRecord[]> {
    const jobs = await this.db.query<JobRow>(
      `SELECT ${JOB_COLUMNS} FROM import_jobs WHERE kind = 'source' AND request->>'sourceId' = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
      [sourceId, first],
    );
    return this.withItems(jobs.rows);
  }

  /** Takes a QUEUED job for this runner until `lease.until`; false when it is not QUEUED (another runner has it, or it finished). */
  async claim(id: string, runnerId: string, lease: JobLease): Promise<boolean> {
    const result = await this.db.query(
      `UPDATE import_jobs SET status = 'RUNNING', runner_id = $2, heartbeat_at = $3, locked_until = $4, attempts = attempts + 1,
                              started_at = coalesce(started_at, $3), finished_at = NULL
        WHERE id = $1 AND status = 'QUEUED'`,
      [id, runnerId, lease.now, lease.until],
    );
    return result.rowCount === 1;
  }

  /**
   * Takes the oldest job that is QUEUED, or RUNNING with a lease that ran out before `lease.now` (its runner died) and
   * fewer than `maxAttempts` claims; SKIP LOCKED keeps concurrent instances from taking the same row.
   */
  async claimNext(runnerId: string, lease: JobLease, maxAttempts: number): Promise<ClaimedJob | undefined> {
    const result = await this.db.query<{ id: string; previous_runner: string | null }>(
      `WITH picked AS (
         SELECT id, status AS previous_status, runner_id AS previous_runner FROM import_jobs
          WHERE status = 'QUEUED' OR (status = 'RUNNING' AND ${leaseExpired('$2')} AND attempts < $4 AND runner_id IS DISTINCT FROM $1)
          ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
       UPDATE import_jobs j SET status = 'RUNNING', runner_id = $1, heartbeat_at = $2, locked_until = $3, attempts = j.attempts + 1,
                                started_at = coalesce(j.started_at, $2)
         FROM picked WHERE j.id = picked.id
       RETURNING j.id, CASE WHEN picked.previous_status = 'RUNNING' THEN picked.previous_runner END AS previous_runner`,
      [runnerId, lease.now, lease.until, maxAttempts],
    );
    const row = result.rows[0];
    return row && { id: row.id, takenOverFrom: row.previous_runner };
  }
  /** Puts a finished or interrupted job back in the queue, with its failed items pending again. */
  async requeue(id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const result = await tx.query(
        `UPDATE import_jobs SET status = 'QUEUED', runner_id = NULL, finished_at = NULL, locked_until = NULL, attempts = 0
          WHERE id = $1 AND status IN ('INTERRUPTED', 'FAILED', 'PARTIAL')`,
        [id],
      );
      if (result.rowCount !== 1) return false;
      await tx.query(
        `UPDATE import_job_items SET status = 'PENDING', error_code = NULL, error = NULL, finished_at = NULL WHERE job_id = $1 AND status = 'FAILED'`,
        [id],
      );
      await tx.query(
        `UPDATE import_jobs SET progress_done = (SELECT count(*) FROM import_job_items WHERE job_id = $1 AND status = 'SUCCEEDED'),
                                progress_total = (SELECT count(*) FROM import_job_items WHERE job_id = $1)
          WHERE id = $1`,
        [id],
      );
      return true;
    });
  }

  /** Renews the lease of the jobs this runner holds; returns their ids (a job missing from them was taken over). */
  async renewLeases(runnerId: string, lease: JobLease): Promise<string[]> {
    const result = await this.db.query<{ id: string }>(
      `UPDATE import_jobs SET heartbeat_at = $2, locked_until = $3 WHERE runner_id = $1 AND status = 'RUNNING' RETURNING id`,
      [runnerId, lease.now, lease.until],
    );
    return result.rows.map((r) => r.id);
  }

  /** Ends every RUNNING job's lease now: the process owns the database alone (PGlite), so their runner is gone. */
  async expireAllLeases(): Promise<number> {
    const result = await this.db.query(`UPDATE import_jobs SET locked_until = '-infinity' WHERE status = 'RUNNING'`);
    return result.rowCount;
  }

  /** Marks RUNNING jobs whose lease ran out after `maxAttempts` claims INTERRUPTED (each claim's instance died); returns their ids. */
  async interruptExhausted(now: Date, maxAttempts: number): Promise<string[]> {
    const result = await this.db.query<{ id: string }>(
      `UPDATE import_jobs SET status = 'INTERRUPTED', finished_at = $1
        WHERE status = 'RUNNING' AND ${leaseExpired('$1')} AND attempts >= $2
        RETURNING id`,
      [now, maxAttempts],
    );
    return result.rows.map((r) => r.id);
  }

  /** Records the documents a running item has written so far (its own success or failure records them again). */
  async itemDocumentsWritten(jobId: string, ordinal: number, documentIds: readonly string[]): Promise<void> {
    await this.db.query(
      `UPDATE import_job_items SET document_ids = $3 WHERE job_id = $1 AND ordinal = $2 AND status = 'PENDING'`,
      [jobId, ordinal, documentIds],
    );
  }

  /** Records a successful item and adds its counts to the job. */
  async itemSucceeded(jobId: string, ordinal: number, outcome: ItemOutcome): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `UPDATE import_job_items SET status = 'SUCCEEDED', document_ids = $3, error_code = NULL, error = NULL, finished_at = now()
          WHERE job_id = $1 AND ordinal = $2`,
        [jobId, ordinal, outcome.documentIds],
      );
      await tx.query(
        `UPDATE import_jobs SET chunk_count = chunk_count + $2, embedded_chunk_count = embedded_chunk_count + $3,
                                warnings = (SELECT coalesce(jsonb_agg(w), '[]') FROM (SELECT w FROM jsonb_array_elements(warnings || $4::jsonb) w LIMIT ${MAX_WARNINGS}) s)
          WHERE id = $1`,
        [jobId, outcome.chunkCount, outcome.embeddedChunkCount, JSON.stringify(outcome.warnings)],
      );
    });
  }

  /** Records a failed item with its error. */
  async itemFailed(jobId: string, ordinal: number, code: string, message: string): Promise<void> {
    await this.db.query(
      `UPDATE import_job_items SET status = 'FAILED', error_code = $3, error = $4, finished_at = now() WHERE job_id = $1 AND ordinal = $2`,
      [jobId, ordinal, code, message],
    );
  }

  /** Adds warnings to a job (the first MAX_WARNINGS are kept). */
  async addWarnings(jobId: string, warnings: readonly string[]): Promise<void> {
    await this.db.query(
      `UPDATE import_jobs SET warnings = (SELECT coalesce(jsonb_agg(w), '[]') FROM (SELECT w FROM jsonb_array_elements(warnings || $2::jsonb) w LIMIT ${MAX_WARNINGS}) s)
        WHERE id = $1`,
      [jobId, JSON.stringify(warnings)],
    );
  }

  /** Adds model tokens an extractGraph job spent. */
  async addExtractionTokens(jobId: string, tokens: number): Promise<void> {
    if (tokens > 0)
      await this.db.query(`UPDATE import_jobs SET extraction_tokens = extraction_tokens + $2 WHERE id = $1`, [
        jobId,
        tokens,
      ]);
  }

  /** Ends a dry run's items at once: the estimate is recorded and every document counts as done (nothing was sent). */
  async completeDryRun(jobId: string, estimate: ExtractionEstimate): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `UPDATE import_job_items SET status = 'SUCCEEDED', document_ids = ARRAY[label], finished_at = now()
          WHERE job_id = $1 AND status = 'PENDING'`,
        [jobId],
      );
      await tx.query(
        `UPDATE import_jobs SET extraction_estimate = $2, progress_done = progress_total, heartbeat_at = now() WHERE id = $1`,
        [jobId, JSON.stringify(estimate)],
      );
    });
  }

  /** Sets the progress counters. */
  async setProgress(jobId: string, done: number, total: number): Promise<void> {
    await this.db.query(
      `UPDATE import_jobs SET progress_done = $2, progress_total = $3, heartbeat_at = now() WHERE id = $1`,
      [jobId, done, total],
    );
  }

  /** Returns a job this runner stopped to the queue, its claim not counted, for any instance to continue. */
  async handBack(jobId: string, runnerId: string): Promise<boolean> {
    const result = await this.db.query(
      `UPDATE import_jobs SET status = 'QUEUED', runner_id = NULL, locked_until = NULL, attempts = greatest(attempts - 1, 0)
        WHERE id = $1 AND runner_id = $2 AND status = 'RUNNING'`,
      [jobId, runnerId],
    );
    return result.rowCount === 1;
  }

  /** Ends a job with a final status. */
  async finish(jobId: string, runnerId: string, status: ImportJobStatus): Promise<boolean> {
    // Only while this runner holds it: a runner that lost its lease must not overwrite the new holder's outcome.
    const result = await this.db.query(
      `UPDATE import_jobs SET status = $3, finished_at = now(), locked_until = NULL WHERE id = $1 AND runner_id = $2 AND status = 'RUNNING'`,
      [jobId, runnerId, status],
    );
    return result.rowCount === 1;
  }

  private async withItems(rows: JobRow[]): Promise<ImportJobRecord[]> {
    if (rows.length === 0) return [];
    const items = await this.db.query<ItemRow>(
      `SELECT job_id, ordinal, label, status, document_ids, error_code, error, finished_at
         FROM import_job_items WHERE job_id = ANY($1::text[]) ORDER BY job_id, ordinal`,
      [rows.map((r) => r.id)],
    );
    const byJob = new Map<string, ImportJobItemRecord[]>();
    for (const row of items.rows) {
      const list = byJob.get(row.job_id) ?? [];
      list.push(toItem(row));
      byJob.set(row.job_id, list);
    }
    return rows.map((row) => toJob(row, byJob.get(row.id) ?? []));
  }
}
