import { AppError, ErrorCode } from '../../src/errors.js';
import type { ImportJobRecord } from './types.js';

const KNOWN_CODES = new Set<string>(Object.values(ErrorCode));

/** A synchronous import that imported nothing fails with its first item's error, so clients see the real code. */
export function resultOrError(job: ImportJobRecord, async: boolean | null | undefined): ImportJobRecord {
  if (async || job.status !== 'FAILED') return job;
  const failed = job.items.find((i) => i.status === 'FAILED');
  const code =
    failed?.errorCode && KNOWN_CODES.has(failed.errorCode)
      ? (failed.errorCode as ErrorCode)
      : ErrorCode.INTERNAL_SERVER_ERROR;
  throw new AppError(code, failed?.error ?? 'the import failed', { jobId: job.id, item: failed?.label });
}

/** The documents a job wrote, each once. */
export const documentIdsOf = (job: ImportJobRecord): string[] => [...new Set(job.items.flatMap((i) => i.documentIds))];

/** The documents whose extraction a job reports: an extractGraph job's every document, else those the job wrote. */
export const extractionDocumentsOf = (job: ImportJobRecord): string[] =>
  job.request.kind === 'extract' ? job.items.map((i) => i.label) : documentIdsOf(job);
