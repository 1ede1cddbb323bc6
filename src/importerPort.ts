// The port of src/ for importers/: besides the leaves every module may use (src/errors.ts, src/shared/), this module
// is all that importers/ may import from src/ (.dependency-cruiser.cjs, rule importers-through-port). Importers get
// the services themselves from the composition root (src/services.ts), typed by the interfaces below.
import type { DocumentService } from './documents/DocumentService.js';
import type { GraphService } from './graph/GraphService.js';
import type { Logger } from './logger.js';

export type { Db, Queryable } from './db/Db.js';
export { KeyedLock } from './db/KeyedLock.js';
export { runInSpace, runOutsideSpaces, spaceSql, writeSpace } from './db/spaceScope.js';
export { toDate, toDateOrNull } from './db/rowValues.js';
export { commandSearchPath, type ImportConfig } from './config.js';
export type { Logger } from './logger.js';
export { runAs, SCHEDULER_ACTOR } from './audit/actor.js';
export { runInJob } from './audit/jobScope.js';
export { MAX_JSON_DEPTH, toStorableText } from './storableText.js';

export { DOCUMENT_TYPES } from './documents/types.js';
export type { DocumentFilterSpec, DocumentInput, DocumentRecord, DocumentTypeName } from './documents/types.js';
export {
  DOCUMENT_ID_PATTERN,
  MAX_METADATA_BYTES,
  MAX_TAGS,
  MAX_TITLE,
  validateDocumentDefaults,
  validateDocumentId,
  validateDocumentInput,
  type DocumentDefaultsInput,
  type InputLimits,
  type RawDocumentInput,
} from './documents/validateInput.js';
export { TAG_PATTERN, validateTags } from './documents/tagExpression.js';
export type { StoredDocumentLookup, WriteRefiner } from './documents/writeRefiner.js';

export { MAX_GRAPH_BATCH } from './graph/GraphService.js';
export { relationshipId, type RawEntityInput, type RawRelationshipInput } from './graph/validateGraphInput.js';

export type { DocumentExtractor, ExtractionSummary } from './extraction/jobPort.js';
export type { DocumentExtractionOutcome, ExtractionEstimate, ExtractorName, TokenBudget } from './extraction/types.js';

/** The document operations importers use; `DocumentService` provides them. */
export type ImportDocuments = Pick<
  DocumentService,
  | 'upsertMany'
  | 'delete'
  | 'deleteOwned'
  | 'detachOwnedBy'
  | 'idsOwnedBy'
  | 'countOwnedBy'
  | 'idsWithPrefix'
  | 'findByIds'
  | 'scan'
  | 'liveIds'
>;

/** The graph operations importers use; `GraphService` provides them. */
export type ImportGraph = Pick<
  GraphService,
  'upsertGraph' | 'deleteEntity' | 'deleteRelationship' | 'entityIdsWithPrefix' | 'getEntities' | 'relationshipsAmong'
>;

/** A bulk write session's progress report, which may drop the vector index until the session ends (BulkLoad). */
export interface BulkLoadSession {
  progress(chunksWritten: number, fractionDone: number): Promise<void>;
}

/** How an import job keeps the vector index cheap during a large load; the composition root binds it to the database. */
export interface VectorIndexing {
  /** Runs `load` as one bulk session; the index is rebuilt at its end, and a failed rebuild goes to `onRebuildError`. */
  bulkLoad<T>(
    load: (session: BulkLoadSession) => Promise<T>,
    options: { deferIndex: boolean; logger: Logger; onRebuildError: (err: unknown) => void },
  ): Promise<T>;
  /** Builds the vector index if it is missing (a load that died may have dropped it). */
  ensureIndex(logger: Logger): Promise<void>;
}
