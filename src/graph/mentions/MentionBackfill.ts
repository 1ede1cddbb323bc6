import type { Db, Queryable } from '../../db/Db.js';
import { lockChunksAfter, lockChunksMatchingPhrases, type PhraseCandidate } from '../../documents/relations.js';
import type { MentionOp } from '../types.js';
import { MentionMatcher, nameForms, type EntityName } from './MentionMatcher.js';
import type { MentionRepository, MentionRow } from './MentionRepository.js';
import { OutboxRepository } from './OutboxRepository.js';

/** Advisory lock ("CAIB") that lets one process at a time run backfill passes. */
const BACKFILL_LOCK = 0x43414942;
/** Up to this many phrases, a pass finds candidate chunks by full text; past it, it reads every chunk once. */
const FULL_TEXT_MAX_PHRASES = 256;
/** Chunks read (and their documents locked) per transaction of a reading pass. */
const PAGE_CHUNKS = 1000;
/** Names matched by one pass. */
const NAMES_PER_PASS = 50_000;

interface Pending {
  entityId: string;
  seq: string;
  /** Undefined: the entity no longer links by name (nothing to find). */
  name: EntityName | undefined;
}

/**
 * Finds the mentions of new names in the chunks stored before them, for many names at once: extraction writes names
 * batch after batch, and matching each batch's names against every chunk stored so far grew with the corpus. Requests
 * are rows of mention_backfill, written in the names' transaction (nothing is lost on a crash); a pass matches all
 * pending names in one read of the chunks (or by full text when they are few) and deletes the rows it served.
 */
export class MentionBackfill {
  constructor(
    private readonly db: Db,
    private readonly mentions: MentionRepository,
    private readonly mirror: boolean,
    private readonly outbox = new OutboxRepository(db),
  ) {}

  /** Records entities whose names need a backfill (in the transaction that wrote the names). */
  async request(q: Queryable, entityIds: readonly string[]): Promise<void> {
    if (entityIds.length === 0) return;
    await q.query(
      `INSERT INTO mention_backfill (entity_id) SELECT DISTINCT x FROM unnest($1::text[]) AS x ORDER BY 1
       ON CONFLICT (entity_id) DO UPDATE SET seq = EXCLUDED.seq`,
      [entityIds],
    );
  }

  /** Entities whose backfill is still to run. */
  async backlog(): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>('SELECT count(*)::int AS n FROM mention_backfill');
    return rows[0]?.n ?? 0;
  }

  /** Runs passes until no backfill is pending (one process at a time; others wait, then find less to do). */
  async run(): Promise<void> {
    if ((await this.db.query('SELECT 1 FROM mention_backfill LIMIT 1')).rows.length === 0) return;
    await this.db.withLock(BACKFILL_LOCK, async () => {
      for (;;) {
        const pending = await this.pending();
        if (pending.length === 0) return;
        const names = pending.flatMap((p) => (p.name ? [p.name] : []));
        if (names.length > 0) await this.pass(names);
        await this.db.query(
          `DELETE FROM mention_backfill b USING unnest($1::text[], $2::bigint[]) AS x(entity_id, seq)
            WHERE b.entity_id = x.entity_id AND b.seq = x.seq`,
          [pending.map((p) => p.entityId), pending.map((p) => p.seq)],
        );
      }
    });
  }

  private async pending(): Promise<Pending[]> {
    const { rows } = await this.db.query<{
      entity_id: string;
      seq: string;
      name: string | null;
      aliases: string[] | null;
      link_by_name: boolean | null;
    }>(
      `SELECT b.entity_id, b.seq::text AS seq, n.name, n.aliases, n.link_by_name
         FROM mention_backfill b LEFT JOIN entity_names n ON n.entity_id = b.entity_id ORDER BY b.seq LIMIT $1`,
      [NAMES_PER_PASS],
    );
    return rows.map((r) => ({
      entityId: r.entity_id,
      seq: r.seq,
      name:
        r.link_by_name && r.name !== null
          ? { entityId: r.entity_id, name: r.name, aliases: r.aliases ?? [] }
          : undefined,
    }));
  }

  /** Links every stored chunk that names one of `names`: by full text when they are few, else one read of all chunks. */
  private async pass(names: readonly EntityName[]): Promise<void> {
    const phrases = names.flatMap((n) => nameForms(n.name, n.aliases)).filter((p) => p.length >= 2);
    if (phrases.length === 0) return;
    const matcher = new MentionMatcher(names);
    if (phrases.length <= FULL_TEXT_MAX_PHRASES) {
      await this.db.transaction(async (tx) => this.link(tx, matcher, await lockChunksMatchingPhrases(tx, phrases)));
      return;
    }
    let after: string | undefined = '0';
    while (after !== undefined) {
      const from: string = after;
      after = await this.db.transaction(async (tx) => {
        const { chunks, next } = await lockChunksAfter(tx, from, PAGE_CHUNKS);
        await this.link(tx, matcher, chunks);
        return next;
      });
    }
  }

  private link(tx: Queryable, matcher: MentionMatcher, chunks: readonly PhraseCandidate[]): Promise<void> {
    return linkMatches(tx, matcher, chunks, this.mentions, this.mirror ? this.outbox : undefined);
  }
}

/**
 * Writes the automatic mentions `matcher` finds in `chunks` and, when Neo4j mirrors the graph (`outbox`), queues one
 * link per (entity, document) in the same transaction.
 */
export async function linkMatches(
  tx: Queryable,
  matcher: MentionMatcher,
  chunks: readonly PhraseCandidate[],
  mentions: MentionRepository,
  outbox: OutboxRepository | undefined,
): Promise<void> {
  const found: MentionRow[] = [];
  const ops = new Map<string, MentionOp>();
  for (const c of chunks) {
    for (const entityId of matcher.entitiesIn(c.content)) {
      found.push({ entityId, documentId: c.documentId, chunkId: c.id });
      ops.set(`${entityId}\u0000${c.documentId}`, {
        op: 'link',
        entityId,
        documentId: c.documentId,
        documentTitle: c.title,
      });
    }
  }
  await mentions.insert(tx, found, 'auto');
  if (outbox) await outbox.enqueue(tx, [...ops.values()]);
}
