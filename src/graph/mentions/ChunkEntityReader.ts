import type { Db } from '../../db/Db.js';
import { readSpaceSql } from '../../db/spaceScope.js';

/** An entity a chunk mentions, with what tells a bridge to a second hop from a dead end. */
export interface ChunkEntity {
  entityId: string;
  /** Chunks that mention it, counted up to the cap. */
  mentions: number;
  /** Documents linked to it explicitly (its own pages), at most HOME_IDS of them. */
  homeDocumentIds: string[];
}

/** Home documents read per entity: enough to tell whether one lies outside the context. */
const HOME_IDS = 3;

/**
 * Reads the entities that chunks mention, each with its mention count and home documents, for the graph lane's
 * bridges: an entity the context's chunks name that has a page of its own, or other chunks naming it, leads somewhere
 * the context does not reach yet; one named only there leads nowhere.
 */
export class ChunkEntityReader {
  constructor(private readonly db: Db) {}

  /** Per chunk id, its entities (by id), each with its mention count up to `countCap` and home documents. */
  async read(chunkIds: readonly string[], countCap: number): Promise<Map<string, ChunkEntity[]>> {
    const out = new Map<string, ChunkEntity[]>(chunkIds.map((k) => [k, []]));
    if (chunkIds.length === 0) return out;
    const params: unknown[] = [chunkIds, countCap, HOME_IDS];
    const { rows } = await this.db.query<{ k: string; entity_id: string; mentions: number; homes: string[] | null }>(
      `WITH pairs AS (SELECT DISTINCT m.chunk_id::text AS k, m.entity_id FROM mentions m
                       WHERE m.chunk_id = ANY($1::bigint[]) AND ${readSpaceSql('m', params)}),
            ents AS (SELECT DISTINCT entity_id FROM pairs)
       SELECT p.k, p.entity_id, e.mentions, e.homes FROM pairs p JOIN (
         SELECT x.entity_id,
                (SELECT count(*) FROM (SELECT 1 FROM mentions y WHERE y.entity_id = x.entity_id LIMIT $2) c)::int AS mentions,
                ARRAY(SELECT h.document_id FROM mentions h
                       WHERE h.entity_id = x.entity_id AND h.source = 'explicit' AND coalesce(h.chunk_id, 0) = 0
                       ORDER BY h.document_id LIMIT $3) AS homes
           FROM ents x) e ON e.entity_id = p.entity_id
        ORDER BY 1, 2`,
      params,
    );
    for (const r of rows)
      out.get(r.k)?.push({ entityId: r.entity_id, mentions: Number(r.mentions), homeDocumentIds: r.homes ?? [] });
    return out;
  }
}
