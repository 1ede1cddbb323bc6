import { currentSpaceScope } from '../../db/spaceScope.js';
import { announceChange } from '../../db/changeFeed.js';
import type { Db, Queryable } from '../../db/Db.js';
import type { DocumentWriteHook, WrittenDocument } from '../../documents/DocumentWriteHook.js';
import { lockChunksMatchingPhrases, lockDocumentTitle, lockDocumentTitles } from '../../documents/relations.js';
import { AppError, ErrorCode } from '../../errors.js';
import type { MentionOp } from '../types.js';
import { linkMatches, MentionBackfill } from './MentionBackfill.js';
import { MentionMatcher, nameForms, type EntityName } from './MentionMatcher.js';
import { EntityNameRepository } from './EntityNameRepository.js';
import { MentionRepository, type MentionRow } from './MentionRepository.js';
import { OutboxRepository } from './OutboxRepository.js';
import type { NameCacheStats } from './NameCache.js';
import { SpaceNames } from './SpaceNames.js';
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
  /** The names per space, as of their current version (see SpaceNames). */
  readonly #spaceNames: SpaceNames;

  constructor(
    private readonly db: Db,
    private readonly mirror: boolean,
  ) {
    this.#mentions = new MentionRepository(db);
    this.#backfill = new MentionBackfill(db, this.#mentions, mirror);
    this.#names = new EntityNameRepository(db);
    this.#outbox = new OutboxRepository(db);
    this.#spaceNames = new SpaceNames(this.#names);
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
    const matcher = changed.length > 0 ? await this.#spaceNames.current(tx) : undefined;
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
      for (const link of await this.#mentions.linksOf(
        tx,
        changed.map((d) => d.documentId),
      ))
        ops.push({ op: 'link', ...link });
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
  mentionsOf(entityId: string, source: 'auto' | 'explicit'): Promise<MentionRow[]> {
    return this.#mentions.ofEntity(entityId, source);
  }

  /** Removes mentions of one source (an undone merge); Neo4j drops the links of documents left without any. */
  async removeMentions(rows: readonly MentionRow[], source: 'auto' | 'explicit'): Promise<void> {
    if (rows.length === 0) return;
    await this.db.transaction(async (tx) => {
      const left = await this.#mentions.remove(tx, rows, source);
      if (this.mirror)
        await this.#outbox.enqueue(
          tx,
          left.map((pair) => ({ op: 'unlink' as const, ...pair })),
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
   * Makes the next query check the names' version (this process changed them) instead of trusting the cache. Document
   * writes do not need this: they check the version in their own transaction.
   */
  private forgetNames(): void {
    this.#spaceNames.forget();
  }

  /**
   * Reads the names' version and makes the next query of each cache it finds out of date read the changes: run in the
   * background (on another process's notification and periodically, see BackgroundRecheck), never by a query.
   */
  recheckNames(): Promise<void> {
    return this.#spaceNames.recheck(this.db);
  }

  /** The cached names' size and history, over every space's cache (for benchmarks and reports); undefined before the first load. */
  nameCacheStats(): NameCacheStats | undefined {
    return this.#spaceNames.stats();
  }

  /**
   * Entities a query names, best first (see `rankQueryEntities`): whole-word names and aliases, scored by how specific
   * they are, then names sharing most of their words with the query, always after every exact match.
   */
  async entitiesInQuery(text: string): Promise<QueryEntity[]> {
    const names = await this.#spaceNames.forQuery(this.db);
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
}
