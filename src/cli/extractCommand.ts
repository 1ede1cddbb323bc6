import {
  extractionDocumentsOf,
  validateExtractors,
  type ImportJobRecord,
  type RawExtractGraphInput,
} from '../../importers/index.js';
import { parseTagExpression } from '../documents/tagExpression.js';
import { DOCUMENT_TYPES, type DocumentFilterSpec, type DocumentTypeName } from '../documents/types.js';
import { isAppError } from '../errors.js';
import type { ExtractionSummary } from '../extraction/jobPort.js';
import type { ExtractionEstimate } from '../extraction/types.js';
import type { Services } from '../services.js';
import { UsageError } from './cliErrors.js';
import { progressReporter } from './progress.js';

const EXTRACT_USAGE =
  'usage: cairn extract --all | --document <id>… | --type T --tag T… [--space S] [--extractors structural,offline,llm] [--dry-run] [--json]';

/** The options of `cairn extract`. */
export interface ExtractCommandOptions {
  all: boolean;
  documents: string[];
  type: string | undefined;
  tags: string[];
  extractors: string | undefined;
  dryRun: boolean;
  json: boolean;
}

/** What `cairn extract` asks for: which documents, which extractors, dry run. */
export interface ExtractCliRequest {
  documentIds: string[] | null;
  /** The filter in the API's form (types upper case, tags as one expression); `{}` is every document. */
  filter: { types?: string[]; tags?: string } | null;
  extractors: string[] | null;
  dryRun: boolean;
}

/** How an extraction ended, as the summary line prints it. */
export interface ExtractReport {
  jobId: string;
  status: string;
  documents: number;
  summary: ExtractionSummary | null;
  tokens: number;
  failed: number;
  estimate: ExtractionEstimate | null;
  warnings: string[];
}

/** Checks the command line; `--extractors` names are checked here, the model by whoever runs the job. */
export function parseExtractRequest(positionals: string[], opts: ExtractCommandOptions): ExtractCliRequest {
  if (positionals.length > 0)
    throw new UsageError(`extract takes no arguments (got "${positionals[0]}"); ${EXTRACT_USAGE}`);
  const byFilter = opts.type !== undefined || opts.tags.length > 0;
  const chosen = [opts.all, opts.documents.length > 0, byFilter].filter(Boolean).length;
  if (chosen !== 1)
    throw new UsageError(`give exactly one of --all, --document <id>… and --type/--tag; ${EXTRACT_USAGE}`);
  const filter: ExtractCliRequest['filter'] = opts.documents.length > 0 ? null : {};
  if (filter && opts.type !== undefined) {
    const type = opts.type.toLowerCase();
    if (!(DOCUMENT_TYPES as readonly string[]).includes(type))
      throw new UsageError(`--type: must be one of ${DOCUMENT_TYPES.join(', ')}`);
    filter.types = [type.toUpperCase()];
  }
  if (filter && opts.tags.length > 0) filter.tags = opts.tags.join('+');
  let extractors: string[] | null = null;
  if (opts.extractors !== undefined) {
    try {
      extractors = validateExtractors(opts.extractors.split(','), '--extractors', { llmModel: true });
    } catch (err) {
      throw isAppError(err) ? new UsageError(err.message) : err;
    }
  }
  return { documentIds: opts.documents.length > 0 ? opts.documents : null, filter, extractors, dryRun: opts.dryRun };
}

/** The filter in the services' form. */
export function filterSpec(filter: NonNullable<ExtractCliRequest['filter']>): DocumentFilterSpec {
  const spec: DocumentFilterSpec = {};
  if (filter.types) spec.types = filter.types.map((t) => t.toLowerCase() as DocumentTypeName);
  if (filter.tags !== undefined) spec.tagGroups = parseTagExpression(filter.tags, '--tag');
  return spec;
}

/** Runs the job in this process on services it was given (the CLI's own, or a test's). */
export async function extractWith(
  services: Pick<Services, 'extractGraph'>,
  request: ExtractCliRequest,
  json: boolean,
): Promise<ExtractReport> {
  const extractGraph = services.extractGraph;
  const input: RawExtractGraphInput = {
    documentIds: request.documentIds,
    filter: request.filter ? filterSpec(request.filter) : null,
    extractors: request.extractors,
    dryRun: request.dryRun,
  };
  const job = await extractGraph.submit(input, { async: false, onProgress: progressReporter('documents', json) });
  return reportOf(job, await extractGraph.summary(extractionDocumentsOf(job)));
}

/** A finished job and its documents' extraction as the summary line reads them. */
export function reportOf(job: ImportJobRecord, summary: ExtractionSummary | null): ExtractReport {
  return {
    jobId: job.id,
    status: job.status,
    documents: job.items.length,
    summary,
    tokens: job.extraction.tokens,
    failed: job.items.filter((i) => i.status === 'FAILED').length,
    estimate: job.extraction.estimate,
    warnings: job.warnings,
  };
}

/** Prints the summary line (or one JSON object) and returns the exit code. */
export function printReport(report: ExtractReport, json: boolean, space?: string): number {
  if (json) {
    process.stdout.write(`${JSON.stringify({ event: 'summary', ...(space ? { space } : {}), ...report })}\n`);
    return report.status === 'SUCCEEDED' ? 0 : 1;
  }
  const s = report.summary;
  const lines = report.estimate
    ? [`Dry run (nothing sent): ${estimateLine(report.estimate)}.`]
    : [
        `${report.status}: ${report.documents} documents, ${s?.entities ?? 0} entities, ${s?.relationships ?? 0} relationships, ` +
          `${report.failed} failed, ${report.tokens} tokens (job ${report.jobId}).`,
      ];
  if (space) lines[0] = `space ${space}: ${lines[0]}`;
  for (const w of report.warnings.slice(0, 20)) lines.push(`warning: ${w}`);
  process.stderr.write(`\n${lines.join('\n')}\n`);
  return report.status === 'SUCCEEDED' ? 0 : 1;
}

function estimateLine(e: ExtractionEstimate): string {
  const cost =
    e.estimatedCostUsd === null
      ? 'cost unknown (set CAIRN_EXTRACTION_LLM_PRICE_INPUT and _OUTPUT)'
      : `about $${e.estimatedCostUsd.toFixed(4)}`;
  return (
    `${e.documents} documents, ${e.chunks} chunks (${e.cachedChunks} cached), ` +
    `about ${e.estimatedInputTokens} input and ${e.estimatedOutputTokens} output tokens, ${cost}`
  );
}
