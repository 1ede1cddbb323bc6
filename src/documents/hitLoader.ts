import type { Queryable } from '../db/Db.js';
import { readSpaceSql } from '../db/spaceScope.js';
import { CHUNK_COLUMNS, toChunkRecord, type ChunkRow } from './ChunkRepository.js';
import { DOCUMENT_SUMMARY_COLUMNS, toDocumentSummary, type DocumentSummaryRow } from './DocumentRepository.js';
import type { ChunkRecord, DocumentSummary } from './types.js';

const DOC_PREFIX = 'd_';

/** A chunk with its document, as loaded for a hit. */
export interface LoadedChunk {
  chunk: ChunkRecord;
  document: DocumentSummary;
}

/**
 * Loads chunks with their documents by chunk id in one query; ids that vanished meanwhile are missing from the map.
 * Documents come without their content, which may be megabytes per hit and is read only when a query selects it.
 */
export async function loadChunks(q: Queryable, chunkIds: readonly string[]): Promise<Map<string, LoadedChunk>> {
  if (chunkIds.length === 0) return new Map();
  const docColumns = DOCUMENT_SUMMARY_COLUMNS.split(', ')
    .map((c) => `d.${c} AS ${DOC_PREFIX}${c}`)
    .join(', ');
  const params: unknown[] = [chunkIds];
  const { rows } = await q.query<ChunkRow & Record<string, unknown>>(
    `SELECT ${CHUNK_COLUMNS}, ${docColumns}
       FROM chunks c JOIN documents d ON d.id = c.document_id
      WHERE c.id = ANY($1::bigint[]) AND ${readSpaceSql('d', params)}`,
    params,
  );
  return new Map(
    rows.map((r) => [String(r.id), { chunk: toChunkRecord(r), document: toDocumentSummary(unprefix(r)) }]),
  );
}

/** Up to `n` chunks before and after each given chunk in its document, in order, keyed by the given chunk's id. */
export async function loadNeighbors(
  q: Queryable,
  chunks: readonly ChunkRecord[],
  n: number,
): Promise<Map<string, ChunkRecord[]>> {
  const out = new Map<string, ChunkRecord[]>(chunks.map((c) => [c.id, []]));
  if (chunks.length === 0 || n <= 0) return out;
  const params: unknown[] = [chunks.map((c) => c.id), chunks.map((c) => c.documentId), chunks.map((c) => c.ordinal), n];
  const { rows } = await q.query<ChunkRow & { hit_id: string }>(
    `SELECT h.hit_id, ${CHUNK_COLUMNS}
       FROM unnest($1::text[], $2::text[], $3::int[]) AS h(hit_id, document_id, ordinal)
       JOIN chunks c ON c.document_id = h.document_id
                    AND c.ordinal BETWEEN h.ordinal - $4::int AND h.ordinal + $4::int AND c.ordinal <> h.ordinal
      WHERE ${readSpaceSql('c', params)}
      ORDER BY h.hit_id, c.ordinal`,
    params,
  );
  for (const r of rows) out.get(r.hit_id)?.push(toChunkRecord(r));
  return out;
}

function unprefix(row: Record<string, unknown>): DocumentSummaryRow {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) if (k.startsWith(DOC_PREFIX)) out[k.slice(DOC_PREFIX.length)] = v;
  return out as unknown as DocumentSummaryRow;
}
