import type { Logger } from '../logger.js';
import type { Db, Queryable } from './Db.js';

/** A replica's state as the last check saw it. */
export type ReplicaState = 'up' | 'lagging' | 'down' | 'not a standby';

/** One read replica: its pool and what the checks know of it. */
export interface Replica {
  /** host:port/database, without credentials (logs, /readyz). */
  readonly name: string;
  readonly db: Db;
  state: ReplicaState;
  /** WAL position (bytes) the replica had replayed at the last check. */
  replayed: bigint;
  lagMs: number;
  /** Why it is down. */
  error?: string;
  /** Statements it served since start. */
  reads: number;
}

/** Settings of `ReplicaSet`. */
export interface ReplicaSetOptions {
  maxLagMs: number;
  checkMs: number;
  logger: Logger;
  /** The clock lag is measured on (tests inject one). */
  now?: () => Date;
}

/** The WAL position a server reports, in bytes (`pg_lsn - '0/0'` is numeric). */
const lsnOf = (value: unknown): bigint => BigInt(String(value ?? '0').split('.')[0] ?? '0');

/** Most primary positions remembered for measuring lag (at the default check interval, over an hour). */
const MAX_SAMPLES = 4096;

/**
 * The read replicas of one primary and their health. Every `checkMs` it reads the primary's WAL position and each
 * replica's replayed position. A replica's lag is the time since the primary first stood past the position the replica
 * has replayed, on this process's clock (a replica's replay timestamp would count an idle primary as lag). A replica
 * more than `maxLagMs` behind, unreachable or not in recovery is skipped until a later check finds it well.
 */
export class ReplicaSet {
  /** Primary positions seen by the checks, oldest first. */
  private samples: { at: number; lsn: bigint }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private next = 0;
  private readonly now: () => number;

  constructor(
    private readonly primary: Queryable,
    readonly replicas: readonly Replica[],
    private readonly options: ReplicaSetOptions,
  ) {
    const clock = options.now;
    this.now = clock ? () => clock().getTime() : Date.now;
  }

  /** Checks now, then every `checkMs` in the background. */
  async start(): Promise<void> {
    await this.check();
    this.timer = setInterval(() => void this.check(), this.options.checkMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The primary's current WAL insert position: a client's writes so far are all at or before it. */
  async primaryPosition(): Promise<bigint> {
    const { rows } = await this.primary.query<{ lsn: string }>(
      "SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::text AS lsn",
    );
    return lsnOf(rows[0]?.lsn);
  }

  /** One round of checks (the timer runs it; tests call it to step an injected clock). */
  async check(): Promise<void> {
    try {
      const { rows } = await this.primary.query<{ lsn: string }>(
        "SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::text AS lsn",
      );
      this.samples.push({ at: this.now(), lsn: lsnOf(rows[0]?.lsn) });
    } catch {
      // The primary's own readiness check reports it; replicas keep their last state.
      return;
    }
    await Promise.all(this.replicas.map((r) => this.checkReplica(r)));
    this.forgetSamples();
  }

  private async checkReplica(replica: Replica): Promise<void> {
    const before = replica.state;
    try {
      const { rows } = await replica.db.query<{ standby: boolean; replayed: string | null }>(
        "SELECT pg_is_in_recovery() AS standby, (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::text AS replayed",
      );
      const row = rows[0];
      if (!row?.standby || row.replayed === null) {
        this.setState(replica, 'not a standby', before, 'pg_is_in_recovery() is false: not a streaming replica');
        return;
      }
      replica.replayed = lsnOf(row.replayed);
      const ahead = this.samples.find((s) => s.lsn > replica.replayed);
      replica.lagMs = ahead ? Math.max(0, this.now() - ahead.at) : 0;
      this.setState(replica, replica.lagMs > this.options.maxLagMs ? 'lagging' : 'up', before);
    } catch (err) {
      this.markDown(replica, err);
    }
  }

  /** Takes a replica out of service after a failed statement; the next successful check brings it back. */
  markDown(replica: Replica, err: unknown): void {
    this.setState(replica, 'down', replica.state, err instanceof Error ? err.message : String(err));
  }

  private setState(replica: Replica, state: ReplicaState, before: ReplicaState, error?: string): void {
    replica.state = state;
    replica.error = error;
    if (state === before) return;
    const fields = { replica: replica.name, lagMs: replica.lagMs, ...(error ? { err: error } : {}) };
    if (state === 'up') this.options.logger.info(fields, 'read replica in service');
    else this.options.logger.warn(fields, `read replica skipped: ${state}`);
  }

  /** Drops samples older than what the furthest-behind replica still needs (keeping the newest). */
  private forgetSamples(): void {
    const oldest = this.replicas.reduce<bigint | undefined>(
      (min, r) => (r.state === 'down' || (min !== undefined && min <= r.replayed) ? min : r.replayed),
      undefined,
    );
    const firstNeeded = oldest === undefined ? -1 : this.samples.findIndex((s) => s.lsn > oldest);
    const keepFrom = firstNeeded < 0 ? this.samples.length - 1 : firstNeeded;
    this.samples = this.samples.slice(Math.max(keepFrom, this.samples.length - MAX_SAMPLES));
  }

  /**
   * A replica in service that had replayed `atLeast` at its last check (any in service without it), taking turns;
   * undefined when none qualifies.
   */
  pick(atLeast?: bigint): Replica | undefined {
    const usable = this.replicas.filter((r) => r.state === 'up' && (atLeast === undefined || r.replayed >= atLeast));
    if (usable.length === 0) return undefined;
    this.next = (this.next + 1) % usable.length;
    return usable[this.next];
  }

  /** Asks a replica now whether it has replayed `position` (a client's write newer than its last check). */
  async hasReplayed(replica: Replica, position: bigint): Promise<boolean> {
    const { rows } = await replica.db.query<{ replayed: string | null }>(
      "SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::text AS replayed",
    );
    const replayed = rows[0]?.replayed;
    if (replayed === null || replayed === undefined) return false;
    replica.replayed = lsnOf(replayed) > replica.replayed ? lsnOf(replayed) : replica.replayed;
    return replica.replayed >= position;
  }

  /** The smallest position every replica in service has replayed (undefined when none is). */
  replayedByAll(): bigint | undefined {
    return this.replicas
      .filter((r) => r.state === 'up')
      .reduce<bigint | undefined>((min, r) => (min === undefined || r.replayed < min ? r.replayed : min), undefined);
  }

  async close(): Promise<void> {
    this.stop();
    await Promise.all(this.replicas.map((r) => r.db.close()));
  }
}
