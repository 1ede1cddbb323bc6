import type { ExtractionSummary } from './jobPort.js';
import type { Db, Queryable } from '../db/Db.js';
import { spaceSql, writeSpace } from '../db/spaceScope.js';
import type { ExtractionStatusCounts, ExtractorName } from './types.js';

/** A document's extraction state, as `documentState` reports it. */
export type ExtractionStatus = 'PENDING' | 'RUNNING' | 'DONE' | 'FAILED' | 'REMOVED';

/** One row of extraction_documents. */
export interface ExtractionState {
  documentId: string;
  status: ExtractionStatus;
  requestedAt: Date;
  attempts: number;
  jobId: string | null;
  extractors: ExtractorName[] | null;
  error: string | null;
  warnings: string[];
  entityCount: number;
  relationshipCount: number;
  extractedAt: Date | null;
}

/** A document a worker took: `token` (the request time) tells whether it was requested again meanwhile. */
export interface ClaimedDocument {
  documentId: string;
  removed: boolean;
  token: string;
  jobId: string | null;
  extractors: ExtractorName[] | null;
  attempts: number;
  /** The document's space: its extraction reads and writes there. */
  space: string;
}

/** What a finished extraction records. */
export interface ExtractionResult {
  status: 'DONE' | 'FAILED';
  error?: string;
  warnings: string[];
  entities: number;
  relationships: number;
}

interface StateRow {
  document_id: string;
  status: ExtractionStatus;
  requested_at: Date | string;
  attempts: number;
  job_id: string | null;
  extractors: ExtractorName[] | null;
  error: string | null;
  warnings: string[];
  entity_count: number;
  relationship_count: number;
  extracted_at: Date | string | null;
}

const toDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

/**
 * The extraction_documents table: one row per written document, whose PENDING and REMOVED rows (and RUNNING rows
 * whose lease ran out) are the durable queue several instances share.
 */
export class ExtractionQueueRepository {
  constructor(private readonly db: Db) {}

  /**
   * Queues documents (in the caller's transaction: a write and its queue row commit together) in the running space,
   * which wrote them (a request's, or a job's). One statement.
   */
  async enqueue(
    q: Queryable,
    documentIds: readonly string[],
    options: { jobId?: string | null; extractors?: readonly ExtractorName[] | null } = {},
  ): Promise<void> {
    if (documentIds.length === 0) return;
    // A row being extracted keeps its lease (its worker sees the new request time and releases it when done).
    await q.query(
      `INSERT INTO extraction_documents (document_id, status, job_id, extractors, space_id)
       SELECT DISTINCT x, 'PENDING', $2::text, $3::text[], $4::text FROM unnest($1::text[]) AS x
       ON CONFLICT (document_id) DO UPDATE SET status = 'PENDING', requested_at = clock_timestamp(), attempts = 0,
              space_id = EXCLUDED.space_id,
              job_id = EXCLUDED.job_id, extractors = EXCLUDED.extractors, error = NULL,
              locked_until = CASE WHEN extraction_documents.status = 'RUNNING' THEN extraction_documents.locked_until END`,
      [documentIds, options.jobId ?? null, options.extractors ?? null, writeSpace()],
    );
  }

  /**
   * Queues the clean-up of a deleted document (in the delete's transaction), in the space its row was queued in: a
   * delete outside any request (the expiry sweep) must clean up in the document's space, not in `default`.
   */
  async markRemoved(q: Queryable, documentId: string): Promise<void> {
    await q.query(
      `INSERT INTO extraction_documents (document_id, status, space_id) VALUES ($1, 'REMOVED', $2)
       ON CONFLICT (document_id) DO UPDATE SET status = 'REMOVED', requested_at = clock_timestamp(), attempts = 0,
              error = NULL, job_id = NULL, extractors = NULL,
              locked_until = CASE WHEN extraction_documents.status = 'RUNNING' THEN extraction_documents.locked_until END`,
      [documentId, writeSpace()],
    );
  }

  /**
   * Takes up to `limit` queued documents (oldest request first) until `until`: PENDING and REMOVED rows, and rows
   * whose lease ran out before `now` (their instance died). SKIP LOCKED keeps instances from taking the same row.
   * Rows claimed `maxAttempts` times already are marked FAILED instead.
   */
  async claim(now: Date, until: Date, limit: number, maxAttempts: number): Promise<ClaimedDocument[]> {
    await this.db.query(
      `UPDATE extraction_documents SET status = 'FAILED', locked_until = NULL,
              error = 'extraction stopped ' || attempts || ' times before it finished (the instance died or timed out); write the document again to retry'
        WHERE status IN ('PENDING', 'RUNNING', 'REMOVED') AND locked_until < $1 AND attempts >= $2`,
      [now, maxAttempts],
    );
    const { rows } = await this.db.query<{
      document_id: string;
      status: ExtractionStatus;
      token: string;
      job_id: string | null;
      extractors: ExtractorName[] | null;
      attempts: number;
      space_id: string;
    }>(
      `WITH next AS (
         SELECT document_id FROM extraction_documents
          WHERE status IN ('PENDING', 'RUNNING', 'REMOVED') AND coalesce(locked_until, '-infinity') < $1
          ORDER BY requested_at, document_id LIMIT $3 FOR UPDATE SKIP LOCKED)
       UPDATE extraction_documents d SET status = CASE WHEN d.status = 'REMOVED' THEN 'REMOVED' ELSE 'RUNNING' END,
              locked_until = $2, attempts = d.attempts + 1
         FROM next WHERE d.document_id = next.document_id
       RETURNING d.document_id, d.status, d.requested_at::text AS token, d.job_id, d.extractors, d.attempts, d.space_id`,
      [now, until, limit],
    );
    return rows.map((r) => ({
      documentId: r.document_id,
      removed: r.status === 'REMOVED',
      token: r.token,
      jobId: r.job_id,
      extractors: r.extractors,
      attempts: r.attempts,
      space: r.space_id,
    }));
  }

  /** Extends the leases of documents a worker holds; returns those it still holds. */
  async renew(documentIds: readonly string[], until: Date): Promise<string[]> {
    if (documentIds.length === 0) return [];
    const { rows } = await this.db.query<{ document_id: string }>(
      `UPDATE extraction_documents SET locked_until = $2
        WHERE document_id = ANY($1::text[]) AND locked_until IS NOT NULL RETURNING document_id`,
      [documentIds, until],
    );
    return rows.map((r) => r.document_id);
  }

  /**
   * Records the outcome of a claim, unless the document was requested again meanwhile (then it is released for the
   * next run instead). A finished REMOVED row is deleted: the document is gone and so are the facts it alone supported.
   */
  async finish(claim: ClaimedDocument, result: ExtractionResult): Promise<void> {
    await this.finishMany([{ claim, result }]);
  }

  /** Records the outcomes of several claims (see `finish`): three statements for any number. */
  async finishMany(finished: readonly { claim: ClaimedDocument; result: ExtractionResult }[]): Promise<void> {
    if (finished.length === 0) return;
    const removed = finished.filter((f) => f.claim.removed).map((f) => f.claim);
    const done = finished.filter((f) => !f.claim.removed);
    if (removed.length > 0)
      await this.db.query(
        `DELETE FROM extraction_documents d USING unnest($1::text[], $2::text[]) AS x(id, token)
          WHERE d.document_id = x.id AND d.status = 'REMOVED' AND d.requested_at = x.token::timestamptz`,
        [removed.map((c) => c.documentId), removed.map((c) => c.token)],
      );
    if (done.length > 0)
      await this.db.query(
        `UPDATE extraction_documents d SET status = x.status, error = x.error, warnings = x.warnings::jsonb,
                entity_count = x.entities, relationship_count = x.relationships, extracted_at = now(), locked_until = NULL
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int[])
                AS x(id, token, status, error, warnings, entities, relationships)
          WHERE d.document_id = x.id AND d.status = 'RUNNING' AND d.requested_at = x.token::timestamptz`,
        [
          done.map((f) => f.claim.documentId),
          done.map((f) => f.claim.token),
          done.map((f) => f.result.status),
          done.map((f) => f.result.error?.slice(0, 2000) ?? null),
          done.map((f) => JSON.stringify(f.result.warnings.slice(0, 50))),
          done.map((f) => f.result.entities),
          done.map((f) => f.result.relationships),
        ],
      );
    await this.release(finished.map((f) => f.claim.documentId));
  }

  /** The document's request time as a claim token (null: never queued), read before an extraction outside the queue. */
  async requestToken(documentId: string): Promise<string | null> {
    const { rows } = await this.db.query<{ token: string }>(
      'SELECT requested_at::text AS token FROM extraction_documents WHERE document_id = $1',
      [documentId],
    );
    return rows[0]?.token ?? null;
  }

  /**
   * Records an extraction run outside the queue (an extractGraph job), unless the document was requested again since
   * `token` (its new request stays queued), a worker holds it, or it was deleted.
   */
  async recordOutcome(documentId: string, token: string | null, result: ExtractionResult): Promise<void> {
    await this.db.query(
      `INSERT INTO extraction_documents
              (document_id, status, error, warnings, entity_count, relationship_count, extracted_at, space_id)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6, now(), $8)
       ON CONFLICT (document_id) DO UPDATE SET status = EXCLUDED.status, error = EXCLUDED.error,
              warnings = EXCLUDED.warnings, entity_count = EXCLUDED.entity_count,
              relationship_count = EXCLUDED.relationship_count, extracted_at = EXCLUDED.extracted_at, attempts = 0,
              locked_until = NULL
        WHERE extraction_documents.status <> 'REMOVED'
          AND NOT (extraction_documents.status = 'RUNNING' AND extraction_documents.locked_until > now())
          AND extraction_documents.requested_at IS NOT DISTINCT FROM $7::timestamptz`,
      [
        documentId,
        result.status,
        result.error?.slice(0, 2000) ?? null,
        JSON.stringify(result.warnings.slice(0, 50)),
        result.entities,
        result.relationships,
        token,
        writeSpace(),
      ],
    );
  }

  /**
   * Gives a claim back after an error that may pass (the database or graph store was away): queued again, taken no
   * sooner than `retryAt`. After `maxAttempts` claims the next claim marks it FAILED.
   */
  async retryLater(claim: ClaimedDocument, error: string, retryAt: Date): Promise<void> {
    await this.db.query(
      `UPDATE extraction_documents SET status = CASE WHEN status = 'REMOVED' THEN 'REMOVED' ELSE 'PENDING' END,
              error = $2, locked_until = $3 WHERE document_id = $1 AND requested_at = $4::timestamptz`,
      [claim.documentId, error.slice(0, 2000), retryAt, claim.token],
    );
  }

  /** Lets others take a row requested again while it was being extracted. */
  private async release(documentIds: readonly string[]): Promise<void> {
    await this.db.query(
      `UPDATE extraction_documents SET locked_until = NULL
        WHERE document_id = ANY($1::text[]) AND status IN ('PENDING', 'REMOVED')`,
      [documentIds],
    );
  }

  /** Ends every lease now: this process owns the database alone (PGlite), so their holder is gone. */
  async expireAllLeases(): Promise<number> {
    const { rowCount } = await this.db.query(
      `UPDATE extraction_documents SET locked_until = '-infinity' WHERE locked_until IS NOT NULL AND status <> 'DONE'`,
    );
    return rowCount;
  }

  /** The request's space's documents by state (REMOVED rows count as pending: their clean-up is queued). */
  async statusCounts(): Promise<ExtractionStatusCounts> {
    const params: unknown[] = [];
    const { rows } = await this.db.query<{ status: ExtractionStatus; n: number }>(
      `SELECT status, count(*)::int AS n FROM extraction_documents x WHERE ${spaceSql('x', params)} GROUP BY status`,
      params,
    );
    const n = (s: ExtractionStatus) => rows.find((r) => r.status === s)?.n ?? 0;
    return { pending: n('PENDING') + n('REMOVED'), running: n('RUNNING'), done: n('DONE'), failed: n('FAILED') };
  }

  /** Documents by state with the entities and relationships they support, over these ids (deleted ones left out). */
  async summary(documentIds: readonly string[]): Promise<ExtractionSummary> {
    const params: unknown[] = [[...new Set(documentIds)]];
    const { rows } = await this.db.query<{ status: ExtractionStatus; n: number; e: number; r: number }>(
      `SELECT status, count(*)::int AS n, coalesce(sum(entity_count), 0)::int AS e,
              coalesce(sum(relationship_count), 0)::int AS r
         FROM extraction_documents x
        WHERE document_id = ANY($1::text[]) AND status <> 'REMOVED' AND ${spaceSql('x', params)} GROUP BY status`,
      params,
    );
    const n = (s: ExtractionStatus) => rows.find((r) => r.status === s)?.n ?? 0;
    return {
      pending: n('PENDING'),
      running: n('RUNNING'),
      done: n('DONE'),
      failed: n('FAILED'),
      entities: rows.reduce((sum, r) => sum + Number(r.e), 0),
      relationships: rows.reduce((sum, r) => sum + Number(r.r), 0),
    };
  }

  /** Documents' states by id (documents never queued are absent). */
  async states(documentIds: readonly string[]): Promise<Map<string, ExtractionState>> {
    const params: unknown[] = [[...new Set(documentIds)]];
    const { rows } = await this.db.query<StateRow>(
      `SELECT document_id, status, requested_at, attempts, job_id, extractors, error, warnings, entity_count,
              relationship_count, extracted_at FROM extraction_documents x
        WHERE document_id = ANY($1::text[]) AND ${spaceSql('x', params)}`,
      params,
    );
    return new Map(rows.map((r) => [r.document_id, toState(r)]));
  }

  /** One document's state, or undefined when it was never queued. */
  async state(documentId: string): Promise<ExtractionState | undefined> {
    return (await this.states([documentId])).get(documentId);
  }
}

function toState(r: StateRow): ExtractionState {
  return {
    documentId: r.document_id,
    status: r.status,
    requestedAt: toDate(r.requested_at),
    attempts: r.attempts,
    jobId: r.job_id,
    extractors: r.extractors,
    error: r.error,
    warnings: r.warnings,
    entityCount: r.entity_count,
    relationshipCount: r.relationship_count,
    extractedAt: r.extracted_at === null ? null : toDate(r.extracted_at),
  };
}
