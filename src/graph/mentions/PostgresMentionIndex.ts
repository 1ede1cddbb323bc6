import type { Queryable } from '../../db/Db.js';
import { readSpaceSql } from '../../db/spaceScope.js';
import { liveDocumentSql } from '../../documents/filterSql.js';
import { documentsRelation } from '../../documents/relations.js';
import type { MentionIndex } from '../types.js';

// The one definition of "an entity is mentioned": a mention row whose document is live (not expired), the same rule
// as `Entity.documents`. Mentions live in Postgres for both graph stores: the Postgres store embeds the predicate in
// its queries, the Neo4j store gets the id list through `PostgresMentionIndex`.

/** SQL predicate: a live document mentions the entity whose id is the SQL expression `entityId`. */
export function mentionedByLiveDocument(entityId: string): string {
  return `EXISTS (SELECT 1 FROM mentions m JOIN ${documentsRelation('d')} ON d.id = m.document_id
                   WHERE m.entity_id = ${entityId} AND ${liveDocumentSql('d')})`;
}

/** `MentionIndex` over the `mentions` table of the main database. */
export class PostgresMentionIndex implements MentionIndex {
  constructor(private readonly db: Queryable) {}

  /**
   * Distinct ids of the request's space's entities that a live document mentions, in no particular order; with
   * `limit`, at most `limit + 1`.
   */
  async mentionedEntityIds(limit?: number): Promise<string[]> {
    const params: unknown[] = [];
    const cap = limit === undefined ? '' : ` LIMIT $${params.push(limit + 1)}`;
    const { rows } = await this.db.query<{ id: string }>(
      `SELECT n.entity_id AS id FROM entity_names n
        WHERE ${readSpaceSql('n', params)} AND ${mentionedByLiveDocument('n.entity_id')}${cap}`,
      params,
    );
    return rows.map((r) => r.id);
  }
}
