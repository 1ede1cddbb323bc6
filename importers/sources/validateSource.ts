import path from 'node:path';
import { DOCUMENT_TYPES, validateTags, type DocumentTypeName } from '../../src/importerPort.js';
import { badInput } from '../../src/errors.js';
import { validateExtractors } from '../extract/validateExtractGraph.js';
import { validateImportUrl } from '../validateImportInput.js';
import { parseGitRemote } from './kinds/gitRemote.js';
import { validateSchedule } from './schedule.js';
import type { NewSource, SourceConfig, SourceKind, SourcePatch, SourceRecord } from './types.js';

/** Source settings as clients send them (GraphQL CreateSourceInput, the CLI); null means absent. */
export interface RawSourceInput {
  name?: string | null;
  kind?: SourceKind | null;
  url?: string | null;
  branch?: string | null;
  include?: readonly string[] | null;
  exclude?: readonly string[] | null;
  path?: string | null;
  sitemapUrl?: string | null;
  pathPrefix?: string | null;
  maxPages?: number | null;
  concurrency?: number | null;
  delayMs?: number | null;
  tags?: readonly string[] | null;
  /** Storage form (lower case). */
  documentType?: string | null;
  /** Lower-case extractor names; null on update: back to the configured ones. */
  extractors?: readonly string[] | null;
  schedule?: string | null;
  syncTimeoutSeconds?: number | null;
  /** GIT over ssh: the private deploy key (stored sealed, never returned); "" or null on update removes it. */
  deployKey?: string | null;
  /** GIT over ssh: known_hosts lines of the host; "" on update forgets them (the next sync learns the key again). */
  sshKnownHosts?: string | null;
}

/** What validation needs from the configuration. */
export interface SourceLimits {
  /** The only folder FOLDER sources may read under; undefined allows none. */
  folderRoot: string | undefined;
  /** CAIRN_EXTRACTION_LLM_MODEL is set (a source may only choose `llm` then). */
  llmModel?: boolean;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,99}$/;
const BRANCH = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]{1,200}$/;
const MAX_GLOBS = 50;
const DEFAULT_TIMEOUT_S = 3600;

function intIn(value: number | null | undefined, field: string, min: number, max: number, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (!Number.isInteger(value) || value < min || value > max)
    throw badInput(field, `must be a whole number from ${min} to ${max}`);
  return value;
}

function globs(value: readonly string[] | null | undefined, field: string, fallback: string[]): string[] {
  if (value === undefined || value === null) return fallback;
  if (value.length > MAX_GLOBS) throw badInput(field, `at most ${MAX_GLOBS} patterns`);
  return value.map((g, i) => {
    const glob = g.trim();
    if (glob === '' || glob.length > 200 || glob.startsWith('/'))
      throw badInput(`${field}[${i}]`, 'must be a repository-relative glob such as "docs/**/*.md" (1-200 characters)');
    return glob;
  });
}

function httpUrl(value: string | null | undefined, field: string): string {
  const url = validateImportUrl(value, field);
  if (!/^https?:$/.test(new URL(url).protocol)) throw badInput(field, 'must be an https:// (or http://) URL');
  return url;
}

/** Resolves a FOLDER path and checks that it lies inside the configured root. */
export function validateFolderPath(value: string | null | undefined, field: string, limits: SourceLimits): string {
  if (limits.folderRoot === undefined) {
    throw badInput(
      field,
      'folder sources are off on this server: set CAIRN_SOURCES_FOLDER_ROOT to the folder they may read under',
    );
  }
  const given = (value ?? '').trim();
  if (given === '') throw badInput(field, `must name a folder under ${limits.folderRoot}`);
  const resolved = path.resolve(limits.folderRoot, given);
  const relative = path.relative(limits.folderRoot, resolved);
  if (relative.startsWith('..') || path.isAbsolute(relative))
    throw badInput(
      field,
      `"${given}" is outside ${limits.folderRoot} (CAIRN_SOURCES_FOLDER_ROOT); only folders under it may be sources`,
    );
  return resolved;
}

function kindConfig(kind: SourceKind, raw: RawSourceInput, prefix: string, limits: SourceLimits): SourceConfig {
  const f = (name: string) => `${prefix}.${name}`;
  switch (kind) {
    case 'GIT': {
      const branch = (raw.branch ?? 'main').trim();
      if (!BRANCH.test(branch))
        throw badInput(
          f('branch'),
          `"${branch.slice(0, 100)}" is not a branch name (letters, digits, ".", "_", "-", "/")`,
        );
      return {
        kind,
        config: {
          url: parseGitRemote(raw.url, f('url')).url,
          branch,
          include: globs(raw.include, f('include'), ['**']),
          exclude: globs(raw.exclude, f('exclude'), []),
        },
      };
    }
    case 'SITE': {
      const url = httpUrl(raw.url, f('url'));
      const sitemapUrl = raw.sitemapUrl ? httpUrl(raw.sitemapUrl, f('sitemapUrl')) : null;
      const folder = new URL(url).pathname.replace(/[^/]*$/, '');
      const pathPrefix = (raw.pathPrefix ?? folder).trim() || '/';
      if (!pathPrefix.startsWith('/')) throw badInput(f('pathPrefix'), 'must be a URL path starting with "/"');
      return {
        kind,
        config: {
          url,
          sitemapUrl,
          pathPrefix,
          maxPages: intIn(raw.maxPages, f('maxPages'), 1, 100_000, 500),
          concurrency: intIn(raw.concurrency, f('concurrency'), 1, 16, 2),
          delayMs: intIn(raw.delayMs, f('delayMs'), 0, 60_000, 250),
        },
      };
    }
    case 'OPENAPI':
      return { kind, config: { url: httpUrl(raw.url, f('url')) } };
    case 'FOLDER':
      return { kind, config: { path: validateFolderPath(raw.path, f('path'), limits) } };
  }
}

function validateName(value: string | null | undefined, field: string): string {
  const name = (value ?? '').trim();
  if (!NAME.test(name))
    throw badInput(field, 'must be 1-100 letters, digits, spaces, ".", "_" or "-", starting with a letter or digit');
  return name;
}

function validateType(value: string | null | undefined, field: string): DocumentTypeName | null {
  if (value === undefined || value === null) return null;
  if (!(DOCUMENT_TYPES as readonly string[]).includes(value))
    throw badInput(field, `must be one of ${DOCUMENT_TYPES.join(', ')}`);
  return value as DocumentTypeName;
}

/** Validates a new source. */
export function validateNewSource(raw: RawSourceInput, limits: SourceLimits, prefix = 'input'): NewSource {
  const kind = raw.kind;
  if (!kind || !['GIT', 'SITE', 'OPENAPI', 'FOLDER'].includes(kind))
    throw badInput(`${prefix}.kind`, 'must be GIT, SITE, OPENAPI or FOLDER');
  return {
    ...kindConfig(kind, raw, prefix, limits),
    name: validateName(raw.name, `${prefix}.name`),
    tags: validateTags(raw.tags ?? [], `${prefix}.tags`),
    documentType: validateType(raw.documentType, `${prefix}.documentType`),
    extractors: validateExtractors(raw.extractors, `${prefix}.extractors`, { llmModel: limits.llmModel ?? false }),
    schedule: validateSchedule(raw.schedule, `${prefix}.schedule`),
    syncTimeoutMs: intIn(raw.syncTimeoutSeconds, `${prefix}.syncTimeoutSeconds`, 1, 86_400, DEFAULT_TIMEOUT_S) * 1000,
    // Set by the service once the key is checked and sealed (sshSettings.ts).
    deployKey: null,
    sshKnownHosts: null,
  };
}

/** The kind settings a raw update touches, merged over the stored ones; undefined when it touches none. */
function patchedConfig(
  source: SourceRecord,
  raw: RawSourceInput,
  prefix: string,
  limits: SourceLimits,
): SourceConfig | undefined {
  const keys = [
    'url',
    'branch',
    'include',
    'exclude',
    'path',
    'sitemapUrl',
    'pathPrefix',
    'maxPages',
    'concurrency',
    'delayMs',
  ] as const;
  if (!keys.some((k) => raw[k] !== undefined && raw[k] !== null)) return undefined;
  const merged: RawSourceInput = {
    ...(source.config as RawSourceInput),
    ...Object.fromEntries(keys.filter((k) => raw[k] !== undefined && raw[k] !== null).map((k) => [k, raw[k]])),
  };
  return kindConfig(source.kind, merged, prefix, limits);
}

/** Validates an update; a schedule of "" (or null given on purpose) makes the source manual. */
export function validateSourcePatch(
  source: SourceRecord,
  raw: RawSourceInput,
  limits: SourceLimits,
  prefix = 'input',
): SourcePatch {
  if (raw.kind !== undefined && raw.kind !== null && raw.kind !== source.kind)
    throw badInput(`${prefix}.kind`, `a source's kind cannot change (it is ${source.kind}); add a new source instead`);
  const patch: SourcePatch = {};
  if (raw.name !== undefined && raw.name !== null) patch.name = validateName(raw.name, `${prefix}.name`);
  const config = patchedConfig(source, raw, prefix, limits);
  if (config) patch.config = config;
  if (raw.tags !== undefined && raw.tags !== null) patch.tags = validateTags(raw.tags, `${prefix}.tags`);
  if (raw.documentType !== undefined) patch.documentType = validateType(raw.documentType, `${prefix}.documentType`);
  if (raw.extractors !== undefined)
    patch.extractors = validateExtractors(raw.extractors, `${prefix}.extractors`, {
      llmModel: limits.llmModel ?? false,
    });
  if (raw.schedule !== undefined) patch.schedule = validateSchedule(raw.schedule, `${prefix}.schedule`);
  if (raw.syncTimeoutSeconds !== undefined && raw.syncTimeoutSeconds !== null)
    patch.syncTimeoutMs =
      intIn(raw.syncTimeoutSeconds, `${prefix}.syncTimeoutSeconds`, 1, 86_400, DEFAULT_TIMEOUT_S) * 1000;
  return patch;
}
