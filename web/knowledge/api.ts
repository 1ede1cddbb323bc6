// The GraphQL operations of the knowledge pages and the shapes they return (see schema.graphql).

/** The document types of the schema, in its order. */
export const DOCUMENT_TYPES = ['MANUAL', 'TUTORIAL', 'API_SPEC', 'FAQ', 'POLICY', 'REFERENCE', 'OTHER'] as const;

/** The search modes of the schema. */
export const SEARCH_MODES = ['HYBRID', 'VECTOR', 'KEYWORD'] as const;

/** A key with its count (by type, by tag). */
export interface CountByKey {
  key: string;
  count: number;
}

/** Result of SUMMARY_QUERY. */
export interface SummaryData {
  knowledgeStats: {
    documentCount: number;
    chunkCount: number;
    byType: CountByKey[];
    topTags: CountByKey[];
    embedder: { provider: string; model: string; dimensions: number };
  };
  graphStats: { entityCount: number; relationshipCount: number; byType: CountByKey[] };
}

/** Counts for the summary cards. */
export const SUMMARY_QUERY = `query KnowledgeSummary {
  knowledgeStats { documentCount chunkCount byType { key count } topTags { key count } embedder { provider model dimensions } }
  graphStats { entityCount relationshipCount byType { key count } }
}`;

/** One ranked hit. */
export interface Hit {
  score: number;
  vectorScore: number | null;
  keywordScore: number | null;
  vectorRank: number | null;
  keywordRank: number | null;
  chunk: { id: string; ordinal: number; content: string; charStart: number; charEnd: number };
  document: { id: string; title: string; documentType: string };
}

/** Ranked chunks for the search panel. */
export const SEARCH_QUERY = `query Search($input: SearchInput!) {
  search(input: $input) {
    score vectorScore keywordScore vectorRank keywordRank
    chunk { id ordinal content charStart charEnd }
    document { id title documentType }
  }
}`;

/** The filter of the document table (the schema's DocumentFilter). */
export interface DocumentFilter {
  types?: string[];
  sources?: string[];
  tags?: string;
  text?: string;
}

/** A row of the document table. */
export interface DocumentRow {
  id: string;
  title: string;
  documentType: string;
  source: string | null;
  tags: string[];
  chunkCount: number;
  updatedAt: string;
}

/** Result of DOCUMENTS_QUERY. */
export interface DocumentsData {
  documents: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: DocumentRow[] };
}

/** One page of the document table. */
export const DOCUMENTS_QUERY = `query Documents($filter: DocumentFilter, $first: Int, $after: String, $sourceId: ID) {
  documents(filter: $filter, first: $first, after: $after, sourceId: $sourceId) {
    totalCount
    pageInfo { hasNextPage endCursor }
    nodes { id title documentType source tags chunkCount updatedAt }
  }
}`;

/** Deletes a document and its chunks. */
export const DELETE_MUTATION = `mutation DeleteDocument($id: ID!) { deleteDocument(id: $id) { id deleted } }`;

/** An import job as the import form shows it. */
export interface ImportJob {
  id: string;
  kind: string;
  status: 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'PARTIAL' | 'INTERRUPTED';
  progress: { done: number; total: number };
  errors: { item: string; code: string; message: string }[];
  warnings: string[];
  chunkCount: number;
  documents: { id: string; title: string }[];
}

/** Statuses after which a job changes no more (until resumed). */
export const FINISHED_STATUSES: ReadonlySet<ImportJob['status']> = new Set(['SUCCEEDED', 'FAILED', 'PARTIAL', 'INTERRUPTED']);

const JOB_FIELDS = `id kind status progress { done total } errors { item code message } warnings chunkCount documents { id title }`;

/** Starts a URL import in the background. */
export const IMPORT_URL_MUTATION = `mutation ImportUrl($input: ImportUrlInput!) { importUrl(input: $input) { job { ${JOB_FIELDS} } } }`;

/** Starts an OpenAPI import (by URL or inline content) in the background. */
export const IMPORT_OPENAPI_MUTATION = `mutation ImportOpenApi($input: ImportOpenApiInput!) { importOpenApi(input: $input) { job { ${JOB_FIELDS} } } }`;

/** Polls a job. */
export const IMPORT_JOB_QUERY = `query ImportJob($id: ID!) { importJob(id: $id) { ${JOB_FIELDS} } }`;

/** Result of GAPS_QUERY. */
export interface GapsData {
  knowledgeGaps: {
    totalCount: number;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
    nodes: { query: string; count: number; bestScore: number; lastSeenAt: string }[];
  };
}

/** Queries the knowledge base answered poorly. */
export const GAPS_QUERY = `query KnowledgeGaps($first: Int, $after: String) {
  knowledgeGaps(first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { query count bestScore lastSeenAt } }
}`;

/** A document with everything the inspector shows. */
export interface DocumentDetail {
  id: string;
  title: string;
  content: string;
  documentType: string;
  source: string | null;
  tags: string[];
  metadata: Record<string, unknown>;
  contentHash: string;
  createdAt: string;
  updatedAt: string;
  expiresAt: string | null;
  chunkCount: number;
  chunks: { id: string; ordinal: number; charStart: number; charEnd: number; content: string }[];
  entities: { id: string; type: string; name: string; description: string | null }[];
}

/** One document for the inspector. */
export const DOCUMENT_QUERY = `query DocumentDetail($id: ID!) {
  document(id: $id) {
    id title content documentType source tags metadata contentHash createdAt updatedAt expiresAt chunkCount
    chunks { id ordinal charStart charEnd content }
    entities { id type name description }
  }
}`;

/** A row of the sources panel. */
export interface SourceRow {
  id: string;
  name: string;
  kind: string;
  status: 'NEVER_SYNCED' | 'SYNCING' | 'SUCCEEDED' | 'PARTIAL' | 'FAILED';
  schedule: string | null;
  lastRunAt: string | null;
  nextRunAt: string | null;
  lastError: string | null;
  lastErrorCode: string | null;
  documentCount: number;
  counts: { added: number; updated: number; removed: number; unchanged: number; skipped: number };
}

const SOURCE_FIELDS = 'id name kind status schedule lastRunAt nextRunAt lastError lastErrorCode documentCount counts { added updated removed unchanged skipped }';

/** Every source, then each change of one (graphql-ws). */
export const SOURCES_SUBSCRIPTION = `subscription SourcesLive { sourceUpdated { ${SOURCE_FIELDS} } }`;

/** "Sync now": queues a sync and returns its job. */
export const SYNC_SOURCE_MUTATION = `mutation SyncSource($id: ID!) { syncSource(id: $id) { id status } }`;
