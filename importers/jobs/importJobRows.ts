import { toDate, toDateOrNull, type ExtractionEstimate } from '../../src/importerPort.js';
import type { ImportJobItemRecord, ImportJobRecord, ImportJobStatus, ImportKind, ImportRequest } from './types.js';

// The rows of import_jobs and import_job_items as SQL returns them, and their records (ImportJobRepository's mapping).

export interface JobRow {
  id: string;
  kind: ImportKind;
  status: ImportJobStatus;
  request: ImportRequest;
  progress_done: number;
  progress_total: number;
  chunk_count: number;
  embedded_chunk_count: number;
  warnings: string[];
  extraction_tokens: number;
  extraction_estimate: ExtractionEstimate | null;
  created_at: Date | string;
  started_at: Date | string | null;
  finished_at: Date | string | null;
}

export interface ItemRow {
  job_id: string;
  ordinal: number;
  label: string;
  status: ImportJobItemRecord['status'];
  document_ids: string[];
  error_code: string | null;
  error: string | null;
  finished_at: Date | string | null;
}

/** The columns toJob reads. */
export const JOB_COLUMNS =
  'id, kind, status, request, progress_done, progress_total, chunk_count, embedded_chunk_count, warnings, extraction_tokens, extraction_estimate, created_at, started_at, finished_at';
/** An item row as its record. */
export function toItem(row: ItemRow): ImportJobItemRecord {
  return {
    ordinal: row.ordinal,
    label: row.label,
    status: row.status,
    documentIds: row.document_ids,
    errorCode: row.error_code,
    error: row.error,
    finishedAt: toDateOrNull(row.finished_at),
  };
}

/** A job row and its items as the job's record. */
export function toJob(row: JobRow, items: ImportJobItemRecord[]): ImportJobRecord {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    request: row.request,
    progress: { done: row.progress_done, total: row.progress_total },
    chunkCount: row.chunk_count,
    embeddedChunkCount: row.embedded_chunk_count,
    warnings: row.warnings,
    extraction: { tokens: row.extraction_tokens, estimate: row.extraction_estimate },
    createdAt: toDate(row.created_at),
    startedAt: toDateOrNull(row.started_at),
    finishedAt: toDateOrNull(row.finished_at),
    items,
  };
}
