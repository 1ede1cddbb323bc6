import type { ImportConfig, Logger } from '../../../src/importerPort.js';
import type { JsonObject } from '../../../src/shared/json.js';
import type { SecretBox } from '../../../src/shared/secretBox.js';
import type { SafeFetcher } from '../../http/SafeFetcher.js';
import type { Resolver } from '../../http/fetchTarget.js';
import type { DocumentDefaults } from '../../jobs/types.js';
import type { SpecImportPlan } from '../../openapi/specOrigin.js';
import type { PlanDeps } from '../../pipeline/planSources.js';
import type { SkippedFile } from '../../pipeline/walkDirectory.js';
import type { SourceItemRecord, SourceRecord } from '../types.js';

/** An item's documents as planned now, with what to record about it. */
export interface LoadedItem {
  plan: SpecImportPlan;
  /** Equal to the stored one: nothing changed, and nothing is written. */
  fingerprint: string;
  state: JsonObject;
}

/** The item has not changed since its last import (a 304, an equal hash); `state` refreshes what is recorded. */
export interface UnchangedItem {
  unchanged: true;
  state?: JsonObject;
}

/** One item a kind offers a sync: a file, a page, a spec. */
export interface SyncItem {
  key: string;
  /** How errors and progress name it. */
  label: string;
  /** Known before loading (a git blob id): equal to the stored one means unchanged, and the item is not loaded. */
  fingerprint?: string;
  load(previous: SourceItemRecord | undefined): Promise<LoadedItem | UnchangedItem>;
}

/** Settings of the sources that are not per source. */
export interface SourceRuntime {
  fetcher: SafeFetcher;
  importConfig: ImportConfig;
  /** Where git clones are kept between syncs. */
  cacheDir: string;
  /** The only folder FOLDER sources may read under; undefined allows none. */
  folderRoot: string | undefined;
  /** Seals and opens deploy keys (CAIRN_SECRET_KEY); absent, none can be stored or used. */
  secrets?: SecretBox;
  /** Resolves host names for the git address check (tests inject names); default: the system resolver. */
  resolve?: Resolver;
  logger: Logger;
}

/** What a kind gets for one sync. */
export interface DriverContext {
  source: SourceRecord;
  previous: ReadonlyMap<string, SourceItemRecord>;
  signal: AbortSignal;
  runtime: SourceRuntime;
  planDeps: PlanDeps;
  defaults: DocumentDefaults;
  /** Counts an item left out (a blocked link, a page robots.txt disallows, one past the page limit) and says why. */
  skip(reason: string): void;
  /** Counts files of a folder or repository that no importer reads, naming them by reason as `import dir` does. */
  skipFiles(files: readonly SkippedFile[]): void;
  /** The number of items, once the kind knows it. */
  setTotal(total: number): void;
}

/** One kind's sync: yields its items; throwing fails the sync (nothing is removed). */
export interface SourceDriver {
  items(context: DriverContext): AsyncIterable<SyncItem>;
  /** What a complete sync reached (a commit), stored on the source. */
  finalState?(): JsonObject;
}
