import type { DocumentTypeName, ExtractorName } from '../../src/importerPort.js';
import type { JsonObject } from '../../src/shared/json.js';
import type { SealedSecret } from '../../src/shared/secretBox.js';

/** Where a source's documents come from. */
export type SourceKind = 'GIT' | 'SITE' | 'OPENAPI' | 'FOLDER';

/** Where a source stands after its last sync. */
export type SourceStatus = 'NEVER_SYNCED' | 'SYNCING' | 'SUCCEEDED' | 'PARTIAL' | 'FAILED';

/** A git repository: https or ssh URL, branch, include/exclude globs over repository paths. */
export interface GitConfig {
  url: string;
  branch: string;
  include: string[];
  exclude: string[];
}

/** A docs site: its sitemap, or a crawl of same-origin links under `pathPrefix` from `url`. */
export interface SiteConfig {
  url: string;
  /** Read pages from this sitemap; without one the site is crawled from `url`. */
  sitemapUrl: string | null;
  /** Only pages whose path starts with this (default: the start URL's folder). */
  pathPrefix: string;
  maxPages: number;
  concurrency: number;
  /** Pause between two requests of one worker, in milliseconds. */
  delayMs: number;
}

/** An OpenAPI spec behind a URL. */
export interface OpenApiConfig {
  url: string;
}

/** A folder on the server's machine, under CAIRN_SOURCES_FOLDER_ROOT. */
export interface FolderConfig {
  /** Absolute, resolved path (inside the configured root). */
  path: string;
}

/** The settings of one kind. */
export type SourceConfig =
  | { kind: 'GIT'; config: GitConfig }
  | { kind: 'SITE'; config: SiteConfig }
  | { kind: 'OPENAPI'; config: OpenApiConfig }
  | { kind: 'FOLDER'; config: FolderConfig };

/** The deploy key of a GIT source over ssh: the private key sealed at rest, its public half in clear. */
export interface StoredDeployKey {
  sealed: SealedSecret;
  publicKey: string;
  fingerprint: string;
}

/** What a GIT source over ssh logs in with and which host keys it trusts; null for other sources. */
export interface SshSettings {
  deployKey: StoredDeployKey | null;
  /** known_hosts lines: given with the source, or learned on its first sync. */
  sshKnownHosts: string | null;
}

/** Counts of one sync, by document. */
export interface SyncCounts {
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  /** Items left out: links to blocked addresses, pages robots.txt disallows, items past the page limit. */
  skipped: number;
}

/** A registered source as stored. */
export type SourceRecord = SourceConfig &
  SshSettings & {
    id: string;
    /** The space the source belongs to: its syncs run there and write their documents there. */
    space: string;
    name: string;
    tags: string[];
    documentType: DocumentTypeName | null;
    /** The extractors of the source's documents; null: the configured ones (CAIRN_EXTRACTION_EXTRACTORS). */
    extractors: ExtractorName[] | null;
    schedule: string | null;
    syncTimeoutMs: number;
    status: SourceStatus;
    state: JsonObject;
    lastJobId: string | null;
    lastRunAt: Date | null;
    lastFinishedAt: Date | null;
    nextRunAt: Date | null;
    lastError: string | null;
    lastErrorCode: string | null;
    counts: SyncCounts;
    createdAt: Date;
    updatedAt: Date;
  };

/** What the last finished import of one item recorded. */
export interface SourceItemRecord {
  key: string;
  fingerprint: string;
  documentIds: string[];
  state: JsonObject;
}

/** A validated new source. */
export type NewSource = SourceConfig &
  SshSettings & {
    name: string;
    tags: string[];
    documentType: DocumentTypeName | null;
    extractors: ExtractorName[] | null;
    schedule: string | null;
    syncTimeoutMs: number;
  };

/** A validated change to a source; undefined keeps a field. */
export interface SourcePatch {
  name?: string;
  config?: SourceConfig;
  tags?: string[];
  documentType?: DocumentTypeName | null;
  extractors?: ExtractorName[] | null;
  schedule?: string | null;
  syncTimeoutMs?: number;
  deployKey?: StoredDeployKey | null;
  sshKnownHosts?: string | null;
}
