import { currentSpaceScope } from '../../db/spaceScope.js';
import { announceChange } from '../../db/changeFeed.js';
import type { Db, Queryable } from '../../db/Db.js';
import type { DocumentWriteHook, WrittenDocument } from '../../documents/DocumentWriteHook.js';
import {
  documentsRelation,
  lockChunksMatchingPhrases,
  lockDocumentTitle,
  lockDocumentTitles,
} from '../../documents/relations.js';
import { AppError, ErrorCode } from '../../errors.js';
import type { MentionOp } from '../types.js';
import { linkMatches, MentionBackfill } from './MentionBackfill.js';
import { MentionMatcher, nameForms, type EntityName } from './MentionMatcher.js';
import { EntityNameRepository } from './EntityNameRepository.js';
import { MentionRepository, type MentionRow } from './MentionRepository.js';
import { OutboxRepository } from './OutboxRepository.js';
import { NameCache, type NameCacheStats } from './NameCache.js';
import { MENTION_COUNT_CAP, partialNameMatches, rankQueryEntities, type QueryEntity } from './queryEntities.js';

/** The advisory lock ("CAIN", 0) that orders name registration against document writes. */
const NAMES_LOCK = [0x4341494e, 0];

/**
 * Links chunks to the entities they name, inside the document write's transaction: one Aho-Corasick pass per batch.
 * With Neo4j, the same transaction queues the mention changes in the outbox (`mirror`), so no document write ever
 * waits for, or fails because of, Neo4j.
 */
export class MentionLinker implements DocumentWriteHook {
  readonly #mentions: MentionRepository;
  /** Deferred backfills (extraction's names): many batches' names matched in one read of the chunks. */
  readonly #backfill: MentionBackfill;
  readonly #names: EntityNameRepository;
  readonly #outbox: OutboxRepository;
  /**
   * The names per space (`ALL_SPACES` outside any request): a space's automaton holds its own names only, so another
   * space's names neither link nor crowd out its matches, and no space pays for another's names.
   */
  private readonly caches = new Map<string, CachedNames>();

  /** The cache of the running request's space. */
  private get cached(): CachedNames | undefined {
    return this.caches.get(cacheKey());
  }

  constructor(
    private readonly db: Db,
    private readonly mirror: boolean,
    /** Milliseconds on a monotonic clock, for the age of cached names (tests pass their own). */
    private readonly now: () => number = () => performance.now(),
    /** How long queries trust cached names (CAIRN_QUERY_NAMES_MAX_AGE_MS). */
    private readonly queryNamesMaxAgeMs = 1000,
  ) {
    this.#mentions = new MentionRepository(db);
    this.#backfill = new MentionBackfill(db, this.#mentions, mirror);
    this.#names = new EntityNameRepository(db);
    this.#outbox = new OutboxRepository(db);
  }

  /** Runs the requested (deferred) backfills: all pending names matched in one pass over the chunks. */
  runBackfill(): Promise<void> {
    return this.#backfill.run();
  }

  /** Extracted entities whose mention backfill is still to run. */
  backfillBacklog(): Promise<number> {
    return this.#backfill.backlog();
  }

  /** Mention changes queued for Neo4j and not yet applied. */
  outboxBacklog(): Promise<number> {
    return this.#outbox.backlog();
  }

  /** Holds back name registration until this write commits (see `entitiesChanged`); rejects explicit links to missing entities. */
  async beforeWrite(
    tx: Queryable,
    documents: readonly { documentId: string; explicitEntityIds: string[] }[],
  ): Promise<void> {
    await tx.query('SELECT pg_advisory_xact_lock_shared($1::int, $2::int)', NAMES_LOCK);
    const wanted = [...new Set(documents.flatMap((d) => d.explicitEntityIds))];
    const known = await this.#names.existingEntityIds(tx, wanted);
    const missing = wanted.find((id) => !known.has(id));
    if (missing !== undefined)
      throw new AppError(ErrorCode.NOT_FOUND, `entity "${missing}" does not exist (listed in entityIds)`, {
        kind: 'Entity',
        id: missing,
      });
  }

  /** Recomputes automatic mentions of changed documents and adds explicit ones. */
  async afterWrite(tx: Queryable, documents: readonly WrittenDocument[]): Promise<void> {
    const changed = documents.filter((d) => d.changed);
    const matcher = changed.length > 0 ? await this.load(tx) : undefined;
    const auto: MentionRow[] = [];
    for (const d of changed)
      for (const c of d.chunks)
        for (const entityId of matcher?.entitiesIn(c.content) ?? [])
          auto.push({ entityId, documentId: d.documentId, chunkId: c.id });
    await this.#mentions.replaceAutoMentions(
      tx,
      changed.map((d) => d.documentId),
      auto,
    );
    const explicit = documents.flatMap((d) =>
      d.explicitEntityIds.map((entityId) => ({ entityId, documentId: d.documentId, chunkId: null })),
    );
    await this.#mentions.insert(tx, explicit, 'explicit');
    if (!this.mirror) return;
    const ops: MentionOp[] = [];
    for (const d of changed) ops.push({ op: 'unlinkDocument', documentId: d.documentId });
    if (changed.length > 0)
      ops.push(
        ...(await this.linkOpsFor(
          tx,
          changed.map((d) => d.documentId),
        )),
      );
    const unchangedExplicit = documents.filter((d) => !d.changed && d.explicitEntityIds.length > 0);
    for (const d of unchangedExplicit)
      for (const entityId of d.explicitEntityIds)
        ops.push({ op: 'link', entityId, documentId: d.documentId, documentTitle: d.title });
    await this.#outbox.enqueue(tx, ops);
  }

  /** Queues the removal of a deleted document's mentions (Postgres rows cascade by themselves). */
  async afterDelete(tx: Queryable, documentId: string): Promise<void> {
    if (this.mirror) await this.#outbox.enqueue(tx, [{ op: 'unlinkDocument', documentId }]);
  }

  /** Links existing documents explicitly to entities. */
  async linkExplicit(documentId: string, entityIds: readonly string[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      const title = await lockDocumentTitle(tx, documentId);
      if (title === undefined)
        throw new AppError(ErrorCode.NOT_FOUND, `document "${documentId}" does not exist`, {
          kind: 'Document',
          id: documentId,
        });
      await this.beforeWrite(tx, [{ documentId, explicitEntityIds: [...entityIds] }]);
      await this.#mentions.insert(
        tx,
        entityIds.map((entityId) => ({ entityId, documentId, chunkId: null })),
        'explicit',
      );
      if (this.mirror)
        await this.#outbox.enqueue(
          tx,
          entityIds.map((entityId) => ({ op: 'link' as const, entityId, documentId, documentTitle: title })),
        );
    });
  }

  /** Links documents explicitly to entities in one transaction; a document or entity that does not exist is skipped. */
  async linkExplicitWhereLive(links: readonly { documentId: string; entityId: string }[]): Promise<void> {
    if (links.length === 0) return;
    await this.db.transaction(async (tx) => {
      const titles = await lockDocumentTitles(
        tx,
        links.map((l) => l.documentId),
      );
      await tx.query('SELECT pg_advisory_xact_lock_shared($1::int, $2::int)', NAMES_LOCK);
      const entities = await this.#names.existingEntityIds(
        tx,
        links.map((l) => l.entityId),
      );
      const live = links.filter((l) => titles.has(l.documentId) && entities.has(l.entityId));
      if (live.length === 0) return;
      await this.#mentions.insert(
        tx,
        live.map((l) => ({ entityId: l.entityId, documentId: l.documentId, chunkId: null })),
        'explicit',
      );
      if (this.mirror)
        await this.#outbox.enqueue(
          tx,
          live.map((l) => ({
            op: 'link' as const,
            entityId: l.entityId,
            documentId: l.documentId,
            documentTitle: titles.get(l.documentId) ?? '',
          })),
        );
    });
  }

  /**
   * Records entity names and links existing chunks that name them (backfill). Candidate chunks come from one
   * full-text query over all names of the batch (on the chunks' title + content vectors), then the matcher confirms
   * whole-word matches in the content. With `deferBackfill`, the backfill is only requested, in the names'
   * transaction, and a later `runBackfill()` does it for many requests at once.
   */
  async entitiesChanged(names: readonly EntityName[], options: { deferBackfill?: boolean } = {}): Promise<void> {
    if (names.length === 0) return;
    // Names commit first, under the names lock held exclusively: it waits for the document writes in flight (each
    // holds it shared from its first statement) and holds new ones back until the names are in. So every document
    // write either committed before (its chunks are visible to the backfill below) or reads the new names itself.
    // Before, a new document written meanwhile read the old names while the backfill could not see its chunks yet,
    // and its mentions were never recorded. The backfill then runs without blocking document writes.
    const linking = await this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', NAMES_LOCK);
      await announceChange(tx, 'names');
      const linking = await this.#names.upsertNames(tx, names);
      if (options.deferBackfill) await this.#backfill.request(tx, [...linking]);
      return linking;
    });
    this.forgetNames();
    if (options.deferBackfill) return;
    // Entities that do not link by name get no backfill (their explicit links stay as they are).
    const linked = names.filter((n) => linking.has(n.entityId));
    if (linked.length === 0) return;
    await this.db.transaction(async (tx) => {
      const phrases = linked.flatMap((n) => nameForms(n.name, n.aliases)).filter((p) => p.length >= 2);
      if (phrases.length === 0) return;
      // The candidate documents are locked: a write or delete of one of them waits until these links are in, or runs
      // first and is then seen whole. Locking only the chunks deadlocked with a document write, and not locking at
      // all let a write delete chunks the new mentions then pointed at.
      const rows = await lockChunksMatchingPhrases(tx, phrases);
      await linkMatches(tx, new MentionMatcher(linked), rows, this.#mentions, this.mirror ? this.#outbox : undefined);
    });
  }

  /** An entity's mentions of one source, in a stable order. */
  async mentionsOf(entityId: string, source: 'auto' | 'explicit'): Promise<MentionRow[]> {
    const { rows } = await this.db.query<{ document_id: string; chunk_id: string | number | null }>(
      `SELECT document_id, chunk_id FROM mentions WHERE entity_id = $1 AND source = $2
        ORDER BY document_id COLLATE "C", COALESCE(chunk_id, 0)`,
      [entityId, source],
    );
    return rows.map((r) => ({
      entityId,
      documentId: r.document_id,
      chunkId: r.chunk_id === null ? null : String(r.chunk_id),
    }));
  }

  /** Removes mentions of one source (an undone merge); Neo4j drops the links of documents left without any. */
  async removeMentions(rows: readonly MentionRow[], source: 'auto' | 'explicit'): Promise<void> {
    if (rows.length === 0) return;
    await this.db.transaction(async (tx) => {
      await tx.query(
        `DELETE FROM mentions m
          USING unnest($1::text[], $2::text[], $3::bigint[]) AS x(entity_id, document_id, chunk_id)
          WHERE m.entity_id = x.entity_id AND m.document_id = x.document_id
            AND COALESCE(m.chunk_id, 0) = COALESCE(x.chunk_id, 0) AND m.source = $4`,
        [rows.map((r) => r.entityId), rows.map((r) => r.documentId), rows.map((r) => r.chunkId), source],
      );
      if (!this.mirror) return;
      const { rows: left } = await tx.query<{ entity_id: string; document_id: string }>(
        `SELECT DISTINCT x.entity_id, x.document_id FROM unnest($1::text[], $2::text[]) AS x(entity_id, document_id)
          WHERE NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = x.entity_id AND m.document_id = x.document_id)`,
        [rows.map((r) => r.entityId), rows.map((r) => r.documentId)],
      );
      await this.#outbox.enqueue(
        tx,
        left.map((r) => ({ op: 'unlink' as const, entityId: r.entity_id, documentId: r.document_id })),
      );
    });
  }

  /** Forgets an entity's name and mentions. */
  async entityDeleted(entityId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      // Under the names lock, like new names: a document write in flight cannot record a mention of the entity after
      // its name is gone, and the next one reads the deletion.
      await tx.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', NAMES_LOCK);
      await announceChange(tx, 'names');
      await this.#names.deleteName(tx, entityId);
    });
    this.forgetNames();
  }

  /**
   * Makes the next query check the names' version (another process changed them) instead of trusting the cache for a
   * second. Document writes do not need this: they check the version in their own transaction.
   */
  forgetNames(): void {
    for (const cached of this.caches.values()) cached.checkedAt = Number.NEGATIVE_INFINITY;
  }

  /** The cached names' size and history, over every space's cache (for benchmarks and reports); undefined before the first load. */
  nameCacheStats(): NameCacheStats | undefined {
    if (this.caches.size === 0) return undefined;
    const total: NameCacheStats = { names: 0, pending: 0, builds: 0 };
    for (const { names } of this.caches.values()) {
      const s = names.stats();
      total.names += s.names;
      total.pending += s.pending;
      total.builds += s.builds;
    }
    return total;
  }

  private async linkOpsFor(tx: Queryable, documentIds: readonly string[]): Promise<MentionOp[]> {
    const { rows } = await tx.query<{ entity_id: string; document_id: string; title: string }>(
      `SELECT DISTINCT m.entity_id, m.document_id, d.title FROM mentions m JOIN ${documentsRelation('d')} ON d.id = m.document_id
        WHERE m.document_id = ANY($1::text[])`,
      [documentIds],
    );
    return rows.map((r) => ({ op: 'link', entityId: r.entity_id, documentId: r.document_id, documentTitle: r.title }));
  }

  /**
   * Entities a query names, best first (see `rankQueryEntities`): whole-word names and aliases, scored by how specific
   * they are, then names sharing most of their words with the query, always after every exact match.
   */
  async entitiesInQuery(text: string): Promise<QueryEntity[]> {
    // Queries accept names up to queryNamesMaxAgeMs old (writes through this process drop the cache at once);
    // document writes always check, so the mentions they record are never computed from stale names.
    const cached = this.cached;
    const names =
      cached && this.now() - cached.checkedAt < this.queryNamesMaxAgeMs ? cached.names : await this.load(this.db);
    const exact = names.matchesIn(text);
    const partial = partialNameMatches(text, names, new Set(exact.map((m) => m.entityId)));
    const counts = await this.#mentions.mentionCounts(
      [...exact.map((m) => m.entityId), ...partial.map((p) => p.entityId)],
      MENTION_COUNT_CAP,
    );
    // In a request the counts cover the request's space only: names of other spaces' entities rank nothing.
    if (!currentSpaceScope()) return rankQueryEntities(exact, partial, counts);
    const inSpace = <T extends { entityId: string }>(matches: readonly T[]) =>
      matches.filter((m) => counts.has(m.entityId));
    return rankQueryEntities(inSpace(exact), inSpace(partial), counts);
  }

  /**
   * The current names as of the version `q` reads: one row read when nothing changed, else only the names changed
   * since the cached version (the whole table on the first load). The version is read before the names, so no change
   * numbered up to it is missed. Callers never wait for each other's reads (a write waiting, inside its transaction,
   * for a read that needs a connection could deadlock the pool, or PGlite's one connection): concurrent ones may read
   * alike, and only a result newer than the cache is applied.
   */
  private async load(q: Queryable): Promise<NameCache> {
    const version = await this.#names.namesVersion(q);
    const covered = () => {
      const cached = this.cached;
      if (!cached || cached.version < version) return undefined;
      cached.checkedAt = this.now();
      return cached.names;
    };
    const since = this.cached?.version;
    const changes = since === undefined ? undefined : await this.#names.namesChangedSince(q, since, CHANGES_READ_MAX);
    const current = covered();
    if (current) return current;
    if (changes && this.cached) {
      // Changes since `since` or earlier, applied onto a cache at `since` or later: a superset, applied alike.
      this.cached.names.apply(changes);
      this.cached.version = version;
    } else {
      const names = await this.#names.allNames(q);
      // Another caller may have finished first: build the automaton only if this is still the newest.
      const latest = covered();
      if (latest) return latest;
      this.caches.set(cacheKey(), { version, checkedAt: 0, names: new NameCache(names) });
    }
    const cached = this.cached as CachedNames;
    cached.checkedAt = this.now();
    return cached.names;
  }
}

/** The key of the names of work outside any request, which sees every space (space ids are never empty). */
const ALL_SPACES = '';
const cacheKey = (): string => currentSpaceScope()?.space ?? ALL_SPACES;

/** Past this many changed names, a refresh reads all names instead (and builds the automaton anew). */
const CHANGES_READ_MAX = 20_000;

/** The names and their matcher, as of one version of the names. */
interface CachedNames {
  version: bigint;
  /** When the version was last confirmed (performance.now()). */
  checkedAt: number;
  names: NameCache;
}
