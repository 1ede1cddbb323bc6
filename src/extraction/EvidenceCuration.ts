import type { Queryable } from '../db/Db.js';
import { writeSpace } from '../db/spaceScope.js';
import type { JsonObject } from '../shared/json.js';
import type { StoredEvidence } from './EvidenceReader.js';
import { lockEvidenceSupport } from './EvidenceRepository.js';
import { nameKey } from './nameKey.js';

/** One evidence row, by its unique key. */
export interface EvidenceRowKey {
  factKey: string;
  documentId: string;
  chunkId: string | null;
  extractor: string;
}

/** Evidence of one fact handed to another (a merge): `patch` is merged into the rows' `fact` (e.g. the new id). */
export interface FactMove {
  from: string;
  to: string;
  patch: JsonObject;
}

/**
 * Admins' changes to extraction's tables: evidence moved by a merge (and back by its undo), evidence of a rejected
 * fact dropped, rejected names and relationships recorded (and lifted by an undo). The extraction pipeline owns the rows otherwise.
 */
export class EvidenceCuration {
  /**
   * Hands the evidence of each `from` fact to its `to` fact; a row `to` already has (same document, chunk and
   * extractor) is dropped instead. Returns the rows now under `to` that came from `from` (what an undo removes).
   */
  async move(q: Queryable, moves: readonly FactMove[]): Promise<EvidenceRowKey[]> {
    const moved: EvidenceRowKey[] = [];
    await lockEvidenceSupport(q);
    for (const m of moves) {
      if (m.from === m.to) continue;
      await q.query(
        `DELETE FROM extraction_evidence f
          WHERE f.fact_key = $1
            AND EXISTS (SELECT 1 FROM extraction_evidence t
                         WHERE t.fact_key = $2 AND t.document_id = f.document_id
                           AND COALESCE(t.chunk_id, 0) = COALESCE(f.chunk_id, 0) AND t.extractor = f.extractor)`,
        [m.from, m.to],
      );
      const { rows } = await q.query<{ document_id: string; chunk_id: string | number | null; extractor: string }>(
        `UPDATE extraction_evidence SET fact_key = $2, fact = fact || $3::jsonb WHERE fact_key = $1
         RETURNING document_id, chunk_id, extractor`,
        [m.from, m.to, JSON.stringify(m.patch)],
      );
      for (const r of rows)
        moved.push({
          factKey: m.to,
          documentId: r.document_id,
          chunkId: r.chunk_id === null ? null : String(r.chunk_id),
          extractor: r.extractor,
        });
    }
    return moved;
  }

  /** Deletes these evidence rows. */
  async deleteRows(q: Queryable, rows: readonly EvidenceRowKey[]): Promise<void> {
    if (rows.length === 0) return;
    await lockEvidenceSupport(q);
    await q.query(
      `DELETE FROM extraction_evidence v
        USING unnest($1::text[], $2::text[], $3::bigint[], $4::text[]) AS x(fact_key, document_id, chunk_id, extractor)
        WHERE v.fact_key = x.fact_key AND v.document_id = x.document_id
          AND COALESCE(v.chunk_id, 0) = COALESCE(x.chunk_id, 0) AND v.extractor = x.extractor`,
      [
        rows.map((r) => r.factKey),
        rows.map((r) => r.documentId),
        rows.map((r) => r.chunkId),
        rows.map((r) => r.extractor),
      ],
    );
  }

  /** Writes rows back as they were (rows that exist again are left alone). */
  async restore(q: Queryable, rows: readonly StoredEvidence[]): Promise<void> {
    if (rows.length === 0) return;
    await lockEvidenceSupport(q);
    await q.query(
      `INSERT INTO extraction_evidence (fact_key, fact, document_id, chunk_id, extractor, quote, confidence, created_at)
       SELECT x.fact_key, x.fact::jsonb, x.document_id, x.chunk_id, x.extractor, x.quote, x.confidence, x.created_at
         FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::real[], $8::timestamptz[])
           AS x(fact_key, fact, document_id, chunk_id, extractor, quote, confidence, created_at)
       ON CONFLICT DO NOTHING`,
      [
        rows.map((r) => r.factKey),
        rows.map((r) => JSON.stringify(r.fact)),
        rows.map((r) => r.documentId),
        rows.map((r) => r.chunkId),
        rows.map((r) => r.extractor),
        rows.map((r) => r.quote),
        rows.map((r) => r.confidence),
        rows.map((r) => r.createdAt.toISOString()),
      ],
    );
  }

  /** Deletes all evidence of these facts. */
  async deleteFacts(q: Queryable, factKeys: readonly string[]): Promise<void> {
    if (factKeys.length === 0) return;
    await lockEvidenceSupport(q);
    await q.query('DELETE FROM extraction_evidence WHERE fact_key = ANY($1::text[])', [[...factKeys]]);
  }

  /** Records a rejected name: extraction never creates an entity with this normalised name again. */
  async reject(q: Queryable, name: string): Promise<string> {
    const key = rejectionKey(name);
    await q.query(
      `INSERT INTO extraction_rejections (name_key, name, space_id) VALUES ($1, $2, $3)
       ON CONFLICT (space_id, name_key) DO UPDATE SET name = EXCLUDED.name, rejected_at = now()`,
      [key, name, writeSpace()],
    );
    return key;
  }

  /** Lifts the rejection of a name (an undone rejectEntity): extraction may create it again. */
  async unreject(q: Queryable, name: string): Promise<void> {
    await q.query('DELETE FROM extraction_rejections WHERE name_key = $1 AND space_id = $2', [
      rejectionKey(name),
      writeSpace(),
    ]);
  }

  /** Whether a name (normalised) was rejected. */
  async isRejected(q: Queryable, name: string): Promise<boolean> {
    const { rows } = await q.query('SELECT 1 FROM extraction_rejections WHERE name_key = $1 AND space_id = $2', [
      rejectionKey(name),
      writeSpace(),
    ]);
    return rows.length > 0;
  }

  /** Records a rejected relationship: extraction never writes one with its id (ends and type) again. */
  async rejectRelationship(q: Queryable, r: { id: string; fromId: string; type: string; toId: string }): Promise<void> {
    await q.query(
      `INSERT INTO extraction_relationship_rejections (relationship_id, from_id, type, to_id, space_id)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (relationship_id) DO UPDATE SET rejected_at = now()`,
      [r.id, r.fromId, r.type, r.toId, writeSpace()],
    );
  }

  /** Marks relationship facts as extraction's own again (restored by an undo), so extraction may change them. */
  async markExtracted(q: Queryable, factKeys: readonly string[]): Promise<void> {
    if (factKeys.length === 0) return;
    await q.query(
      'INSERT INTO extraction_facts (fact_key) SELECT DISTINCT x FROM unnest($1::text[]) AS x ON CONFLICT DO NOTHING',
      [[...factKeys]],
    );
  }

  /** Lifts the rejection of a relationship (an undone rejectRelationship). */
  async unrejectRelationship(q: Queryable, id: string): Promise<void> {
    await q.query('DELETE FROM extraction_relationship_rejections WHERE relationship_id = $1', [id]);
  }
}

/**
 * The normalised name a rejection is keyed by: the key extraction resolves names under (nameKey: case, accents,
 * punctuation and a prose name's plural folded), so a rejected name blocks every candidate that would resolve to it.
 */
export function rejectionKey(name: string): string {
  return nameKey(name);
}
