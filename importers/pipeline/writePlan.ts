import {
  MAX_GRAPH_BATCH,
  relationshipId,
  toStorableText,
  validateDocumentInput,
  type ImportDocuments,
  type ImportGraph,
  type InputLimits,
} from '../../src/importerPort.js';
import { AppError, ErrorCode } from '../../src/errors.js';
import type { ItemOutcome } from '../jobs/types.js';
import type { ImportPlan } from '../types.js';
import { refreshOf, importRefresher } from './refresh.js';

/** Documents embedded and written per transaction: small enough to report progress, large enough to batch embeddings. */
const DOCUMENT_BATCH = 25;

/** An importer's entities and relationships: extraction never changes or removes them. */
const IMPORTED = { origin: 'IMPORTED' } as const;

/** Services a plan is written through. */
export interface PlanWriter {
  documents: ImportDocuments;
  graph: ImportGraph;
  limits: InputLimits;
}

/** Thrown between batches when the process is shutting down; the item stays pending. */
export class ImportAborted extends Error {
  constructor() {
    super('import stopped by shutdown');
    this.name = 'ImportAborted';
  }
}

/**
 * Writes a plan: validates every document first (a bad one fails the item before anything is written), then the graph,
 * then the documents in transactional batches, then deletes documents under `replacePrefix` the plan no longer has.
 */
export async function writePlan(
  plan: ImportPlan,
  writer: PlanWriter,
  options: {
    signal?: AbortSignal;
    onProgress?: (done: number, total: number) => Promise<void>;
    /** After each document batch: chunks embedded and written so far, and the share of the plan's documents done. */
    onBatchWritten?: (embeddedChunks: number, fractionDone: number, documentIds: readonly string[]) => Promise<void>;
    /** Write the documents as this source's (see DocumentService.upsertMany); vanished ones are removed only if its own. */
    owner?: string;
  } = {},
): Promise<ItemOutcome> {
  plan = toStorableText(plan);
  // A source whose text is too long is the source's size problem, not a field the user sent: say which document.
  const tooLong = plan.documents.find((d) => d.content.length > writer.limits.maxDocumentChars);
  if (tooLong) {
    throw new AppError(
      ErrorCode.IMPORT_TOO_LARGE,
      `"${tooLong.id}" has ${tooLong.content.length} characters of text; the limit is ${writer.limits.maxDocumentChars} (CAIRN_MAX_DOCUMENT_CHARS): split the source or raise the limit`,
      { id: tooLong.id, size: tooLong.content.length, limit: writer.limits.maxDocumentChars },
    );
  }
  const inputs = plan.documents.map((doc, i) =>
    validateDocumentInput({ ...doc, expiresAt: null }, writer.limits, `documents[${i}]`),
  );
  if (inputs.length === 0) throw new AppError(ErrorCode.INVALID_FILE, 'the source produced no documents');
  const checkAbort = () => {
    if (options.signal?.aborted) throw new ImportAborted();
  };

  for (let i = 0; i < plan.entities.length; i += MAX_GRAPH_BATCH) {
    checkAbort();
    await writer.graph.upsertGraph(plan.entities.slice(i, i + MAX_GRAPH_BATCH), [], IMPORTED);
  }
  for (let i = 0; i < plan.relationships.length; i += MAX_GRAPH_BATCH) {
    checkAbort();
    await writer.graph.upsertGraph([], plan.relationships.slice(i, i + MAX_GRAPH_BATCH), IMPORTED);
  }

  // A URL or file document refreshes the one its page or file already has (docs/importing.md "importUrl"), decided inside the write.
  const rules = new Map(
    plan.documents.flatMap((d) => {
      const rule = refreshOf(d);
      return rule ? [[d.id, rule] as const] : [];
    }),
  );
  const refiner = rules.size > 0 ? importRefresher(rules) : undefined;
  const outcome: ItemOutcome = {
    documentIds: [],
    chunkCount: 0,
    embeddedChunkCount: 0,
    changedDocuments: 0,
    warnings: [...plan.warnings],
  };
  for (let i = 0; i < inputs.length; i += DOCUMENT_BATCH) {
    checkAbort();
    const results = await writer.documents.upsertMany(inputs.slice(i, i + DOCUMENT_BATCH), refiner, options.owner);
    for (const r of results) {
      outcome.documentIds.push(r.document.id);
      outcome.chunkCount += r.chunkCount;
      outcome.embeddedChunkCount += r.embeddedChunkCount;
      if (r.changed) outcome.changedDocuments += 1;
    }
    const done = Math.min(i + DOCUMENT_BATCH, inputs.length);
    await options.onBatchWritten?.(outcome.embeddedChunkCount, done / inputs.length, outcome.documentIds);
    await options.onProgress?.(done, inputs.length);
  }

  if (plan.replacePrefix) {
    const keep = new Set(outcome.documentIds);
    const vanished = (await writer.documents.idsWithPrefix(plan.replacePrefix)).filter((id) => !keep.has(id));
    const owner = options.owner;
    for (const id of vanished)
      await (owner === undefined ? writer.documents.delete(id) : writer.documents.deleteOwned(id, owner));
    outcome.changedDocuments += vanished.length;
    if (vanished.length > 0)
      outcome.warnings.push(`removed ${vanished.length} document(s) that the source no longer has`);
  }
  if (plan.replaceEntityPrefixes?.length) await replaceGraph(plan, writer, outcome);
  return outcome;
}

/** Deletes the importer's entities and relationships that the plan no longer has (see ImportPlan.replaceEntityPrefixes). */
async function replaceGraph(plan: ImportPlan, writer: PlanWriter, outcome: ItemOutcome): Promise<void> {
  const keep = new Set(plan.entities.flatMap((e) => (e.id ? [e.id] : [])));
  const staleEntities = (await writer.graph.entityIdsWithPrefix(plan.replaceEntityPrefixes ?? [])).filter(
    (id) => !keep.has(id),
  );
  for (const id of staleEntities) await writer.graph.deleteEntity(id);
  const types = new Set(plan.replaceRelationshipTypes ?? []);
  const wanted = new Set(plan.relationships.map((r) => relationshipId(r.fromId ?? '', r.type ?? '', r.toId ?? '')));
  const staleRelationships = (await writer.graph.relationshipsAmong([...keep])).filter(
    (r) => types.has(r.type) && !wanted.has(r.id),
  );
  for (const r of staleRelationships) await writer.graph.deleteRelationship(r.id);
  if (staleEntities.length + staleRelationships.length > 0) {
    outcome.warnings.push(
      `removed ${staleEntities.length} entit${staleEntities.length === 1 ? 'y' : 'ies'} and ${staleRelationships.length} relationship(s) that the source no longer has`,
    );
  }
}
