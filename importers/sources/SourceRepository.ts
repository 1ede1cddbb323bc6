import {
  spaceSql,
  toDate,
  toDateOrNull,
  writeSpace,
  type Db,
  type DocumentTypeName,
  type ExtractorName,
} from '../../src/importerPort.js';
import type { JsonObject } from '../../src/shared/json.js';
import type {
  NewSource,
  SourceConfig,
  SourceItemRecord,
  SourceRecord,
  SourceStatus,
  StoredDeployKey,
  SyncCounts,
} from './types.js';

interface SourceRow {
  id: string;
  space_id: string;
  name: string;
  kind: SourceConfig['kind'];
  config: JsonObject;
  tags: string[];
  document_type: DocumentTypeName | null;
  extractors: ExtractorName[] | null;
  schedule: string | null;
  sync_timeout_ms: number;
  status: SourceStatus;
  state: JsonObject;
  last_job_id: string | null;
  last_run_at: Date | string | null;
  last_finished_at: Date | string | null;
  next_run_at: Date | string | null;
  last_error: string | null;
  last_error_code: string | null;
  added_count: number;
  updated_count: number;
  removed_count: number;
  unchanged_count: number;
  skipped_count: number;
  created_at: Date | string;
  updated_at: Date | string;
  deploy_key: StoredDeployKey | null;
  ssh_known_hosts: string | null;
}

function toSource(row: SourceRow): SourceRecord {
  return {
    ...({ kind: row.kind, config: row.config } as unknown as SourceConfig),
    id: row.id,
    space: row.space_id,
    name: row.name,
    tags: row.tags,
    documentType: row.document_type,
    extractors: row.extractors,
    schedule: row.schedule,
    syncTimeoutMs: row.sync_timeout_ms,
    status: row.status,
    state: row.state,
    lastJobId: row.last_job_id,
    lastRunAt: toDateOrNull(row.last_run_at),
    lastFinishedAt: toDateOrNull(row.last_finished_at),
    nextRunAt: toDateOrNull(row.next_run_at),
    lastError: row.last_error,
    lastErrorCode: row.last_error_code,
    counts: {
      added: row.added_count,
      updated: row.updated_count,
      removed: row.removed_count,
      unchanged: row.unchanged_count,
      skipped: row.skipped_count,
    },
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    deployKey: row.deploy_key,
    sshKnownHosts: row.ssh_known_hosts,
  };
}

/** The outcome of one sync, recorded on its source. */
export interface SyncResult {
  status: Exclude<SourceStatus, 'NEVER_SYNCED' | 'SYNCING'>;
  counts: SyncCounts;
  error: { code: string; message: string } | null;
  /** What the sync reached, for the next one (undefined keeps the old state: a failed sync reached nothing). */
  state?: JsonObject;
  finishedAt: Date;
}

/** Reads and writes `sources` and `source_items` (the sources module's own tables). */
export class SourceRepository {
  constructor(private readonly db: Db) {}

  async create(id: string, source: NewSource, nextRunAt: Date | null): Promise<SourceRecord> {
    const { rows } = await this.db.query<SourceRow>(
      `INSERT INTO sources (id, name, kind, config, tags, document_type, schedule, sync_timeout_ms, next_run_at, deploy_key, ssh_known_hosts, extractors, space_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING *`,
      [id, ...settingValues(source, nextRunAt), writeSpace()],
    );
    return toSource(rows[0] as SourceRow);
  }

  /** A source of the request's space (any space outside a request), or undefined. */
  async get(id: string): Promise<SourceRecord | undefined> {
    const params: unknown[] = [id];
    const { rows } = await this.db.query<SourceRow>(
      `SELECT * FROM sources s WHERE id = $1 AND ${spaceSql('s', params)}`,
      params,
    );
    return rows[0] && toSource(rows[0]);
  }

  async getByName(name: string): Promise<SourceRecord | undefined> {
    const params: unknown[] = [name];
    const { rows } = await this.db.query<SourceRow>(
      `SELECT * FROM sources s WHERE name = $1 AND ${spaceSql('s', params)}`,
      params,
    );
    return rows[0] && toSource(rows[0]);
  }

  /** Every source of the request's space, by name. */
  async list(): Promise<SourceRecord[]> {
    const params: unknown[] = [];
    const { rows } = await this.db.query<SourceRow>(
      `SELECT * FROM sources s WHERE ${spaceSql('s', params)} ORDER BY name`,
      params,
    );
    return rows.map(toSource);
  }

  /** Replaces a source's settings (the caller merged the patch) and its next run. */
  async update(source: SourceRecord, nextRunAt: Date | null): Promise<SourceRecord | undefined> {
    const { rows } = await this.db.query<SourceRow>(
      `UPDATE sources SET name = $2, kind = $3, config = $4, tags = $5, document_type = $6, schedule = $7, sync_timeout_ms = $8,
                          next_run_at = $9, deploy_key = $10, ssh_known_hosts = $11, extractors = $12, updated_at = now()
        WHERE id = $1 RETURNING *`,
      [source.id, ...settingValues(source, nextRunAt)],
    );
    return rows[0] && toSource(rows[0]);
  }

  /** Records the ssh host keys a source learned on first contact, unless some were recorded meanwhile. */
  async learnKnownHosts(id: string, knownHosts: string): Promise<void> {
    await this.db.query('UPDATE sources SET ssh_known_hosts = $2 WHERE id = $1 AND ssh_known_hosts IS NULL', [
      id,
      knownHosts,
    ]);
  }

  /** Replaces a deploy key sealed under a previous CAIRN_SECRET_KEY with the same key sealed under the current one. */
  async resealDeployKey(id: string, stale: StoredDeployKey, fresh: StoredDeployKey): Promise<void> {
    await this.db.query(`UPDATE sources SET deploy_key = $3 WHERE id = $1 AND deploy_key->'sealed'->>'data' = $2`, [
      id,
      stale.sealed.data,
      JSON.stringify(fresh),
    ]);
  }

  async delete(id: string): Promise<boolean> {
    const params: unknown[] = [id];
    const { rowCount } = await this.db.query(
      `DELETE FROM sources s WHERE id = $1 AND ${spaceSql('s', params)}`,
      params,
    );
    return rowCount > 0;
  }

  /** Records the job now syncing the source. */
  async markQueued(id: string, jobId: string): Promise<void> {
    await this.db.query(`UPDATE sources SET last_job_id = $2 WHERE id = $1`, [id, jobId]);
  }

  /** Records that a sync started. */
  async markStarted(id: string, jobId: string, at: Date): Promise<void> {
    await this.db.query(`UPDATE sources SET status = 'SYNCING', last_job_id = $2, last_run_at = $3 WHERE id = $1`, [
      id,
      jobId,
      at,
    ]);
  }

  /** Records how a sync ended. */
  async markFinished(id: string, result: SyncResult): Promise<void> {
    const c = result.counts;
    await this.db.query(
      `UPDATE sources SET status = $2, added_count = $3, updated_count = $4, removed_count = $5, unchanged_count = $6, skipped_count = $7,
                          last_error_code = $8, last_error = $9, last_finished_at = $10, state = coalesce($11::jsonb, state)
        WHERE id = $1`,
      [
        id,
        result.status,
        c.added,
        c.updated,
        c.removed,
        c.unchanged,
        c.skipped,
        result.error?.code ?? null,
        result.error?.message ?? null,
        result.finishedAt,
        result.state ? JSON.stringify(result.state) : null,
      ],
    );
  }

  /** Sources with this status. */
  async withStatus(status: SourceStatus): Promise<SourceRecord[]> {
    const { rows } = await this.db.query<SourceRow>('SELECT * FROM sources WHERE status = $1', [status]);
    return rows.map(toSource);
  }

  /** Sources whose next run is due at `now`. */
  async due(now: Date): Promise<SourceRecord[]> {
    const { rows } = await this.db.query<SourceRow>(
      'SELECT * FROM sources WHERE next_run_at <= $1 ORDER BY next_run_at, id',
      [now],
    );
    return rows.map(toSource);
  }

  /** Moves a due run to `next` if no other process did first; true when this caller won it. */
  async claimRun(id: string, expected: Date, next: Date | null): Promise<boolean> {
    const { rowCount } = await this.db.query('UPDATE sources SET next_run_at = $3 WHERE id = $1 AND next_run_at = $2', [
      id,
      expected,
      next,
    ]);
    return rowCount === 1;
  }

  /** What the last finished import of each item recorded, by key. */
  async items(sourceId: string): Promise<Map<string, SourceItemRecord>> {
    const { rows } = await this.db.query<{
      key: string;
      fingerprint: string;
      document_ids: string[];
      state: JsonObject;
    }>('SELECT key, fingerprint, document_ids, state FROM source_items WHERE source_id = $1', [sourceId]);
    return new Map(
      rows.map((r) => [r.key, { key: r.key, fingerprint: r.fingerprint, documentIds: r.document_ids, state: r.state }]),
    );
  }

  async saveItem(sourceId: string, item: SourceItemRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO source_items (source_id, key, fingerprint, document_ids, state) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (source_id, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, document_ids = EXCLUDED.document_ids,
                                                  state = EXCLUDED.state, synced_at = now()`,
      [sourceId, item.key, item.fingerprint, item.documentIds, JSON.stringify(item.state)],
    );
  }

  /**
   * Forgets what the items that wrote these documents were synced from (fingerprint and state), so the next sync of
   * their source imports them again; returns how many items.
   */
  async forgetItemsWriting(documentIds: readonly string[]): Promise<number> {
    if (documentIds.length === 0) return 0;
    const { rowCount } = await this.db.query(
      `UPDATE source_items SET fingerprint = '', state = '{}'::jsonb WHERE document_ids && $1::text[]`,
      [[...new Set(documentIds)]],
    );
    return rowCount ?? 0;
  }

  async deleteItem(sourceId: string, key: string): Promise<void> {
    await this.db.query('DELETE FROM source_items WHERE source_id = $1 AND key = $2', [sourceId, key]);
  }
}

/** A source's stored settings in the column order of `create` and `update` ($2 to $12). */
function settingValues(source: NewSource, nextRunAt: Date | null): unknown[] {
  return [
    source.name,
    source.kind,
    JSON.stringify(source.config),
    source.tags,
    source.documentType,
    source.schedule,
    source.syncTimeoutMs,
    nextRunAt,
    source.deployKey ? JSON.stringify(source.deployKey) : null,
    source.sshKnownHosts,
    source.extractors,
  ];
}
