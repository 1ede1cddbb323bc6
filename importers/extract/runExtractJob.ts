import type { DocumentExtractionOutcome, DocumentExtractor, ExtractorName, Logger } from '../../src/importerPort.js';
import type { ImportJobRepository } from '../jobs/ImportJobRepository.js';
import type { JobContext } from '../jobs/ImportJobRunner.js';
import type { ImportJobRecord, ImportJobStatus } from '../jobs/types.js';
import { JobTokenBudget } from './JobTokenBudget.js';

/** What an extractGraph job runs with. */
export interface ExtractJobDeps {
  jobs: ImportJobRepository;
  extractor: DocumentExtractor;
  /** CAIRN_EXTRACTION_EXTRACTORS: the extractors of a job that names none. */
  configured: readonly ExtractorName[];
  /** CAIRN_EXTRACTION_MAX_TOKENS_PER_JOB (0: no cap). */
  maxTokensPerJob: number;
  logger: Logger;
}

/** The error code of a document whose extraction failed. */
export const EXTRACTION_FAILED = 'EXTRACTION_FAILED';

/**
 * Runs an extractGraph job: a dry run records the estimate and ends at once; otherwise each pending document is
 * extracted in turn under one token budget. When the budget runs out the job stops PARTIAL, keeping what was
 * extracted, and says how many documents are left (resumeImportJob continues them with a fresh budget).
 */
export async function runExtractJob(
  job: ImportJobRecord,
  context: JobContext,
  deps: ExtractJobDeps,
): Promise<ImportJobStatus> {
  if (job.request.kind !== 'extract') throw new Error(`job ${job.id} is not an extractGraph job`);
  const extractors = job.request.extractors ?? [...deps.configured];
  const pending = job.items.filter((i) => i.status === 'PENDING');
  const total = job.items.length;
  if (job.request.dryRun) {
    const estimate = await deps.extractor.estimate(
      pending.map((i) => i.label),
      extractors,
    );
    await deps.jobs.completeDryRun(job.id, estimate);
    await context.progress(total, total);
    return 'SUCCEEDED';
  }
  const budget = new JobTokenBudget(deps.maxTokensPerJob);
  let done = total - pending.length;
  let stoppedAt = -1;
  for (const [index, item] of pending.entries()) {
    if (context.signal.aborted) return 'INTERRUPTED';
    if (budget.exhausted()) {
      stoppedAt = index;
      break;
    }
    const outcome = await extractOne(item.label, extractors, budget, context.signal, deps);
    await deps.jobs.addExtractionTokens(job.id, outcome.tokens);
    if (outcome.budgetExhausted) {
      // Cut short: the document stays pending, so a resumed job finishes it (its extracted chunks are cached).
      await deps.jobs.itemDocumentsWritten(job.id, item.ordinal, [item.label]);
      stoppedAt = index;
      break;
    }
    if (context.signal.aborted && outcome.status !== 'DONE') return 'INTERRUPTED';
    if (outcome.status === 'FAILED')
      await deps.jobs.itemFailed(job.id, item.ordinal, EXTRACTION_FAILED, outcome.error ?? 'extraction failed');
    else
      await deps.jobs.itemSucceeded(job.id, item.ordinal, {
        documentIds: outcome.status === 'DONE' ? [item.label] : [],
        chunkCount: 0,
        embeddedChunkCount: 0,
        changedDocuments: 0,
        warnings: outcome.warnings.slice(0, 20).map((w) => `${item.label}: ${w}`),
      });
    done += 1;
    await context.progress(done, total);
  }
  if (stoppedAt >= 0) {
    const left = pending.length - stoppedAt;
    await deps.jobs.addWarnings(job.id, [capMessage(deps.maxTokensPerJob, budget.spent, left)]);
    return 'PARTIAL';
  }
  return finalStatus(await deps.jobs.get(job.id));
}

/** Extracts one document; an unexpected error fails that document only. */
async function extractOne(
  documentId: string,
  extractors: readonly ExtractorName[],
  budget: JobTokenBudget,
  signal: AbortSignal,
  deps: ExtractJobDeps,
): Promise<DocumentExtractionOutcome> {
  const before = budget.spent;
  try {
    const outcome = await deps.extractor.extractNow(documentId, { extractors, budget, signal });
    // The extractor spends on the budget as it goes; whatever it reported beyond that is counted here.
    budget.spend(outcome.tokens - (budget.spent - before));
    return outcome;
  } catch (err) {
    deps.logger.error({ err, documentId }, 'graph extraction of a document failed');
    return {
      documentId,
      status: 'FAILED',
      entities: 0,
      relationships: 0,
      warnings: [],
      error: 'unexpected error while extracting; see the server log',
      tokens: 0,
      budgetExhausted: false,
    };
  }
}

/** Why a job stopped at its token cap, and what is left. */
export function capMessage(cap: number, spent: number, left: number): string {
  return `stopped by the token cap of ${cap} tokens per job (CAIRN_EXTRACTION_MAX_TOKENS_PER_JOB) after ${spent} tokens: ${left} document(s) not extracted yet; what was extracted is kept, and resumeImportJob continues with a fresh budget`;
}

/** SUCCEEDED when no document failed, FAILED when all did, else PARTIAL. */
function finalStatus(job: ImportJobRecord | undefined): ImportJobStatus {
  const items = job?.items ?? [];
  const failed = items.filter((i) => i.status === 'FAILED').length;
  if (failed === 0) return 'SUCCEEDED';
  return failed === items.length ? 'FAILED' : 'PARTIAL';
}
