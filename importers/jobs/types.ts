import type { DocumentDefaultsInput, ExtractionEstimate, ExtractorName } from '../../src/importerPort.js';

/** What an import reads from. */
export type ImportKind = 'url' | 'openapi' | 'upload' | 'directory' | 'source' | 'extract';

/** Where a job stands. INTERRUPTED jobs stopped with the process and can be resumed. */
export type ImportJobStatus = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'PARTIAL' | 'INTERRUPTED';

/** Where one item of a job stands. */
export type ImportItemStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

/** Fields the caller sets on every document an import creates (undefined: detected from the source). */
export type DocumentDefaults = DocumentDefaultsInput;

/** A validated import request, stored with the job so it can run (or resume) with no other state. */
export type ImportRequest =
  | { kind: 'url'; urls: string[]; defaults: DocumentDefaults }
  | {
      kind: 'openapi';
      url?: string;
      content?: string;
      title?: string;
      tags: string[];
      source?: string;
      /** The spec id the caller chose; without it the id is derived and may not take over another spec's. */
      specId?: string;
      /** The local file the CLI read `content` from: the item's label, and the folder its `$ref`s may read. */
      file?: string;
      /** Import the rest when a `$ref` cannot be resolved, with a warning per skipped `$ref`. */
      skipUnresolvedRefs?: boolean;
    }
  | {
      kind: 'upload';
      uploadId: string;
      fileName: string;
      documentId: string;
      defaults: DocumentDefaults;
      /** For a spec: the spec id the caller chose. */
      specId?: string;
      /** The caller chose `documentId` (a spec's id is then taken from it as chosen, not derived). */
      idGiven?: boolean;
    }
  | {
      kind: 'directory';
      root: string;
      files: string[];
      defaults: DocumentDefaults;
      /** Files under `root` that are not imported, and why: the job's warnings name them. */
      skipped?: { path: string; reason: string }[];
    }
  /** A sync of a registered source: one item, whose work the sources module does (importers/sources). */
  | { kind: 'source'; sourceId: string; sourceName: string }
  /** extractGraph: one item per document (its label is the document id); null extractors: the configured ones. */
  | { kind: 'extract'; extractors: ExtractorName[] | null; dryRun: boolean };

/** One source of a job: a URL, a spec, an uploaded file or a file of a folder. */
export interface ImportJobItemRecord {
  ordinal: number;
  label: string;
  status: ImportItemStatus;
  documentIds: string[];
  errorCode: string | null;
  error: string | null;
  finishedAt: Date | null;
}

/** An import job with its items. */
export interface ImportJobRecord {
  id: string;
  /** The space the job was made in: it writes its documents there, and only keys working there see it. */
  space: string;
  kind: ImportKind;
  status: ImportJobStatus;
  request: ImportRequest;
  progress: { done: number; total: number };
  chunkCount: number;
  embeddedChunkCount: number;
  warnings: string[];
  /** extractGraph jobs: model tokens spent, and a dry run's estimate (null otherwise). */
  extraction: { tokens: number; estimate: ExtractionEstimate | null };
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  items: ImportJobItemRecord[];
}

/** The outcome of one successful item. */
export interface ItemOutcome {
  documentIds: string[];
  chunkCount: number;
  embeddedChunkCount: number;
  /** Documents whose content or fields changed (0 on an unchanged re-import). */
  changedDocuments: number;
  warnings: string[];
}

/** What a job reports after each item (the CLI prints these). */
export interface ItemEvent {
  jobId: string;
  ordinal: number;
  label: string;
  status: 'SUCCEEDED' | 'FAILED';
  documentIds: string[];
  chunkCount: number;
  embeddedChunkCount: number;
  changedDocuments: number;
  errorCode?: string;
  error?: string;
}

/** Statuses after which a job no longer changes by itself. */
export const FINISHED_STATUSES: readonly ImportJobStatus[] = ['SUCCEEDED', 'FAILED', 'PARTIAL', 'INTERRUPTED'];
