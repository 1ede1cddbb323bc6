import type { Db } from '../db/Db.js';
import type { DocumentService } from '../documents/DocumentService.js';
import type { DocumentRecord } from '../documents/types.js';
import type { GraphService } from '../graph/GraphService.js';
import { buildEvidence } from './buildEvidence.js';
import type { ExtractionRepository } from './ExtractionRepository.js';
import { FactReconciler, type SupportRules } from './FactReconciler.js';
import { runExtractor, type ExtractorRun } from './runExtractors.js';
import type {
  ChunkForExtraction,
  DocumentExtractionOutcome,
  DocumentForExtraction,
  ExtractOptions,
  Extractor,
  ExtractorName,
} from './types.js';

/** Advisory lock ("xtrc") that serialises reconciling facts across instances: two documents may share a fact. */
const RECONCILE_LOCK = 0x78747263;

/** What the pipeline needs. */
export interface ExtractionPipelineDeps {
  db: Db;
  documents: DocumentService;
  graph: GraphService;
  repository: ExtractionRepository;
  /** Every available extractor by name; which run is decided per call (ExtractOptions.extractors) or by `configured`. */
  extractors: readonly Extractor[];
  configured: readonly ExtractorName[];
  rules: SupportRules & { fuzzyThreshold: number };
}

/**
 * Extracts one document now: runs each extractor on the chunks its cache lacks, resolves what they found to entity
 * ids, replaces the document's evidence, and reconciles every fact it supported before or supports now.
 */
export class ExtractionPipeline {
  private readonly reconciler: FactReconciler;

  constructor(private readonly deps: ExtractionPipelineDeps) {
    this.reconciler = new FactReconciler(deps.repository, deps.graph, deps.rules);
  }

  /** Extracts a document; one that no longer exists has its evidence removed (SKIPPED). */
  async extract(documentId: string, options: ExtractOptions = {}): Promise<DocumentExtractionOutcome> {
    const loaded = await this.deps.documents.withChunks(documentId);
    if (!loaded) {
      await this.remove(documentId);
      return outcome(documentId, 'SKIPPED', { entities: 0, relationships: 0 });
    }
    const document = forExtraction(loaded.document);
    const chunks: ChunkForExtraction[] = loaded.chunks.map((c) => ({
      id: c.id,
      ordinal: c.ordinal,
      content: c.content,
    }));
    const runs: ExtractorRun[] = [];
    for (const extractor of this.selected(options.extractors)) {
      options.signal?.throwIfAborted();
      runs.push(await runExtractor(extractor, document, chunks, this.deps.repository.cache, options));
    }
    const evidence = await buildEvidence(document, chunks, runs, {
      repository: this.deps.repository,
      idsBySource: (sources) => this.deps.documents.idsBySource(sources),
      fuzzyThreshold: this.deps.rules.fuzzyThreshold,
    });
    options.signal?.throwIfAborted();
    const homes = evidence.pageEntityId ? [{ documentId, entityId: evidence.pageEntityId }] : [];
    const live = await this.replaceAndReconcile(
      documentId,
      evidence.rows,
      homes,
      evidence.pageEntityId,
      document.source,
    );
    const mine = new Set(evidence.rows.map((r) => r.factKey));
    const failures = runs.flatMap((r) => r.failures);
    return {
      ...outcome(documentId, failures.length > 0 ? 'FAILED' : 'DONE', {
        entities: [...live].filter((k) => k.startsWith('e:') && mine.has(k)).length,
        relationships: [...live].filter((k) => k.startsWith('r:') && mine.has(k)).length,
      }),
      warnings: [...evidence.warnings, ...runs.flatMap((r) => r.warnings)],
      ...(failures.length > 0 ? { error: failures.join('; ').slice(0, 2000) } : {}),
      tokens: runs.reduce((n, r) => n + r.tokens, 0),
      budgetExhausted: runs.some((r) => r.budgetExhausted),
    };
  }

  /** Removes a deleted document's evidence and the facts it alone supported. */
  async remove(documentId: string): Promise<void> {
    await this.replaceAndReconcile(documentId, [], []);
  }

  /** The extractors to run: those asked for, else the configured ones, in registry order. */
  private selected(names: readonly ExtractorName[] | undefined): Extractor[] {
    const wanted = new Set(names ?? this.deps.configured);
    return this.deps.extractors.filter((e) => wanted.has(e.name));
  }

  private async replaceAndReconcile(
    documentId: string,
    rows: Parameters<ExtractionRepository['evidence']['replaceDocument']>[1],
    homes: { documentId: string; entityId: string }[],
    pageEntityId?: string,
    source?: string | null,
  ): Promise<Set<string>> {
    return this.deps.db.withLock(
      RECONCILE_LOCK,
      async () => {
        const before = await this.deps.repository.evidence.replaceDocument(documentId, rows);
        const live = await this.reconciler.reconcile([...before, ...rows.map((r) => r.factKey)], homes);
        // Under the lock, so that two linked pages extracted at once never both miss their LINKS_TO: whichever comes
        // second sees the other's page entity or link, and queues the linking document again.
        const again = pageEntityId
          ? await this.deps.repository.evidence.documentsLinkingWithout(documentId, pageEntityId)
          : [];
        if (pageEntityId && (await this.linksNowResolvable(rows, pageEntityId))) again.push(documentId);
        if (source) again.push(...(await this.deps.repository.evidence.documentsLinkingToSource(source, documentId)));
        await this.deps.repository.queue.enqueue(this.deps.db, again);
        return live;
      },
      { pollMs: 25 },
    );
  }

  /** Whether a page this document links to has a page entity now but the document no LINKS_TO to it yet. */
  private async linksNowResolvable(
    rows: readonly { factKey: string; fact: unknown }[],
    pageEntityId: string,
  ): Promise<boolean> {
    const targets = rows.filter((r) => r.factKey.startsWith('l:')).map((r) => r.factKey.slice(2));
    if (targets.length === 0) return false;
    const linked = new Set(
      rows
        .filter((r) => r.factKey.startsWith('r:') && (r.fact as { type?: string }).type === 'LINKS_TO')
        .map((r) => (r.fact as { toId: string }).toId),
    );
    const pages = await this.deps.repository.evidence.pageEntities(targets);
    return [...pages.values()].some((entityId) => entityId !== pageEntityId && !linked.has(entityId));
  }
}

/** The document as extractors (and their cache keys) read it. */
export function forExtraction(d: DocumentRecord): DocumentForExtraction {
  return {
    id: d.id,
    title: d.title,
    documentType: d.documentType,
    source: d.source,
    tags: d.tags,
    metadata: d.metadata,
  };
}

function outcome(
  documentId: string,
  status: DocumentExtractionOutcome['status'],
  counts: { entities: number; relationships: number },
): DocumentExtractionOutcome {
  return { documentId, status, ...counts, warnings: [], tokens: 0, budgetExhausted: false };
}
