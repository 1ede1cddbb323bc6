import type {
  DocumentExtractor,
  DocumentFilterSpec,
  ImportDocuments,
  ExtractionSummary,
  ExtractorName,
  Logger,
} from '../../src/importerPort.js';
import { AppError, ErrorCode } from '../../src/errors.js';
import { badInput } from '../../src/errors.js';
import type { KeysetCursor } from '../../src/shared/cursor.js';
import type { SubmitOptions } from '../ImportJobExecutor.js';
import type { ImportService } from '../ImportService.js';
import type { ImportJobRecord } from '../jobs/types.js';
import type { SourceService } from '../sources/SourceService.js';
import { runExtractJob } from './runExtractJob.js';
import { validateExtractGraph, type RawExtractGraphInput } from './validateExtractGraph.js';

/** Most documents one extractGraph job may take (a filter that selects more must be narrowed). */
export const MAX_EXTRACT_DOCUMENTS = 100_000;
const PAGE = 1000;

/** What the extractGraph service is built from, besides the extractor. */
export interface ExtractGraphDeps {
  imports: ImportService;
  sources: SourceService;
  documents: Pick<ImportDocuments, 'scan' | 'liveIds'>;
  /** `config.extraction`: the configured extractors, the per-job token cap and whether a model is set. */
  config: { extractors: readonly ExtractorName[]; maxTokensPerJob: number; llm: { model?: string | undefined } };
  logger: Logger;
}

/**
 * extractGraph: runs extraction over chosen documents as an import job (progress, resume and the job list come with
 * it), and reports extraction on import jobs and sources. `extractor` is the one seam to the extraction module.
 */
export class ExtractGraphService {
  constructor(
    private readonly deps: ExtractGraphDeps,
    private readonly extractor: DocumentExtractor | undefined,
  ) {
    if (!extractor) return; // jobs are refused once their input is checked
    deps.imports.setExtractExecutor((job, context, jobs) =>
      runExtractJob(job, context, {
        jobs,
        extractor,
        configured: deps.config.extractors,
        maxTokensPerJob: deps.config.maxTokensPerJob,
        logger: deps.logger,
      }),
    );
    deps.sources.useExtractor(extractor);
  }

  /**
   * Checks the input, records the job and runs it: a dry run here at once (the answer holds the estimate), a real run
   * in the background unless `options.async` is false.
   */
  async submit(input: RawExtractGraphInput, options: SubmitOptions = {}): Promise<ImportJobRecord> {
    const request = validateExtractGraph(input, this.settings());
    const ids =
      'ids' in request.target ? await this.liveOnly(request.target.ids) : await this.matching(request.target.filter);
    if (!this.extractor)
      throw new AppError(ErrorCode.INTERNAL_SERVER_ERROR, 'graph extraction is not available in this process');
    const job = await this.deps.imports.record(
      { kind: 'extract', extractors: request.extractors, dryRun: request.dryRun },
      ids,
    );
    const async = request.dryRun ? false : (options.async ?? true);
    return this.deps.imports.run(job.id, { ...options, async });
  }

  /** Whether this process extracts (it has an extractor): without one, summaries are null and jobs refused. */
  extracts(): boolean {
    return this.extractor !== undefined;
  }

  /** Extraction state, entities and relationships of these documents; null without an extractor. */
  async summary(documentIds: readonly string[]): Promise<ExtractionSummary | null> {
    return this.extractor ? this.extractor.summary(documentIds) : null;
  }

  private settings() {
    return { configured: this.deps.config.extractors, llmModel: Boolean(this.deps.config.llm.model) };
  }

  private async liveOnly(ids: string[]): Promise<string[]> {
    const live = new Set(await this.deps.documents.liveIds(ids));
    const missing = ids.filter((id) => !live.has(id));
    if (missing.length > 0) {
      const shown = missing
        .slice(0, 5)
        .map((id) => `"${id}"`)
        .join(', ');
      const more = missing.length > 5 ? ` (and ${missing.length - 5} more)` : '';
      throw new AppError(ErrorCode.NOT_FOUND, `input.documentIds: no document has the id ${shown}${more}`, {
        kind: 'Document',
        missing: missing.slice(0, 20),
      });
    }
    return ids;
  }

  /** The ids of every live document the filter selects, oldest first. */
  private async matching(filter: DocumentFilterSpec): Promise<string[]> {
    const ids: string[] = [];
    let after: KeysetCursor | undefined;
    for (;;) {
      const page = await this.deps.documents.scan(filter, PAGE, after);
      if (page.totalCount > MAX_EXTRACT_DOCUMENTS)
        throw badInput(
          'input.filter',
          `selects ${page.totalCount} documents; one job takes at most ${MAX_EXTRACT_DOCUMENTS}: narrow the filter`,
        );
      ids.push(...page.rows.map((r) => r.document.id));
      const last = page.rows.at(-1);
      if (!page.hasNextPage || !last) break;
      after = { createdAt: last.document.createdAt.toISOString(), id: last.document.id };
    }
    if (ids.length === 0) throw badInput('input.filter', 'selects no document');
    return ids.reverse();
  }
}
