import type { Db } from '../db/Db.js';
import { outsideRequest } from '../db/readRoute.js';
import { spaceSql, writeSpace } from '../db/spaceScope.js';
import { decodePair, encodePair } from '../shared/cursor.js';
import { badInput } from '../errors.js';
import type { DocumentFilterSpec } from '../documents/types.js';

/** A query the knowledge base answered poorly, grouped by its normalised text. */
export interface KnowledgeGapRecord {
  query: string;
  count: number;
  bestScore: number;
  lastSeenAt: Date;
}

/** Lower-case, punctuation-free, single-spaced: "Why does ACH fail?" and "why does ach fail" group together. */
export function normalizeQuery(query: string): string {
  return query
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Gaps recorded in one INSERT at most this often (ms), and as soon as this many wait. */
const FLUSH_MS = 1000;
const FLUSH_ROWS = 200;

interface PendingGap {
  query: string;
  normalized: string;
  bestScore: number;
  filters: string;
  /** The request's space (the write runs outside the request). */
  space: string;
  /** When it was recorded (its created_at: a listing as of a time sees the gaps recorded before it, written or not). */
  at: string;
}

/**
 * Stores and lists knowledge gaps, each in the space of the request that recorded it. A weak enrichContext call records its gap in memory and returns; the gaps of the
 * last second go to Postgres in one INSERT (every call's own INSERT cost the primary a statement and a WAL flush).
 * Listing writes the pending ones first, so this instance lists every gap it recorded; `close` writes the rest.
 */
export class KnowledgeGapRepository {
  private pending: PendingGap[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  /** Records one poorly answered query (written within FLUSH_MS; see the class comment). */
  async record(query: string, bestScore: number, filter: DocumentFilterSpec): Promise<void> {
    this.pending.push({
      query: query.slice(0, 2000),
      normalized: normalizeQuery(query).slice(0, 2000),
      bestScore,
      filters: JSON.stringify(filter),
      space: writeSpace(),
      at: new Date().toISOString(),
    });
    if (this.pending.length >= FLUSH_ROWS) void outsideRequest(() => this.flush()).catch(this.onError);
    else
      this.timer ??= outsideRequest(() =>
        setTimeout(() => {
          this.timer = undefined;
          void this.flush().catch(this.onError);
        }, FLUSH_MS),
      );
  }

  /** Deletes a space's gaps, pending ones included (its deletion); returns how many were stored. */
  async deleteSpace(space: string): Promise<number> {
    this.pending = this.pending.filter((p) => p.space !== space);
    await this.flushing.catch(() => undefined);
    const { rowCount } = await this.db.query('DELETE FROM knowledge_gaps WHERE space_id = $1', [space]);
    return rowCount;
  }

  /** Writes what is pending before shutdown (a failure goes to `onError`). */
  close(): Promise<void> {
    return this.flush().catch(this.onError);
  }

  /** Writes the pending gaps now, in one statement, after any write already under way. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.pending;
    this.pending = [];
    const previous = this.flushing;
    const write = async () => {
      await previous.catch(() => undefined);
      if (rows.length === 0) return;
      await this.db.query(
        `INSERT INTO knowledge_gaps (query, normalized, best_score, filters, created_at, space_id)
         SELECT * FROM unnest($1::text[], $2::text[], $3::float8[], $4::jsonb[], $5::timestamptz[], $6::text[])`,
        [
          rows.map((r) => r.query),
          rows.map((r) => r.normalized),
          rows.map((r) => r.bestScore),
          rows.map((r) => r.filters),
          rows.map((r) => r.at),
          rows.map((r) => r.space),
        ],
      );
    };
    this.flushing = write();
    await this.flushing;
  }

  /**
   * Gaps grouped by normalised query, most frequent first, then most recent, as they stood at `asOf`: agents keep
   * recording gaps, which changes counts and order, so every page of one listing reads the same snapshot and the
   * listing neither repeats nor skips a group. Pages continue after `after`, the previous page's last position. Only
   * the request's space's gaps count.
   */
  async list(
    first: number,
    asOf: Date,
    after?: GapPosition,
  ): Promise<{ gaps: (KnowledgeGapRecord & { position: GapPosition })[]; totalCount: number }> {
    await this.flush();
    const pageParams: unknown[] = [
      asOf.toISOString(),
      after?.count ?? null,
      after?.lastSeen ?? null,
      after?.normalized ?? null,
      first,
    ];
    const totalParams: unknown[] = [asOf.toISOString()];
    const [page, total] = await Promise.all([
      this.db.query<{
        query: string;
        count: number;
        best_score: number;
        last_seen_at: Date | string;
        last_seen_key: string;
        normalized: string;
      }>(
        `SELECT (array_agg(query ORDER BY created_at DESC))[1] AS query, count(*)::int AS count,
                max(best_score)::float8 AS best_score, max(created_at) AS last_seen_at,
                max(created_at)::text AS last_seen_key, normalized
           FROM knowledge_gaps g WHERE created_at <= $1::timestamptz AND ${spaceSql('g', pageParams)}
          GROUP BY normalized
         HAVING $2::int IS NULL OR count(*) < $2::int
             OR (count(*) = $2::int AND (max(created_at) < $3::timestamptz OR (max(created_at) = $3::timestamptz AND normalized > $4::text)))
          ORDER BY count(*) DESC, max(created_at) DESC, normalized LIMIT $5`,
        pageParams,
      ),
      this.db.query<{ n: number }>(
        `SELECT count(DISTINCT normalized)::int AS n FROM knowledge_gaps g
          WHERE created_at <= $1::timestamptz AND ${spaceSql('g', totalParams)}`,
        totalParams,
      ),
    ]);
    return {
      gaps: page.rows.map((r) => ({
        query: r.query,
        count: r.count,
        bestScore: r.best_score,
        lastSeenAt: new Date(r.last_seen_at),
        position: { count: r.count, lastSeen: r.last_seen_key, normalized: r.normalized },
      })),
      totalCount: total.rows[0]?.n ?? 0,
    };
  }
}

/** A group's place in the listing order: its count, its last time seen (exact, as Postgres text) and its key. */
export interface GapPosition {
  count: number;
  lastSeen: string;
  normalized: string;
}

// timestamptz as Postgres prints it with ISO DateStyle, e.g. "2026-11-25 16:35:00.123456+00".
const POSTGRES_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/;

/** The opaque cursor of a gap listing: its snapshot time and a group's position. */
export function encodeGapCursor(asOf: Date, position: GapPosition): string {
  return encodePair(asOf.toISOString(), JSON.stringify([position.count, position.lastSeen, position.normalized]));
}

/** Decodes `encodeGapCursor`'s output; anything else is BAD_USER_INPUT. */
export function decodeGapCursor(value: string, field = 'after'): { asOf: Date; position: GapPosition } {
  const [asOfText, positionText] = decodePair(value, field);
  const asOf = new Date(asOfText);
  let position: unknown;
  try {
    position = JSON.parse(positionText);
  } catch {
    position = undefined;
  }
  if (Number.isNaN(asOf.getTime()) || !Array.isArray(position) || position.length !== 3)
    throw badInput(field, 'not a cursor returned by this API');
  const [count, lastSeen, normalized] = position as unknown[];
  if (
    !Number.isInteger(count) ||
    typeof lastSeen !== 'string' ||
    !POSTGRES_TIMESTAMP.test(lastSeen) ||
    typeof normalized !== 'string'
  ) {
    throw badInput(field, 'not a cursor returned by this API');
  }
  return { asOf, position: { count: count as number, lastSeen, normalized } };
}
