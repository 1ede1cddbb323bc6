import type { Db, Queryable } from '../db/Db.js';
import { toVectorSql } from '../db/vector.js';
import { CHUNK_COLUMNS, toChunkRecord, type ChunkRow } from '../documents/chunkRepository.js';
import { DOCUMENT_COLUMNS, toDocumentRecord, type DocumentRow } from '../documents/documentRepository.js';
import { SqlParams, documentFilterSql } from '../documents/filterSql.js';
import type { DocumentFilterSpec } from '../documents/types.js';
import type { EmbeddingProvider } from '../embeddings/EmbeddingProvider.js';
import { badInput } from '../errors.js';
import type { SearchHitRecord, SearchRequest } from './types.js';
import { usesHnsw } from './vectorIndex.js';

/** Retrieval limits from configuration; callers can only tighten them. */
export interface SearchLimits {
  topK: number;
  maxTopK: number;
  minScoreFloor: number;
}

/** What a caller asked for, before limits. */
export interface SearchArgs {
  query: string;
  topK?: number | null;
  minScore?: number | null;
  filter: DocumentFilterSpec;
}

const MAX_QUERY_CHARS = 8000;
const DOC_PREFIX = 'd_';
const DEFAULT_EF_SEARCH = 40;

/** Applies defaults and caps: `topK` at most the configured maximum, `minScore` at least the configured floor. */
export function resolveSearchRequest(args: SearchArgs, limits: SearchLimits): SearchRequest {
  const query = args.query.trim();
  if (query === '') throw badInput('input.query', 'must not be empty');
  if (query.length > MAX_QUERY_CHARS) throw badInput('input.query', `must be at most ${MAX_QUERY_CHARS} characters`);
  const topK = args.topK ?? limits.topK;
  if (!Number.isInteger(topK) || topK < 1) throw badInput('input.topK', 'must be a positive integer');
  const minScore = args.minScore ?? 0;
  if (!Number.isFinite(minScore) || minScore < 0 || minScore > 1) throw badInput('input.minScore', 'must be between 0 and 1');
  return {
    query,
    topK: Math.min(topK, limits.maxTopK),
    minScore: Math.max(minScore, limits.minScoreFloor),
    filter: args.filter,
  };
}

/** Semantic search over chunk embeddings with pgvector's cosine distance. */
export class SearchService {
  constructor(
    private readonly db: Db,
    private readonly embedder: EmbeddingProvider,
    private readonly limits: SearchLimits,
  ) {}

  /** Embeds the query and returns the best chunks with their documents, best first. */
  async search(args: SearchArgs): Promise<SearchHitRecord[]> {
    const request = resolveSearchRequest(args, this.limits);
    const [vector] = await this.embedder.embed([request.query]);
    return this.searchByVector(vector as Float32Array, request);
  }

  /** Nearest chunks to a vector, honouring the filter, `topK` and `minScore`. */
  async searchByVector(vector: Float32Array, request: SearchRequest): Promise<SearchHitRecord[]> {
    const params = new SqlParams();
    const q = params.add(toVectorSql(vector));
    const where = documentFilterSql(request.filter, params);
    const limit = params.add(request.topK);
    const docColumns = DOCUMENT_COLUMNS.split(', ').map((c) => `d.${c} AS ${DOC_PREFIX}${c}`).join(', ');
    // Rank on chunk ids and distances only; fetch content and document columns for the k winners afterwards,
    // so the scan never carries wide rows through the sort.
    const sql = `WITH top AS (
                   SELECT c.id, (c.embedding <=> ${q}::vector) AS distance
                     FROM chunks c JOIN documents d ON d.id = c.document_id
                    WHERE c.embedding IS NOT NULL AND ${where}
                    ORDER BY c.embedding <=> ${q}::vector LIMIT ${limit})
                 SELECT ${CHUNK_COLUMNS}, ${docColumns}, top.distance
                   FROM top JOIN chunks c ON c.id = top.id JOIN documents d ON d.id = c.document_id
                  ORDER BY top.distance, c.id`;
    let rows = await this.run(this.db, sql, params.values, false, request.topK);
    // An approximate index scan stops after ef_search candidates, so a selective filter can starve it:
    // when it comes back short, an exact scan returns every match that exists.
    if (rows.length < request.topK && usesHnsw(this.db) && hasFilter(request.filter)) {
      rows = await this.run(this.db, sql, params.values, true, request.topK);
    }
    const hits: SearchHitRecord[] = [];
    for (const row of rows) {
      const score = Math.max(0, Math.min(1, 1 - Number(row.distance)));
      if (score < request.minScore) break;
      hits.push({ chunk: toChunkRecord(row), document: toDocumentRecord(unprefix(row)), score });
    }
    return hits;
  }

  private async run(db: Db, sql: string, values: unknown[], exact: boolean, topK: number): Promise<SearchRow[]> {
    // HNSW returns at most ef_search candidates (default 40): widen it when more hits are wanted.
    const widen = usesHnsw(db) && topK > DEFAULT_EF_SEARCH;
    if (!exact && !widen) return (await db.query<SearchRow>(sql, values)).rows;
    return db.transaction(async (tx: Queryable) => {
      if (exact) await tx.exec('SET LOCAL enable_indexscan = off');
      else await tx.exec(`SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.trunc(topK))}`);
      return (await tx.query<SearchRow>(sql, values)).rows;
    });
  }
}

type SearchRow = ChunkRow & Record<string, unknown> & { distance: number | string };

function hasFilter(f: DocumentFilterSpec): boolean {
  return Boolean(f.types?.length || f.sources?.length || f.tagGroups?.length || f.text);
}

function unprefix(row: Record<string, unknown>): DocumentRow {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) if (k.startsWith(DOC_PREFIX)) out[k.slice(DOC_PREFIX.length)] = v;
  return out as unknown as DocumentRow;
}
