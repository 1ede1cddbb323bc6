import type { Queryable } from '../db/Db.js';
import { toDate } from '../db/rowValues.js';
import type { JsonObject } from '../shared/json.js';

/** One row of the support of an extracted fact: a chunk (or a whole document) that an extractor found it in. */
export interface EvidenceItem {
  /** 'e:<entity id>' or 'r:<relationship id>'. */
  factKey: string;
  documentId: string;
  /** Null when the whole document supports it (e.g. a page's title). */
  chunkId: string | null;
  extractor: string;
  quote: string;
  confidence: number;
  createdAt: Date;
}

/** An evidence row with what materialises its fact (kept in a merge's snapshot to restore it). */
export interface StoredEvidence extends EvidenceItem {
  fact: JsonObject;
}

/** A page of one fact's evidence, with the fact's total. */
export interface EvidencePage {
  items: EvidenceItem[];
  totalCount: number;
}

interface EvidenceRow {
  fact_key: string;
  document_id: string;
  chunk_id: string | number | null;
  extractor: string;
  quote: string;
  confidence: number;
  created_at: Date | string;
  total: number;
  fact?: JsonObject;
}

/** The key of an entity's evidence rows. */
export const entityFactKey = (entityId: string): string => `e:${entityId}`;
/** The key of a relationship's evidence rows. */
export const relationshipFactKey = (relationshipId: string): string => `r:${relationshipId}`;

/** Reads `extraction_evidence` (written by the extraction pipeline): the support of extracted facts, paged. */
export class EvidenceReader {
  constructor(private readonly db: Queryable) {}

  /**
   * For each fact key, rows `offset` to `offset + first` (most confident first, then by document, chunk and extractor)
   * and the total, in one statement.
   */
  async pages(factKeys: readonly string[], first: number, offset: number): Promise<Map<string, EvidencePage>> {
    const out = new Map<string, EvidencePage>(factKeys.map((k) => [k, { items: [], totalCount: 0 }]));
    if (factKeys.length === 0) return out;
    const { rows } = await this.db.query<EvidenceRow>(
      `SELECT fact_key, document_id, chunk_id, extractor, quote, confidence, created_at, total
         FROM (SELECT v.*, count(*) OVER (PARTITION BY v.fact_key)::int AS total,
                      row_number() OVER (PARTITION BY v.fact_key
                                         ORDER BY v.confidence DESC, v.document_id COLLATE "C",
                                                  COALESCE(v.chunk_id, 0), v.extractor COLLATE "C") AS rn
                 FROM extraction_evidence v WHERE v.fact_key = ANY($1::text[])) ranked
        WHERE rn > $2::int AND rn <= $2::int + $3::int
        ORDER BY fact_key, rn`,
      [[...new Set(factKeys)], offset, first],
    );
    for (const r of rows) {
      const page = out.get(r.fact_key);
      if (!page) continue;
      page.totalCount = r.total;
      page.items.push(toEvidenceItem(r));
    }
    // A page past the end (or of size 0) has no rows to carry the total.
    const missing = [...out].filter(([, p]) => p.items.length === 0).map(([k]) => k);
    if ((offset > 0 || first <= 0) && missing.length > 0) {
      const counts = await this.db.query<{ fact_key: string; n: number }>(
        `SELECT fact_key, count(*)::int AS n FROM extraction_evidence WHERE fact_key = ANY($1::text[]) GROUP BY fact_key`,
        [missing],
      );
      for (const c of counts.rows) {
        const page = out.get(c.fact_key);
        if (page) page.totalCount = c.n;
      }
    }
    return out;
  }

  /** Every evidence row of these facts (a merge's snapshot), in a stable order. */
  async allOf(q: Queryable, factKeys: readonly string[]): Promise<StoredEvidence[]> {
    if (factKeys.length === 0) return [];
    const { rows } = await q.query<EvidenceRow>(
      `SELECT fact_key, fact, document_id, chunk_id, extractor, quote, confidence, created_at, 0 AS total
         FROM extraction_evidence WHERE fact_key = ANY($1::text[])
        ORDER BY fact_key COLLATE "C", document_id COLLATE "C", COALESCE(chunk_id, 0), extractor COLLATE "C"`,
      [[...new Set(factKeys)]],
    );
    return rows.map((r) => ({ ...toEvidenceItem(r), fact: r.fact ?? {} }));
  }
}

function toEvidenceItem(r: EvidenceRow): EvidenceItem {
  return {
    factKey: r.fact_key,
    documentId: r.document_id,
    chunkId: r.chunk_id === null ? null : String(r.chunk_id),
    extractor: r.extractor,
    quote: r.quote,
    confidence: Number(r.confidence),
    createdAt: toDate(r.created_at),
  };
}
