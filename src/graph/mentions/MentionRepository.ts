import type { Db, Queryable } from '../../db/Db.js';
import { SqlParams } from '../../db/SqlParams.js';
import { currentSpaceScope, spaceSql, writeSpace } from '../../db/spaceScope.js';
import { documentFilterSql, liveDocumentSql } from '../../documents/filterSql.js';
import { chunksRelation, documentsRelation } from '../../documents/relations.js';
import type { DocumentFilterSpec } from '../../documents/types.js';
import type { MentionOp } from '../types.js';
import { nameKeys } from '../../extraction/nameKey.js';
import type { EntityName } from './MentionMatcher.js';
import type { NameChange } from './NameCache.js';
import { ENQUEUE_OPS } from './outboxSql.js';

/** A mention row: an entity named in a chunk (or, for explicit links, in a whole document). */
export interface MentionRow {
  entityId: string;
  documentId: string;
  chunkId: string | null;
}

/** What `evidence` looks for. */
export interface EvidenceRequest {
  filter: DocumentFilterSpec;
  /** The query's embedding as a pgvector literal, or null. */
  queryVector: string | null;
  homeChunks: number;
  perEntity: number;
  scanPerEntity: number;
  /** Mentions are counted up to this many per entity. */
  countCap: number;
  /** Entities that more chunks than this mention get their count only, no evidence chunks (absent: every entity). */
  chunksUpToMentions?: number;
}

/** Evidence rows with every entity's mention count. */
export interface Evidence {
  rows: EvidenceRow[];
  mentionCounts: Map<string, number>;
}

/** A chunk that is evidence for an entity: one of its home document's chunks, or a chunk that mentions it. */
export interface EvidenceRow {
  entityId: string;
  chunkId: string;
  documentId: string;
  home: boolean;
  similarity: number;
}

/** A queued graph write for Neo4j. */
export interface OutboxEntry {
  id: string;
  op: MentionOp;
  attempts: number;
}

/** Postgres side of mentions: entity names, mention rows and the Neo4j outbox. */
export class MentionRepository {
  constructor(private readonly db: Db) {}

  /** Records (or refreshes) entity names for linking; returns the ids among them that link by name, as recorded now. */
  async upsertNames(q: Queryable, unsorted: readonly EntityName[]): Promise<Set<string>> {
    if (unsorted.length === 0) return new Set();
    // Rows are locked in id order, whatever order callers give: concurrent batches then cannot deadlock on them.
    const names = [...unsorted].sort((a, b) => (a.entityId < b.entityId ? -1 : a.entityId > b.entityId ? 1 : 0));
    const ids = names.map((n) => n.entityId);
    // Extraction never takes over an entity a person or an importer wrote (its origin stays theirs).
    await q.query(
      `INSERT INTO entity_names (entity_id, name, aliases, name_keys, type, origin, space_id)
       SELECT x.id, x.name, ARRAY(SELECT jsonb_array_elements_text(x.aliases::jsonb)),
              ARRAY(SELECT jsonb_array_elements_text(x.keys::jsonb)), x.type, coalesce(x.origin, 'MANUAL'), $7::text
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS x(id, name, aliases, keys, type, origin)
       ON CONFLICT (entity_id) DO UPDATE SET name = EXCLUDED.name, aliases = EXCLUDED.aliases, name_keys = EXCLUDED.name_keys,
              type = coalesce(EXCLUDED.type, entity_names.type),
              origin = CASE WHEN EXCLUDED.origin = 'EXTRACTED' THEN entity_names.origin ELSE EXCLUDED.origin END,
              updated_at = now()
        WHERE entity_names.space_id = EXCLUDED.space_id`,
      [
        ids,
        names.map((n) => n.name),
        names.map((n) => JSON.stringify(n.aliases)),
        names.map((n) => JSON.stringify(nameKeys(n.name, n.aliases))),
        names.map((n) => n.type ?? null),
        names.map((n) => n.origin ?? null),
        writeSpace(),
      ],
    );
    // A write that does not say keeps the recorded choice (a new entity links by name).
    const chosen = names.filter((n) => n.linkByName !== undefined);
    if (chosen.length > 0) {
      const params: unknown[] = [chosen.map((n) => n.entityId), chosen.map((n) => n.linkByName)];
      await q.query(
        `UPDATE entity_names n SET link_by_name = x.link FROM unnest($1::text[], $2::boolean[]) AS x(id, link)
          WHERE n.entity_id = x.id AND ${spaceSql('n', params)}`,
        params,
      );
    }
    const linking: unknown[] = [ids];
    const { rows } = await q.query<{ entity_id: string }>(
      `SELECT entity_id FROM entity_names n WHERE n.entity_id = ANY($1::text[]) AND link_by_name AND ${spaceSql('n', linking)}`,
      linking,
    );
    return new Set(rows.map((r) => r.entity_id));
  }

  /** Ids of entities whose id starts with any of `prefixes` (entity_names lists every entity, whichever store holds it). */
  async entityIdsWithPrefix(prefixes: readonly string[]): Promise<string[]> {
    if (prefixes.length === 0) return [];
    const { rows } = await this.db.query<{ entity_id: string }>(
      'SELECT entity_id FROM entity_names WHERE EXISTS (SELECT 1 FROM unnest($1::text[]) AS p WHERE starts_with(entity_id, p)) ORDER BY entity_id',
      [prefixes],
    );
    return rows.map((r) => r.entity_id);
  }

  /** Forgets an entity of the request's space: its mentions go with it (cascade). */
  async deleteName(q: Queryable, entityId: string): Promise<void> {
    const params: unknown[] = [entityId];
    await q.query(`DELETE FROM entity_names n WHERE n.entity_id = $1 AND ${spaceSql('n', params)}`, params);
  }

  /** Every name that links by name, for the matcher (and for finding entities a query names). */
  async allNames(q: Queryable = this.db): Promise<EntityName[]> {
    const { rows } = await q.query<{ entity_id: string; name: string; aliases: string[] }>(
      'SELECT entity_id, name, aliases FROM entity_names WHERE link_by_name',
    );
    return rows.map((r) => ({ entityId: r.entity_id, name: r.name, aliases: r.aliases }));
  }

  /**
   * The names' version (migration 018): one row, bumped by every statement that writes entity_names, so reading it
   * costs the same at any number of names. Changes numbered up to it are visible once it is read.
   */
  async namesVersion(q: Queryable = this.db): Promise<bigint> {
    const { rows } = await q.query<{ v: string }>('SELECT version::text AS v FROM entity_names_version');
    return BigInt(rows[0]?.v ?? '0');
  }

  /**
   * Entities whose name changed after `version`: each with its current linking name, or `name: undefined` when it
   * was deleted or no longer links by name. Undefined when more than `limit` changed (reading all names is cheaper).
   * Two index lookups (the change log by version, the names by id), whatever the size of the name table.
   */
  async namesChangedSince(q: Queryable, version: bigint, limit: number): Promise<NameChange[] | undefined> {
    const changed = await q.query<{ entity_id: string }>(
      'SELECT entity_id FROM entity_name_changes WHERE version > $1::bigint ORDER BY version LIMIT $2',
      [version.toString(), limit + 1],
    );
    if (changed.rows.length > limit) return undefined;
    const ids = changed.rows.map((r) => r.entity_id);
    if (ids.length === 0) return [];
    const { rows } = await q.query<{ entity_id: string; name: string; aliases: string[] }>(
      'SELECT entity_id, name, aliases FROM entity_names WHERE entity_id = ANY($1::text[]) AND link_by_name',
      [ids],
    );
    const current = new Map(rows.map((r) => [r.entity_id, r]));
    return ids.map((entityId) => {
      const n = current.get(entityId);
      return { entityId, name: n ? { entityId, name: n.name, aliases: n.aliases } : undefined };
    });
  }

  /** Which of these ids are known entities (of the request's space). */
  async existingEntityIds(q: Queryable, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const params: unknown[] = [ids];
    const { rows } = await q.query<{ entity_id: string }>(
      `SELECT entity_id FROM entity_names n WHERE n.entity_id = ANY($1::text[]) AND ${spaceSql('n', params)}`,
      params,
    );
    return new Set(rows.map((r) => r.entity_id));
  }

  /** Replaces the automatic mentions of these documents. */
  async replaceAutoMentions(q: Queryable, documentIds: readonly string[], rows: readonly MentionRow[]): Promise<void> {
    if (documentIds.length > 0)
      await q.query(`DELETE FROM mentions WHERE source = 'auto' AND document_id = ANY($1::text[])`, [documentIds]);
    await this.insert(q, rows, 'auto');
  }

  /** Adds mentions (duplicates are ignored). */
  async insert(q: Queryable, rows: readonly MentionRow[], source: 'auto' | 'explicit'): Promise<void> {
    if (rows.length === 0) return;
    await q.query(
      `INSERT INTO mentions (entity_id, document_id, chunk_id, source)
       SELECT x.e, x.d, x.c, $4 FROM unnest($1::text[], $2::text[], $3::bigint[]) AS x(e, d, c)
       ON CONFLICT DO NOTHING`,
      [rows.map((r) => r.entityId), rows.map((r) => r.documentId), rows.map((r) => r.chunkId), source],
    );
  }

  /** Distinct documents mentioning each entity, newest mention first, at most `first` each. */
  async documentIdsByEntity(entityIds: readonly string[], first: number): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(entityIds.map((id) => [id, []]));
    if (entityIds.length === 0) return out;
    const params: unknown[] = [entityIds, first];
    const { rows } = await this.db.query<{ entity_id: string; document_id: string }>(
      `SELECT entity_id, document_id FROM (
         SELECT m.entity_id, m.document_id, row_number() OVER (PARTITION BY m.entity_id ORDER BY max(m.created_at) DESC, m.document_id) AS n
           FROM mentions m JOIN ${documentsRelation('d')} ON d.id = m.document_id
          WHERE m.entity_id = ANY($1::text[]) AND ${liveDocumentSql('d')} AND ${spaceSql('d', params)}
          GROUP BY m.entity_id, m.document_id) x
        WHERE n <= $2 ORDER BY entity_id, n`,
      params,
    );
    for (const r of rows) out.get(r.entity_id)?.push(r.document_id);
    return out;
  }

  /** How many mentions each entity has, counted up to `cap` (enough to tell a specific name from a common one). */
  async mentionCounts(entityIds: readonly string[], cap: number): Promise<Map<string, number>> {
    const ids = [...new Set(entityIds)];
    if (ids.length === 0) return new Map();
    // In a request, entities of other spaces are left out (the name cache holds every space's names).
    const params: unknown[] = [ids, cap];
    const inSpace = `EXISTS (SELECT 1 FROM entity_names n WHERE n.entity_id = e.id AND ${spaceSql('n', params)})`;
    const { rows } = await this.db.query<{ id: string; n: number }>(
      `SELECT e.id, (SELECT count(*) FROM (SELECT 1 FROM mentions m WHERE m.entity_id = e.id LIMIT $2) k)::int AS n
         FROM unnest($1::text[]) AS e(id)${currentSpaceScope() ? ` WHERE ${inSpace}` : ''}`,
      params,
    );
    return new Map(rows.map((r) => [r.id, Number(r.n)]));
  }

  /**
   * Evidence chunks of entities, for the graph lane of enrichContext: per entity its home chunks (of documents linked
   * to it explicitly, or titled with its name) and up to `perEntity` chunks that mention it, each with its cosine
   * similarity to `queryVector` (0 without one), live and passing `filter`. Mentions are sampled (at most
   * `scanPerEntity` per entity) before ranking, so a name mentioned everywhere costs no more than a rare one.
   */
  async evidence(entityIds: readonly string[], request: EvidenceRequest): Promise<Evidence> {
    const ids = [...new Set(entityIds)];
    if (ids.length === 0) return { rows: [], mentionCounts: new Map() };
    const params = new SqlParams();
    const pIds = params.add(ids);
    const vector = params.add(request.queryVector);
    const sim = `coalesce(1 - (c.embedding <=> ${vector}::vector), 0)::float8`;
    const passes = documentFilterSql(request.filter, params);
    const homeCap = params.add(request.homeChunks);
    const perEntity = params.add(request.perEntity);
    const scan = params.add(request.scanPerEntity);
    const countCap = params.add(request.countCap);
    const upTo = params.add(request.chunksUpToMentions ?? request.countCap);
    // One row per entity at least (chunk_id null when it has no evidence), carrying its mention count.
    const { rows } = await this.db.query<{
      entity_id: string;
      mentions: number;
      chunk_id: string | null;
      document_id: string | null;
      home: boolean | null;
      similarity: number | null;
    }>(
      `SELECT e.id AS entity_id, k.n AS mentions, x.chunk_id::text AS chunk_id, x.document_id, x.home, x.similarity
         FROM unnest(${pIds}::text[]) AS e(id)
        CROSS JOIN LATERAL (SELECT count(*)::int AS n FROM (SELECT 1 FROM mentions m WHERE m.entity_id = e.id LIMIT ${countCap}) y) k
        LEFT JOIN LATERAL (
          (SELECT c.id AS chunk_id, c.document_id, true AS home, ${sim} AS similarity
             FROM ${documentsRelation('d')} JOIN ${chunksRelation('c')} ON c.document_id = d.id
            WHERE k.n <= ${upTo} AND d.id IN (SELECT m.document_id FROM mentions m WHERE m.entity_id = e.id AND m.source = 'explicit' AND m.chunk_id IS NULL
                           UNION SELECT d2.id FROM ${documentsRelation('d2')} JOIN entity_names n ON n.entity_id = e.id WHERE lower(d2.title) = lower(n.name))
              AND ${passes}
            ORDER BY similarity DESC, c.id LIMIT ${homeCap})
          UNION ALL
          (SELECT c.id, c.document_id, false, ${sim} AS similarity
             FROM (SELECT m.chunk_id FROM mentions m WHERE k.n <= ${upTo} AND m.entity_id = e.id AND m.chunk_id IS NOT NULL LIMIT ${scan}) mm
             JOIN ${chunksRelation('c')} ON c.id = mm.chunk_id JOIN ${documentsRelation('d')} ON d.id = c.document_id
            WHERE ${passes}
            ORDER BY similarity DESC, c.id LIMIT ${perEntity})
        ) x ON true`,
      params.values,
    );
    const mentionCounts = new Map<string, number>();
    const out: EvidenceRow[] = [];
    for (const r of rows) {
      mentionCounts.set(r.entity_id, Number(r.mentions));
      if (r.chunk_id !== null && r.document_id !== null)
        out.push({
          entityId: r.entity_id,
          chunkId: r.chunk_id,
          documentId: r.document_id,
          home: r.home === true,
          similarity: Number(r.similarity ?? 0),
        });
    }
    return { rows: out, mentionCounts };
  }

  /** Those of `entityIds` that a live document passing `filter` mentions (how a filter scopes the graph). */
  async entityIdsMentionedWithin(entityIds: readonly string[], filter: DocumentFilterSpec): Promise<Set<string>> {
    if (entityIds.length === 0) return new Set();
    const params = new SqlParams();
    const ids = params.add([...new Set(entityIds)]);
    const { rows } = await this.db.query<{ entity_id: string }>(
      `SELECT DISTINCT m.entity_id FROM mentions m JOIN ${documentsRelation('d')} ON d.id = m.document_id
        WHERE m.entity_id = ANY(${ids}::text[]) AND ${documentFilterSql(filter, params)}`,
      params.values,
    );
    return new Set(rows.map((r) => r.entity_id));
  }

  /** Distinct entities mentioned by each document. */
  entityIdsByDocument(documentIds: readonly string[]): Promise<Map<string, string[]>> {
    return this.entityIdsBy('document_id', 'text', documentIds);
  }

  /** Entities mentioned by each chunk. */
  entityIdsByChunk(chunkIds: readonly string[]): Promise<Map<string, string[]>> {
    return this.entityIdsBy('chunk_id', 'bigint', chunkIds);
  }

  private async entityIdsBy(
    column: 'document_id' | 'chunk_id',
    type: 'text' | 'bigint',
    keys: readonly string[],
  ): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(keys.map((k) => [k, []]));
    if (keys.length === 0) return out;
    const params: unknown[] = [keys];
    const { rows } = await this.db.query<{ k: string; entity_id: string }>(
      `SELECT DISTINCT ${column}::text AS k, entity_id FROM mentions m
        WHERE m.${column} = ANY($1::${type}[]) AND ${spaceSql('m', params)} ORDER BY 1, 2`,
      params,
    );
    for (const r of rows) out.get(r.k)?.push(r.entity_id);
    return out;
  }

  /** Queues graph writes for Neo4j in the caller's transaction, in order, each link with its space (ENQUEUE_OPS). */
  async enqueue(q: Queryable, ops: readonly MentionOp[]): Promise<void> {
    if (ops.length === 0) return;
    await q.query(ENQUEUE_OPS, [ops.map((o) => JSON.stringify(o))]);
  }

  /** The oldest pending outbox entries. */
  async pending(limit: number): Promise<OutboxEntry[]> {
    // Order by the bigint column, not the text alias `id`: as text, '1000' sorts before '999' and ops apply out of order.
    const { rows } = await this.db.query<{ id: string; op: MentionOp; attempts: number }>(
      'SELECT id::text AS id, op, attempts FROM graph_outbox WHERE done_at IS NULL ORDER BY graph_outbox.id LIMIT $1',
      [limit],
    );
    return rows;
  }

  /** Marks entries applied. */
  async markDone(ids: readonly string[]): Promise<void> {
    if (ids.length > 0)
      await this.db.query('UPDATE graph_outbox SET done_at = now() WHERE id = ANY($1::bigint[])', [ids]);
  }

  /** Records a failed attempt on entries. */
  async markFailed(ids: readonly string[], error: string): Promise<void> {
    if (ids.length > 0)
      await this.db.query(
        'UPDATE graph_outbox SET attempts = attempts + 1, last_error = $2 WHERE id = ANY($1::bigint[])',
        [ids, error.slice(0, 2000)],
      );
  }

  /** Entries not yet applied. */
  async backlog(): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM graph_outbox WHERE done_at IS NULL',
    );
    return rows[0]?.n ?? 0;
  }

  /** Deletes applied entries older than a day (keeps the table small). */
  async prune(): Promise<void> {
    await this.db.query(`DELETE FROM graph_outbox WHERE done_at IS NOT NULL AND done_at < now() - interval '1 day'`);
  }
}
