import type { Db, Queryable } from '../db/Db.js';
import { jsonParam } from '../db/rowValues.js';
import type { MatchTier } from './resolveEntities.js';
import type { CandidateKind } from './types.js';

/** What materialises an extracted entity (fact key `e:<id>`). */
export interface EntityFact {
  id: string;
  type: string;
  name: string;
  aliases: string[];
  description: string | null;
  kind: CandidateKind;
  /** How the name found the entity: a fuzzy variant's name never becomes an alias. */
  tier: MatchTier;
}

/** What materialises an extracted relationship (fact key `r:<relationship id>`). */
export interface RelationshipFact {
  fromId: string;
  type: string;
  toId: string;
  description: string | null;
  /** Evidence of two entities named in one chunk (a weighted RELATED_TO). */
  cooccurrence?: boolean;
  /** A co-occurrence whose sentence states the relation (RelationshipCandidate.stated): one passage is enough. */
  stated?: boolean;
}

/** A link to another document (fact key `l:<document id>`): never materialised, it tells whom to revisit. */
export interface LinkFact {
  toDocumentId: string;
}

/** A link that pointed to no stored document when it was extracted (`u:<a source it may point to>`). */
export interface UnresolvedLinkFact {
  href: string;
}

/** One row of support: a fact, the chunk that supports it and the extractor that found it there. */
export interface EvidenceRow {
  factKey: string;
  fact: EntityFact | RelationshipFact | LinkFact | UnresolvedLinkFact;
  documentId: string;
  chunkId: string | null;
  extractor: string;
  quote: string;
  confidence: number;
}

/** All support of one fact: distinct documents and chunks, and the distinct forms of the fact. */
export interface FactSupport {
  factKey: string;
  documents: number;
  chunks: number;
  /**
   * The most distinct quotes one extractor gave: for a co-occurrence, the distinct sentences (or chunk passages)
   * naming both entities; a passage repeated by overlapping chunks or copied across pages counts once. Counted for
   * relationships only (0 for an entity: nothing reads it, and a common name's quotes are many).
   */
  quotes: number;
  /** The extractors that found it (`cooccurrence` for chunk-level co-occurrence). */
  extractors: string[];
  facts: (EntityFact | RelationshipFact)[];
}

/** The extraction_evidence table (the support of extracted facts) and extraction_facts (what extraction wrote). */
export class EvidenceRepository {
  constructor(private readonly db: Db) {}

  /** Replaces a document's evidence; returns the fact keys it supported before. One transaction. */
  replaceDocument(documentId: string, rows: readonly EvidenceRow[]): Promise<string[]> {
    return this.replaceDocuments([documentId], rows);
  }

  /** Replaces the evidence of documents (`rows` is all of theirs); returns the fact keys they supported before. */
  replaceDocuments(documentIds: readonly string[], rows: readonly EvidenceRow[]): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      await lockEvidenceSupport(tx);
      const { rows: old } = await tx.query<{ fact_key: string }>(
        'DELETE FROM extraction_evidence WHERE document_id = ANY($1::text[]) RETURNING fact_key',
        [[...new Set(documentIds)]],
      );
      await insertEvidence(tx, rows);
      return [...new Set(old.map((r) => r.fact_key))];
    });
  }

  /** The support of each of `factKeys` that has any, as kept by difference (migration 026's triggers). */
  async supportOf(factKeys: readonly string[]): Promise<Map<string, FactSupport>> {
    if (factKeys.length === 0) return new Map();
    // Grouped reads of the forms and quotes joined by key: three correlated look-ups per key cost 2.5 times as much.
    const { rows } = await this.db.query<SupportRow>(
      `SELECT s.fact_key, s.documents, s.chunks, COALESCE(q.quotes, 0) AS quotes, f.extractors, f.facts
         FROM extraction_support s
         LEFT JOIN (SELECT fact_key, array_agg(DISTINCT extractor ORDER BY extractor) AS extractors,
                           jsonb_agg(DISTINCT fact) AS facts
                      FROM extraction_support_forms WHERE fact_key = ANY($1::text[]) GROUP BY fact_key) f
           ON f.fact_key = s.fact_key
         LEFT JOIN (SELECT fact_key, max(quotes) AS quotes FROM extraction_support_quotes
                     WHERE fact_key = ANY($1::text[]) GROUP BY fact_key) q ON q.fact_key = s.fact_key
        WHERE s.fact_key = ANY($1::text[])`,
      [[...new Set(factKeys)]],
    );
    return toSupport(rows);
  }

  /** The support of each of `factKeys`, counted from the evidence rows themselves (what supportOf must equal). */
  async recountSupport(factKeys: readonly string[]): Promise<Map<string, FactSupport>> {
    if (factKeys.length === 0) return new Map();
    const { rows } = await this.db.query<SupportRow>(
      `SELECT fact_key, count(DISTINCT document_id)::int AS documents,
              count(DISTINCT (document_id, coalesce(chunk_id, 0)))::int AS chunks,
              CASE WHEN fact_key LIKE 'r:%' THEN
                (SELECT max(n)::int FROM (SELECT count(DISTINCT q.quote) AS n FROM extraction_evidence q
                                           WHERE q.fact_key = e.fact_key GROUP BY q.extractor) per) ELSE 0 END AS quotes,
              array_agg(DISTINCT extractor ORDER BY extractor) AS extractors, jsonb_agg(DISTINCT fact) AS facts
         FROM extraction_evidence e WHERE fact_key = ANY($1::text[]) GROUP BY fact_key`,
      [[...new Set(factKeys)]],
    );
    return toSupport(rows);
  }

  /** Every fact key with evidence or kept support ('e:' and 'r:'), for comparing the kept counts with a recount. */
  async supportedFactKeys(): Promise<string[]> {
    const { rows } = await this.db.query<{ fact_key: string }>(
      `SELECT fact_key FROM extraction_evidence WHERE fact_key LIKE 'e:%' OR fact_key LIKE 'r:%'
       UNION SELECT fact_key FROM extraction_support UNION SELECT fact_key FROM extraction_support_forms
       UNION SELECT fact_key FROM extraction_support_quotes ORDER BY 1`,
    );
    return rows.map((r) => r.fact_key);
  }

  /** The fact keys a document supports. */
  async factKeysOf(documentId: string): Promise<string[]> {
    const { rows } = await this.db.query<{ fact_key: string }>(
      'SELECT DISTINCT fact_key FROM extraction_evidence WHERE document_id = $1 ORDER BY fact_key',
      [documentId],
    );
    return rows.map((r) => r.fact_key);
  }

  /** Every evidence row of a document (tests and provenance). */
  async rowsOf(documentId: string): Promise<EvidenceRow[]> {
    const { rows } = await this.db.query<{
      fact_key: string;
      fact: EvidenceRow['fact'];
      document_id: string;
      chunk_id: string | null;
      extractor: string;
      quote: string;
      confidence: number;
    }>(
      `SELECT fact_key, fact, document_id, chunk_id::text AS chunk_id, extractor, quote, confidence
         FROM extraction_evidence WHERE document_id = $1 ORDER BY fact_key, chunk_id, extractor`,
      [documentId],
    );
    return rows.map((r) => ({
      factKey: r.fact_key,
      fact: r.fact,
      documentId: r.document_id,
      chunkId: r.chunk_id,
      extractor: r.extractor,
      quote: r.quote,
      confidence: Number(r.confidence),
    }));
  }

  /** The page entity (the thing a document is about) of each document among `documentIds` that has one. */
  async pageEntities(documentIds: readonly string[]): Promise<Map<string, string>> {
    if (documentIds.length === 0) return new Map();
    const { rows } = await this.db.query<{ document_id: string; id: string }>(
      `SELECT DISTINCT ON (document_id) document_id, fact->>'id' AS id FROM extraction_evidence
        WHERE document_id = ANY($1::text[]) AND fact_key LIKE 'e:%' AND fact->>'kind' = 'page'
        ORDER BY document_id, chunk_id NULLS FIRST, confidence DESC, fact_key`,
      [[...new Set(documentIds)]],
    );
    return new Map(rows.map((r) => [r.document_id, r.id]));
  }

  /** Documents with a link that pointed nowhere when they were extracted and may point to one of these sources now. */
  async documentsLinkingToSources(written: readonly { documentId: string; source: string }[]): Promise<string[]> {
    if (written.length === 0) return [];
    const { rows } = await this.db.query<{ document_id: string }>(
      `SELECT DISTINCT e.document_id FROM unnest($1::text[], $2::text[]) AS x(source, document_id)
         JOIN extraction_evidence e ON e.fact_key = 'u:' || x.source AND e.document_id <> x.document_id ORDER BY 1`,
      [written.map((w) => w.source), written.map((w) => w.documentId)],
    );
    return rows.map((r) => r.document_id);
  }

  /** Documents linking to one of `pages` that have no LINKS_TO evidence to its page entity yet (to extract again). */
  async documentsLinkingWithout(pages: readonly { documentId: string; pageEntityId: string }[]): Promise<string[]> {
    if (pages.length === 0) return [];
    const { rows } = await this.db.query<{ document_id: string }>(
      `SELECT DISTINCT l.document_id FROM unnest($1::text[], $2::text[]) AS x(document_id, page_entity_id)
         JOIN extraction_evidence l ON l.fact_key = 'l:' || x.document_id AND l.document_id <> x.document_id
        WHERE NOT EXISTS (
          SELECT 1 FROM extraction_evidence r WHERE r.document_id = l.document_id AND r.fact_key LIKE 'r:%'
             AND r.fact->>'type' = 'LINKS_TO' AND r.fact->>'toId' = x.page_entity_id)
        ORDER BY 1`,
      [pages.map((p) => p.documentId), pages.map((p) => p.pageEntityId)],
    );
    return rows.map((r) => r.document_id);
  }

  /** The fact keys among `factKeys` that extraction wrote into the graph store. */
  async materialized(factKeys: readonly string[]): Promise<Set<string>> {
    if (factKeys.length === 0) return new Set();
    const { rows } = await this.db.query<{ fact_key: string }>(
      'SELECT fact_key FROM extraction_facts WHERE fact_key = ANY($1::text[])',
      [[...new Set(factKeys)]],
    );
    return new Set(rows.map((r) => r.fact_key));
  }

  /** Records facts extraction wrote into the graph store. */
  async markMaterialized(factKeys: readonly string[]): Promise<void> {
    if (factKeys.length === 0) return;
    await this.db.query(
      'INSERT INTO extraction_facts (fact_key) SELECT DISTINCT x FROM unnest($1::text[]) AS x ON CONFLICT DO NOTHING',
      [factKeys],
    );
  }

  /** Forgets facts removed from the graph store. */
  async unmarkMaterialized(factKeys: readonly string[]): Promise<void> {
    if (factKeys.length === 0) return;
    await this.db.query('DELETE FROM extraction_facts WHERE fact_key = ANY($1::text[])', [factKeys]);
  }
}

interface SupportRow {
  fact_key: string;
  documents: number;
  chunks: number;
  quotes: number;
  extractors: string[];
  facts: (EntityFact | RelationshipFact)[];
}

function toSupport(rows: readonly SupportRow[]): Map<string, FactSupport> {
  return new Map(
    rows.map((r) => [
      r.fact_key,
      {
        factKey: r.fact_key,
        documents: r.documents,
        chunks: r.chunks,
        quotes: r.quotes,
        extractors: r.extractors,
        facts: r.facts,
      },
    ]),
  );
}

/**
 * Takes the lock that writers of extraction_evidence hold until they commit (its triggers keep the support counts by
 * difference, which needs every earlier change committed). Take it first in a transaction, before any row lock.
 */
export async function lockEvidenceSupport(q: Queryable): Promise<void> {
  await q.query('SELECT pg_advisory_xact_lock(2020832624)'); // "xsup", as in migration 026
}

/** Inserts evidence rows, one per (fact, document, chunk, extractor): the most confident of duplicates. */
async function insertEvidence(q: Queryable, rows: readonly EvidenceRow[]): Promise<void> {
  const unique = new Map<string, EvidenceRow>();
  for (const r of rows) {
    const key = `${r.factKey}\u0000${r.documentId}\u0000${r.chunkId ?? 0}\u0000${r.extractor}`;
    const seen = unique.get(key);
    if (!seen || seen.confidence < r.confidence) unique.set(key, r);
  }
  const list = [...unique.values()];
  // One JSON document per statement: escaping every fact's JSON into a text array cost a third more than the insert.
  for (let i = 0; i < list.length; i += 1000) {
    const batch = list.slice(i, i + 1000).map((r) => ({
      k: r.factKey,
      f: r.fact,
      d: r.documentId,
      c: r.chunkId,
      e: r.extractor,
      q: r.quote.slice(0, 200),
      n: r.confidence,
    }));
    await q.query(
      `INSERT INTO extraction_evidence (fact_key, fact, document_id, chunk_id, extractor, quote, confidence)
       SELECT x.k, x.f, x.d, x.c, x.e, x.q, x.n
         FROM jsonb_to_recordset($1::jsonb) AS x(k text, f jsonb, d text, c bigint, e text, q text, n real)`,
      [jsonParam(batch)],
    );
  }
}
