// The public entry of the importers: src/ imports them only through this file, and only from its edge
// (src/services.ts, src/graphql/, src/cli/, src/server/). See docs/architecture.md#dependency-rules.
export { ImportService } from './ImportService.js';
export { createSafeFetcher } from './http/safeFetch.js';
export type { SafeFetcher } from './http/SafeFetcher.js';
export type { DocumentDefaults, ImportJobRecord, ImportRequest, ItemEvent } from './jobs/types.js';
export { FINISHED_STATUSES } from './jobs/types.js';
export { documentIdForFile } from './pipeline/planSources.js';
export { detectDocumentType } from './url/detectDocumentType.js';
export {
  scanDirectory,
  skippedFileWarnings,
  walkDirectory,
  type DirectoryScan,
  type SkippedFile,
} from './pipeline/walkDirectory.js';
export { validateOpenApiImport, validateUploadImport, validateUrlImport } from './validateImportInput.js';
export { SourceService } from './sources/SourceService.js';
export type { SourceRecord } from './sources/types.js';
export type { Resolver } from './http/fetchTarget.js';
export type { RawSourceInput } from './sources/validateSource.js';
export { documentIdsOf, extractionDocumentsOf, resultOrError } from './jobs/jobOutcome.js';
export { ExtractGraphService } from './extract/ExtractGraphService.js';
export type { RawExtractGraphInput } from './extract/validateExtractGraph.js';
export { EXTRACTOR_NAMES } from './extract/validateExtractGraph.js';
export { validateExtractors } from './extract/validateExtractGraph.js';
export { purgeImportsOfSpace } from './spacePurge.js';
