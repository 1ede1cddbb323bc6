import type { DocumentReader } from '../../src/documents/DocumentReader.js';
import type { DocumentExtractor, ExtractionSummary } from '../../src/extraction/jobPort.js';
import type {
  DocumentExtractionOutcome,
  ExtractionEstimate,
  ExtractOptions,
  ExtractorName,
} from '../../src/extraction/types.js';

/** What the word extractor found in one document. */
interface DocumentState {
  status: 'PENDING' | 'DONE' | 'FAILED';
  entities: number;
  relationships: number;
}

/** Tokens one paragraph costs the pretend model: a quarter of its characters, rounded up. */
export const tokensOf = (paragraph: string): number => Math.ceil(paragraph.length / 4);

/**
 * A small, real DocumentExtractor for the job machinery's tests: it reads documents from the store, takes each
 * paragraph as a chunk, its capitalised words as entities and neighbouring ones as relationships. With `llm` among the
 * extractors every paragraph is a "request" to a pretend model that costs `tokensOf(paragraph)` on the budget.
 * A document whose text contains "EXPLODE" fails.
 */
export class WordExtractor implements DocumentExtractor {
  /** Pretend model requests sent (a dry run must send none). */
  requests = 0;
  /** Each enqueue call, as given. */
  readonly enqueued: { ids: string[]; extractors: readonly ExtractorName[] | undefined }[] = [];
  private readonly state = new Map<string, DocumentState>();

  constructor(private readonly documents: Pick<DocumentReader, 'contentByIds'>) {}

  async extractNow(documentId: string, options: ExtractOptions): Promise<DocumentExtractionOutcome> {
    const content = (await this.documents.contentByIds([documentId])).get(documentId);
    const base = { documentId, warnings: [], tokens: 0, budgetExhausted: false, entities: 0, relationships: 0 };
    if (content === undefined) return { ...base, status: 'SKIPPED' };
    if (content.includes('EXPLODE')) {
      this.state.set(documentId, { status: 'FAILED', entities: 0, relationships: 0 });
      return { ...base, status: 'FAILED', error: 'the text asked to fail' };
    }
    const llm = options.extractors?.includes('llm') ?? false;
    const names = new Set<string>();
    const pairs = new Set<string>();
    let tokens = 0;
    for (const paragraph of paragraphs(content)) {
      if (llm) {
        if (options.budget?.exhausted()) return this.record(documentId, names, pairs, { ...base, tokens }, true);
        this.requests += 1;
        tokens += tokensOf(paragraph);
        options.budget?.spend(tokensOf(paragraph));
      }
      const words = paragraph.match(/\b[A-Z][a-z]+\b/g) ?? [];
      words.forEach((w, i) => {
        names.add(w);
        const next = words[i + 1];
        if (next && next !== w) pairs.add(`${w}->${next}`);
      });
    }
    return this.record(documentId, names, pairs, { ...base, tokens }, false);
  }

  async estimate(documentIds: readonly string[], extractors: readonly ExtractorName[]): Promise<ExtractionEstimate> {
    const contents = await this.documents.contentByIds(documentIds);
    const chunks = [...contents.values()].flatMap(paragraphs);
    const input = extractors.includes('llm') ? chunks.reduce((sum, p) => sum + tokensOf(p), 0) : 0;
    return {
      documents: contents.size,
      chunks: chunks.length,
      cachedChunks: 0,
      estimatedInputTokens: input,
      estimatedOutputTokens: Math.ceil(input / 2),
      estimatedCostUsd: null,
    };
  }

  async summary(documentIds: readonly string[]): Promise<ExtractionSummary> {
    const sum: ExtractionSummary = { pending: 0, running: 0, done: 0, failed: 0, entities: 0, relationships: 0 };
    for (const id of new Set(documentIds)) {
      const s = this.state.get(id);
      if (!s) continue;
      if (s.status === 'PENDING') sum.pending += 1;
      else if (s.status === 'DONE') sum.done += 1;
      else sum.failed += 1;
      sum.entities += s.entities;
      sum.relationships += s.relationships;
    }
    return sum;
  }

  async enqueue(
    documentIds: readonly string[],
    options: { jobId?: string; extractors?: readonly ExtractorName[] },
  ): Promise<void> {
    this.enqueued.push({ ids: [...documentIds], extractors: options.extractors });
    for (const id of documentIds)
      if (!this.state.has(id)) this.state.set(id, { status: 'PENDING', entities: 0, relationships: 0 });
  }

  private record(
    documentId: string,
    names: Set<string>,
    pairs: Set<string>,
    base: Omit<DocumentExtractionOutcome, 'status'>,
    budgetExhausted: boolean,
  ): DocumentExtractionOutcome {
    const found = { entities: names.size, relationships: pairs.size };
    this.state.set(documentId, { status: budgetExhausted ? 'PENDING' : 'DONE', ...found });
    return { ...base, ...found, status: 'DONE', budgetExhausted };
  }
}

function paragraphs(content: string): string[] {
  return content
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '');
}
