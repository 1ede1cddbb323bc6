import type { Queryable } from '../db/Db.js';
import { spaceSql, writeSpace } from '../db/spaceScope.js';
import { encodePair } from '../shared/cursor.js';
import type { Actor } from './actor.js';
import type {
  AuditChange,
  AuditEntryRecord,
  AuditFilterSpec,
  AuditPage,
  AuditState,
  AuditTargetKind,
} from './types.js';

interface AuditRow {
  id: string;
  at: Date;
  actor_key_id: string | null;
  actor_name: string;
  operation: string;
  target_kind: AuditTargetKind;
  target_ids: string[];
  before: AuditState | null;
  after: AuditState | null;
  undoes: string | null;
  undone_by: string | null;
  job_id: string | null;
}

const COLUMNS =
  'id::text AS id, at, actor_key_id, actor_name, operation, target_kind, target_ids, before, after, undoes::text AS undoes, undone_by::text AS undone_by, job_id';

function toRecord(r: AuditRow): AuditEntryRecord {
  return {
    id: r.id,
    at: r.at,
    actor: { keyId: r.actor_key_id, name: r.actor_name },
    operation: r.operation,
    targetKind: r.target_kind,
    targetIds: r.target_ids,
    before: r.before,
    after: r.after,
    undoes: r.undoes,
    undoneBy: r.undone_by,
    jobId: r.job_id,
  };
}

/** The audit_log table's owner. Entries belong to the space they were recorded in; reads see the request's only. */
export class AuditRepository {
  constructor(private readonly db: Queryable) {}

  /** Inserts changes in one statement (inside the caller's transaction when `q` is one); returns their ids in order. */
  async insert(
    changes: readonly AuditChange[],
    actor: Actor,
    jobId: string | undefined,
    q: Queryable = this.db,
  ): Promise<string[]> {
    if (changes.length === 0) return [];
    const { rows } = await q.query<{ id: string }>(
      `INSERT INTO audit_log (actor_key_id, actor_name, operation, target_kind, target_ids, before, after, undoes, job_id,
                              space_id)
       SELECT $1, $2, c.operation, c.target_kind, ARRAY(SELECT jsonb_array_elements_text(c.target_ids)), c.before, c.after,
              c.undoes::bigint, $4, $5
         FROM jsonb_to_recordset($3::jsonb)
              AS c(ord int, operation text, target_kind text, target_ids jsonb, before jsonb, after jsonb, undoes text)
        ORDER BY c.ord
       RETURNING id::text AS id`,
      [
        actor.keyId,
        actor.name,
        JSON.stringify(
          changes.map((c, ord) => ({
            ord,
            operation: c.operation,
            target_kind: c.targetKind,
            target_ids: c.targetIds,
            before: c.before,
            after: c.after,
            undoes: c.undoes ?? null,
          })),
        ),
        jobId ?? null,
        writeSpace(),
      ],
    );
    return rows.map((r) => r.id);
  }

  async get(id: string, q: Queryable = this.db): Promise<AuditEntryRecord | undefined> {
    if (!/^\d{1,18}$/.test(id)) return undefined;
    const params: unknown[] = [id];
    const { rows } = await q.query<AuditRow>(
      `SELECT ${COLUMNS} FROM audit_log WHERE id = $1::bigint AND ${spaceSql('audit_log', params)}`,
      params,
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** Locks an entry for an undo, so two undos of it take turns. */
  async lock(id: string, q: Queryable): Promise<AuditEntryRecord | undefined> {
    if (!/^\d{1,18}$/.test(id)) return undefined;
    const params: unknown[] = [id];
    const { rows } = await q.query<AuditRow>(
      `SELECT ${COLUMNS} FROM audit_log WHERE id = $1::bigint AND ${spaceSql('audit_log', params)} FOR UPDATE`,
      params,
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /**
   * The first change after entry `id` that touched any of `targetIds` and still stands: entries in `own` (the ones
   * being undone), entries undone since and the undos of entries after `id` cancel out and are passed over.
   */
  async laterTouching(
    id: string,
    targetIds: readonly string[],
    own: readonly string[] = [id],
    q: Queryable = this.db,
  ): Promise<AuditEntryRecord | undefined> {
    const params: unknown[] = [id, targetIds, own];
    const { rows } = await q.query<AuditRow>(
      `SELECT ${COLUMNS} FROM audit_log
        WHERE id > $1::bigint AND target_ids && $2::text[] AND NOT (id = ANY($3::bigint[]))
          AND undone_by IS NULL AND (undoes IS NULL OR undoes < $1::bigint) AND ${spaceSql('audit_log', params)}
        ORDER BY audit_log.id LIMIT 1`,
      params,
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** The entries job `jobId` recorded that stand (not undone, not undos themselves), oldest first. */
  async ofJob(jobId: string, q: Queryable = this.db): Promise<AuditEntryRecord[]> {
    const params: unknown[] = [jobId];
    const { rows } = await q.query<AuditRow>(
      `SELECT ${COLUMNS} FROM audit_log
        WHERE job_id = $1 AND undone_by IS NULL AND undoes IS NULL AND ${spaceSql('audit_log', params)}
        ORDER BY audit_log.id`,
      params,
    );
    return rows.map(toRecord);
  }

  async markUndone(id: string, undoneBy: string, q: Queryable = this.db): Promise<void> {
    const params: unknown[] = [id, undoneBy];
    await q.query(
      `UPDATE audit_log SET undone_by = $2::bigint WHERE id = $1::bigint AND ${spaceSql('audit_log', params)}`,
      params,
    );
  }

  /** A page of entries, newest first, after the position `after` (an id). */
  async list(filter: AuditFilterSpec, first: number, after: string | undefined): Promise<AuditPage> {
    const params: unknown[] = [];
    const where: string[] = [spaceSql('audit_log', params)];
    const add = (sql: (n: number) => string, value: unknown) => {
      params.push(value);
      where.push(sql(params.length));
    };
    if (filter.actor !== undefined) add((n) => `(actor_key_id = $${n} OR actor_name = $${n})`, filter.actor);
    if (filter.targetId !== undefined) add((n) => `target_ids @> ARRAY[$${n}::text]`, filter.targetId);
    if (filter.operation !== undefined) add((n) => `operation = $${n}`, filter.operation);
    if (filter.jobId !== undefined) add((n) => `job_id = $${n}`, filter.jobId);
    if (filter.from !== undefined) add((n) => `at >= $${n}`, filter.from);
    if (filter.to !== undefined) add((n) => `at < $${n}`, filter.to);
    const filtered = `WHERE ${where.join(' AND ')}`;
    const count = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_log ${filtered}`, params);
    const paged = [...where];
    if (after !== undefined) {
      params.push(after);
      paged.push(`id < $${params.length}::bigint`);
    }
    params.push(first + 1);
    const { rows } = await this.db.query<AuditRow>(
      `SELECT ${COLUMNS} FROM audit_log WHERE ${paged.join(' AND ')}
        ORDER BY audit_log.id DESC LIMIT $${params.length}`,
      params,
    );
    return {
      rows: rows.slice(0, first).map((r) => ({ cursor: encodePair('audit', r.id), entry: toRecord(r) })),
      hasNextPage: rows.length > first,
      totalCount: count.rows[0]?.n ?? 0,
    };
  }

  /** Deletes a space's entries (its deletion); returns how many. */
  async deleteSpace(space: string): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM audit_log WHERE space_id = $1', [space]);
    return rowCount;
  }

  /** Deletes entries older than `before`; returns how many. */
  async deleteOlderThan(before: Date): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM audit_log WHERE at < $1', [before]);
    return rowCount;
  }
}
