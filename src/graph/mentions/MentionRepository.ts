import type { Db, Queryable } from '../../db/Db.js';
import { SqlParams } from '../../db/SqlParams.js';
import { currentSpaceScope, readSpaceSql } from '../../db/spaceScope.js';
import { VectorParam } from '../../db/vector.js';
import { documentFilterSql, liveDocumentSql } from '../../documents/filterSql.js';
import { chunksRelation, documentsRelation } from '../../documents/relations.js';
import type { DocumentFilterSpec } from '../../documents/types.js';

/** A mention row: an entity named in a chunk (or, for explicit links, in a whole document). */
export interface MentionRow {
  entityId: string;
  documentId: string;
  chunkId: string | null;
}

/** What `evidence` looks for. */
export interface EvidenceRequest {
  filter: DocumentFilterSpec;
  /** The query's embedding, or null. */
  queryVector: Float32Array | null;
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

/** The mentions table: which entities each chunk (or, by an explicit link, each document) names. */
export class MentionRepository {
  constructor(private readonly db: Db) {}

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

  /** An entity's mentions of one source, in a stable order. */
  async ofEntity(entityId: string, source: 'auto' | 'explicit'): Promise<MentionRow[]> {
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

  /** Deletes these mentions of one source; returns the (entity, document) pairs left with no mention at all. */
  async remove(
    tx: Queryable,
    rows: readonly MentionRow[],
    source: 'auto' | 'explicit',
  ): Promise<{ entityId: string; documentId: string }[]> {
    const entityIds = rows.map((r) => r.entityId);
    const documentIds = rows.map((r) => r.documentId);
    await tx.query(
      `DELETE FROM mentions m
        USING unnest($1::text[], $2::text[], $3::bigint[]) AS x(entity_id, document_id, chunk_id)
        WHERE m.entity_id = x.entity_id AND m.document_id = x.document_id
          AND COALESCE(m.chunk_id, 0) = COALESCE(x.chunk_id, 0) AND m.source = $4`,
      [entityIds, documentIds, rows.map((r) => r.chunkId), source],
    );
    const { rows: left } = await tx.query<{ entity_id: string; document_id: string }>(
      `SELECT DISTINCT x.entity_id, x.document_id FROM unnest($1::text[], $2::text[]) AS x(entity_id, document_id)
        WHERE NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = x.entity_id AND m.document_id = x.document_id)`,
      [entityIds, documentIds],
    );
    return left.map((r) => ({ entityId: r.entity_id, documentId: r.document_id }));
  }

  /** Each (entity, live document) pair the documents' mentions link, with the document's title. */
  async linksOf(
    tx: Queryable,
    documentIds: readonly string[],
  ): Promise<{ entityId: string; documentId: string; documentTitle: string }[]> {
    const { rows } = await tx.query<{ entity_id: string; document_id: string; title: string }>(
      `SELECT DISTINCT m.entity_id, m.document_id, d.title FROM mentions m JOIN ${documentsRelation('d')} ON d.id = m.document_id
        WHERE m.document_id = ANY($1::text[])`,
      [documentIds],
    );
    return rows.map((r) => ({ entityId: r.entity_id, documentId: r.document_id, documentTitle: r.title }));
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
          WHERE m.entity_id = ANY($1::text[]) AND ${liveDocumentSql('d')} AND ${readSpaceSql('d', params)}
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
    const inSpace = `EXISTS (SELECT 1 FROM entity_names n WHERE n.entity_id = e.id AND ${readSpaceSql('n', params)})`;
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
    const vector = params.add(request.queryVector && new VectorParam(request.queryVector));
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
            WHERE k.n <= ${upTo} AND d.id IN (SELECT m.document_id FROM mentions m WHERE m.entity_id = e.id AND m.source = 'explicit' AND coalesce(m.chunk_id, 0) = 0
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
        WHERE m.${column} = ANY($1::${type}[]) AND ${readSpaceSql('m', params)} ORDER BY 1, 2`,
      params,
    );
    for (const r of rows) out.get(r.k)?.push(r.entity_id);
    return out;
  }
}
