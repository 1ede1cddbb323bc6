import type { Db } from '../db/Db.js';
import type { DocumentService } from '../documents/DocumentService.js';
import type { DocumentRecord } from '../documents/types.js';
import type { GraphService } from '../graph/GraphService.js';
import { BatchNames } from './batchNames.js';
import { buildEvidence, type DocumentEvidence } from './buildEvidence.js';
import type { ExtractionRepository } from './ExtractionRepository.js';
import { FactReconciler, type SupportRules } from './FactReconciler.js';
import { runExtractorOnMany, type DocumentChunks, type ExtractorRun } from './runExtractors.js';
import type {
  ChunkForExtraction,
  DocumentExtractionOutcome,
  DocumentForExtraction,
  ExtractOptions,
  Extractor,
  ExtractorName,
} from './types.js';

/** Advisory lock ("xtrc") that serialises reconciling facts across instances: two documents may share a fact. */
export const RECONCILE_LOCK = 0x78747263;

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

/** One document of a batch: to extract (with these extractors; null: the configured ones), or removed. */
export interface BatchDocument {
  documentId: string;
  removed?: boolean;
  extractors?: readonly ExtractorName[] | null;
}

/** A batch run's options: the budget and signal of ExtractOptions, and documents extracted at once. */
export interface BatchOptions extends Omit<ExtractOptions, 'extractors'> {
  parallel?: number;
}

/** A document of the batch that exists, read for its extractors. */
interface Loaded extends DocumentChunks {
  document: DocumentForExtraction;
  chunks: ChunkForExtraction[];
  extractors: readonly ExtractorName[] | null | undefined;
}

/**
 * Extracts documents: runs each extractor on the chunks its cache lacks, resolves what they found to entity ids,
 * replaces the documents' evidence, and reconciles every fact they supported before or support now. A batch is
 * reconciled in one round under one lock: its names, facts and mentions are written set-wise, once.
 */
export class ExtractionPipeline {
  private readonly reconciler: FactReconciler;

  constructor(private readonly deps: ExtractionPipelineDeps) {
    this.reconciler = new FactReconciler(deps.repository, deps.graph, deps.rules);
  }

  /** Extracts a document; one that no longer exists has its evidence removed (SKIPPED). */
  async extract(documentId: string, options: ExtractOptions = {}): Promise<DocumentExtractionOutcome> {
    const result = (await this.extractBatch([{ documentId, extractors: options.extractors ?? null }], options)).get(
      documentId,
    );
    if (result instanceof Error || result === undefined) throw result ?? new Error(`${documentId} was not extracted`);
    return result;
  }

  /** Removes a deleted document's evidence and the facts it alone supported. */
  async remove(documentId: string): Promise<void> {
    await this.extractBatch([{ documentId, removed: true }]);
  }

  /**
   * Extracts a batch of documents and removes the evidence of removed (or missing) ones, reconciling all of it in one
   * round. Returns each document's outcome, or the error that stopped it alone (its evidence stays as it was); an
   * error of the round itself (the database, the graph store, an abort) is thrown for the whole batch.
   */
  async extractBatch(
    batch: readonly BatchDocument[],
    options: BatchOptions = {},
  ): Promise<Map<string, DocumentExtractionOutcome | Error>> {
    const wanted = batch.filter((b) => !b.removed);
    const found = await this.deps.documents.manyWithChunks(wanted.map((b) => b.documentId));
    const byId = new Map(found.map((f) => [f.document.id, f]));
    const loaded: Loaded[] = wanted.flatMap((b) => {
      const f = byId.get(b.documentId);
      if (!f) return [];
      const chunks = f.chunks.map((c) => ({ id: c.id, ordinal: c.ordinal, content: c.content }));
      return [{ document: forExtraction(f.document), chunks, extractors: b.extractors }];
    });
    const runs = await this.runExtractors(loaded, options);
    const evidence = await this.buildAll(loaded, runs);
    options.signal?.throwIfAborted();
    const replaced = batch.map((b) => b.documentId).filter((id) => !(runs.get(id) instanceof Error));
    const live = await this.replaceAndReconcile(replaced, evidence);
    const results = new Map<string, DocumentExtractionOutcome | Error>();
    for (const b of batch) {
      const run = runs.get(b.documentId);
      const built = evidence.get(b.documentId);
      if (run instanceof Error) results.set(b.documentId, run);
      else if (!run || !built) results.set(b.documentId, outcome(b.documentId, 'SKIPPED', 0, 0));
      else results.set(b.documentId, extracted(b.documentId, run, built, live));
    }
    return results;
  }

  /** Each document's runs in registry order, or the error that stopped its extraction. */
  private async runExtractors(
    loaded: readonly Loaded[],
    options: BatchOptions,
  ): Promise<Map<string, ExtractorRun[] | Error>> {
    const runs = new Map<string, ExtractorRun[] | Error>(loaded.map((l) => [l.document.id, []]));
    for (const extractor of this.deps.extractors) {
      options.signal?.throwIfAborted();
      const mine = loaded.filter(
        (l) => this.selected(l.extractors).has(extractor.name) && !(runs.get(l.document.id) instanceof Error),
      );
      if (mine.length === 0) continue;
      const results = await runExtractorOnMany(extractor, mine, this.deps.repository.cache, options);
      mine.forEach((l, i) => {
        const r = results[i] as ExtractorRun | Error;
        const list = runs.get(l.document.id);
        if (r instanceof Error) runs.set(l.document.id, r);
        else if (Array.isArray(list)) list.push(r);
      });
    }
    return runs;
  }

  /** Evidence of every document extracted, resolved against the batch's names read once. */
  private async buildAll(
    loaded: readonly Loaded[],
    runs: ReadonlyMap<string, ExtractorRun[] | Error>,
  ): Promise<Map<string, DocumentEvidence>> {
    const ok = loaded.flatMap((l) => {
      const r = runs.get(l.document.id);
      return Array.isArray(r) ? [{ ...l, runs: r }] : [];
    });
    const candidates = ok.flatMap((l) => l.runs.flatMap((r) => r.results.flatMap((x) => x?.entities ?? [])));
    const names = await BatchNames.load(
      candidates.filter((c) => c.name.trim() !== ''),
      this.deps.repository,
      this.deps.rules.fuzzyThreshold,
    );
    const evidence = new Map<string, DocumentEvidence>();
    for (const l of ok) {
      evidence.set(
        l.document.id,
        await buildEvidence(l.document, l.chunks, l.runs, {
          repository: this.deps.repository,
          idsBySource: (sources) => this.deps.documents.idsBySource(sources),
          fuzzyThreshold: this.deps.rules.fuzzyThreshold,
          names,
        }),
      );
    }
    return evidence;
  }

  /** The extractors to run: those asked for, else the configured ones. */
  private selected(names: readonly ExtractorName[] | null | undefined): Set<string> {
    return new Set(names ?? this.deps.configured);
  }

  /** Replaces the documents' evidence and reconciles it, all under the reconcile lock: one round for the batch. */
  private async replaceAndReconcile(
    documentIds: readonly string[],
    evidence: ReadonlyMap<string, DocumentEvidence>,
  ): Promise<Set<string>> {
    if (documentIds.length === 0) return new Set();
    const rows = [...evidence.values()].flatMap((e) => e.rows);
    const homes = [...evidence.entries()].flatMap(([documentId, e]) =>
      e.pageEntityId ? [{ documentId, entityId: e.pageEntityId }] : [],
    );
    const { evidence: repo, queue } = this.deps.repository;
    return this.deps.db.withLock(
      RECONCILE_LOCK,
      async () => {
        const before = await repo.replaceDocuments(documentIds, rows);
        const live = await this.reconciler.reconcile([...before, ...rows.map((r) => r.factKey)], homes);
        // Under the lock, so that two linked pages extracted at once never both miss their LINKS_TO: whichever comes
        // second sees the other's page entity or link, and queues the linking document again. Within a batch, every
        // document's evidence is in before these reads.
        const again = await repo.documentsLinkingWithout(
          homes.map((h) => ({ documentId: h.documentId, pageEntityId: h.entityId })),
        );
        again.push(...(await this.linksNowResolvable(evidence)));
        const sources = [...evidence.entries()].flatMap(([documentId, e]) =>
          e.source ? [{ documentId, source: e.source }] : [],
        );
        again.push(...(await repo.documentsLinkingToSources(sources)));
        await queue.enqueue(this.deps.db, again);
        return live;
      },
      { pollMs: 25 },
    );
  }

  /** Documents that link to a page with a page entity now but have no LINKS_TO to it yet. */
  private async linksNowResolvable(evidence: ReadonlyMap<string, DocumentEvidence>): Promise<string[]> {
    const linking = [...evidence.entries()].flatMap(([documentId, e]) => {
      const targets = e.rows.filter((r) => r.factKey.startsWith('l:')).map((r) => r.factKey.slice(2));
      return e.pageEntityId && targets.length > 0 ? [{ documentId, pageEntityId: e.pageEntityId, e, targets }] : [];
    });
    if (linking.length === 0) return [];
    const pages = await this.deps.repository.evidence.pageEntities(linking.flatMap((l) => l.targets));
    return linking
      .filter(({ pageEntityId, e, targets }) => {
        const linked = new Set(
          e.rows
            .filter((r) => r.factKey.startsWith('r:') && (r.fact as { type?: string }).type === 'LINKS_TO')
            .map((r) => (r.fact as { toId: string }).toId),
        );
        return targets.some((t) => {
          const entityId = pages.get(t);
          return entityId !== undefined && entityId !== pageEntityId && !linked.has(entityId);
        });
      })
      .map((l) => l.documentId);
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

/** A document's outcome: the facts it supports that are in the graph now, its warnings, failures and tokens. */
function extracted(
  documentId: string,
  runs: readonly ExtractorRun[],
  evidence: DocumentEvidence,
  live: ReadonlySet<string>,
): DocumentExtractionOutcome {
  const mine = new Set(evidence.rows.map((r) => r.factKey).filter((k) => live.has(k)));
  const failures = runs.flatMap((r) => r.failures);
  return {
    ...outcome(
      documentId,
      failures.length > 0 ? 'FAILED' : 'DONE',
      [...mine].filter((k) => k.startsWith('e:')).length,
      [...mine].filter((k) => k.startsWith('r:')).length,
    ),
    warnings: [...evidence.warnings, ...runs.flatMap((r) => r.warnings)],
    ...(failures.length > 0 ? { error: failures.join('; ').slice(0, 2000) } : {}),
    tokens: runs.reduce((n, r) => n + r.tokens, 0),
    budgetExhausted: runs.some((r) => r.budgetExhausted),
  };
}

function outcome(
  documentId: string,
  status: DocumentExtractionOutcome['status'],
  entities: number,
  relationships: number,
): DocumentExtractionOutcome {
  return { documentId, status, entities, relationships, warnings: [], tokens: 0, budgetExhausted: false };
}
