// The knowledge pages' operations (operations.graphql) under the names the components use. Their types are
// generated from the schema (`npm run codegen`), so a schema change that breaks a page fails `codegen:check` or the
// type check.
import type {
  AgentViewQuery,
  AuditLogQuery,
  DocumentDetailQuery,
  DocumentsQuery,
  DocumentType,
  ImportJobStatus,
  JobFieldsFragment,
  KnowledgeSummaryQuery,
  SearchMode,
  SearchQuery,
  SourceFieldsFragment,
} from '../shared/generated/graphql';

export {
  AccessCheckDocument as ACCESS_CHECK_QUERY,
  AgentViewDocument as AGENT_VIEW_QUERY,
  AuditLogDocument as AUDIT_LOG_QUERY,
  RecordKnowledgeGapDocument as RECORD_GAP_MUTATION,
  UndoDocument as UNDO_MUTATION,
  UndoImportJobDocument as UNDO_JOB_MUTATION,
  UpdateDocumentDocument as UPDATE_DOCUMENT_MUTATION,
  DeleteDocumentDocument as DELETE_MUTATION,
  DocumentDetailDocument as DOCUMENT_QUERY,
  DocumentsDocument as DOCUMENTS_QUERY,
  ImportJobDocument as IMPORT_JOB_QUERY,
  ImportOpenApiDocument as IMPORT_OPENAPI_MUTATION,
  ImportUrlDocument as IMPORT_URL_MUTATION,
  ImportUploadDocument as IMPORT_UPLOAD_MUTATION,
  KnowledgeGapsDocument as GAPS_QUERY,
  KnowledgeSummaryDocument as SUMMARY_QUERY,
  SearchDocument as SEARCH_QUERY,
  SourcesLiveDocument as SOURCES_SUBSCRIPTION,
  SyncSourceDocument as SYNC_SOURCE_MUTATION,
} from '../shared/generated/graphql';
export type { DocumentFilter, EnrichContextInput, SearchInput } from '../shared/generated/graphql';

/** The document types of the schema, in its order. */
export const DOCUMENT_TYPES = [
  'MANUAL',
  'TUTORIAL',
  'API_SPEC',
  'FAQ',
  'POLICY',
  'REFERENCE',
  'OTHER',
] as const satisfies readonly DocumentType[];

/** The search modes of the schema. */
export const SEARCH_MODES = ['HYBRID', 'VECTOR', 'KEYWORD'] as const satisfies readonly SearchMode[];

/** A key with its count (by type, by tag). */
export type CountByKey = KnowledgeSummaryQuery['knowledgeStats']['byType'][number];
/** One ranked hit. */
export type Hit = SearchQuery['search'][number];
/** A row of the document table. */
export type DocumentRow = DocumentsQuery['documents']['nodes'][number];
/** An import job as the import form shows it. */
export type ImportJob = JobFieldsFragment;
/** A document with everything the inspector shows. */
export type DocumentDetail = NonNullable<DocumentDetailQuery['document']>;
/** What enrichContext returned, as the agent view shows it. */
export type AgentContext = AgentViewQuery['enrichContext'];
/** One audit log entry of the history panel. */
export type AuditRow = AuditLogQuery['auditLog']['nodes'][number];
/** A row of the sources panel. */
export type SourceRow = SourceFieldsFragment;

/** Statuses after which a job changes no more (until resumed). */
export const FINISHED_STATUSES: ReadonlySet<ImportJobStatus> = new Set([
  'SUCCEEDED',
  'FAILED',
  'PARTIAL',
  'INTERRUPTED',
]);
