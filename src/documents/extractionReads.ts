import type { Queryable } from '../db/Db.js';
import { spaceSql } from '../db/spaceScope.js';
import { liveDocumentSql } from './filterSql.js';

/** The live documents whose `source` is one of `sources` (links resolve to documents this way): source → id. */
export async function documentIdsBySource(q: Queryable, sources: readonly string[]): Promise<Map<string, string>> {
  if (sources.length === 0) return new Map();
  const params: unknown[] = [[...new Set(sources)]];
  const { rows } = await q.query<{ source: string; id: string }>(
    `SELECT DISTINCT ON (d.source) d.source, d.id FROM documents d
      WHERE d.source = ANY($1::text[]) AND ${liveDocumentSql('d')} AND ${spaceSql('d', params)} ORDER BY d.source, d.id`,
    params,
  );
  return new Map(rows.map((r) => [r.source, r.id]));
}
