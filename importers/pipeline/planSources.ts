import { createHash } from 'node:crypto';
import path from 'node:path';
import { DOCUMENT_ID_PATTERN, MAX_TAGS, type ImportConfig } from '../../src/importerPort.js';
import { badInput } from '../../src/errors.js';
import { flattenDeepHtml, flattenWarning } from '../files/deepMarkup.js';
import { extractFile, type ExtractedFile } from '../files/extractFile.js';
import { MAX_NESTING } from '../files/nesting.js';
import { decodeHtmlBody } from '../html/decodeHtmlBody.js';
import type { FetchedResource, SafeFetcher } from '../http/SafeFetcher.js';
import type { DocumentDefaults } from '../jobs/types.js';
import type { SpecSource } from '../openapi/loadSpec.js';
import { canonicalSpecUrl } from '../openapi/ids.js';
import { openApiToPlan, specIdFor } from '../openapi/specToPlan.js';
import { serverHosts, type SpecImportPlan, type SpecOrigin } from '../openapi/specOrigin.js';
import type { ImportedDocument } from '../types.js';
import { canonicalUrl, documentIdForUrl } from '../url/canonicalUrl.js';
import { detectDocumentType } from '../url/detectDocumentType.js';
import { refreshable } from './refresh.js';

/** What planning needs from outside: the safe HTTP client and the importer limits. */
export interface PlanDeps {
  fetcher: SafeFetcher;
  config: ImportConfig;
}

/** An OpenAPI source as `importOpenApi` takes it. */
export interface OpenApiSource {
  url?: string;
  content?: string;
  title?: string;
  tags: string[];
  source?: string;
  /** The spec id the caller chose (validated); without it the id is derived and guarded (see SpecGuard). */
  specId?: string;
  /** The local file `content` was read from (the CLI): its `$ref`s may read files in its folder and under it. */
  file?: string;
  /** Import the rest when a `$ref` cannot be resolved, with a warning per skipped `$ref`. */
  skipUnresolvedRefs?: boolean;
}

/** A derived spec id and what it was derived from. */
export interface DerivedSpecId {
  specId: string;
  origin: SpecOrigin;
}

/** A file's bytes with its name, from an upload or a folder. */
export interface FileSource {
  fileName: string;
  contentType?: string;
  bytes: Buffer;
  /** Where the file lies on disk (folder imports): a spec's `$ref`s may read files in its folder and under it. */
  localPath?: string;
}

const ACCEPT =
  'text/html,application/xhtml+xml;q=0.9,text/markdown,text/plain;q=0.8,application/json,application/yaml,application/pdf,' +
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document;q=0.7,*/*;q=0.1';

/**
 * Loads and validates a spec, then plans its documents and graph. The spec id is the caller's `specId`, else `derived`,
 * else taken from the URL or info.title; the plan's `spec` says which, for the guard that runs before writing.
 */
export async function planOpenApi(
  source: OpenApiSource,
  deps: PlanDeps,
  derived?: DerivedSpecId,
): Promise<SpecImportPlan> {
  const loadSource: SpecSource = {};
  if (source.url !== undefined) loadSource.url = source.url;
  if (source.content !== undefined) loadSource.content = source.content;
  if (source.file !== undefined) loadSource.file = source.file;
  // The $ref parser and the HTML converter load with the first spec or page: most commands never plan either.
  const { loadOpenApiSpec } = await import('../openapi/loadSpec.js');
  const spec = await loadOpenApiSpec(loadSource, {
    fetcher: deps.fetcher,
    maxBytes: deps.config.maxBytes,
    maxTotalBytes: deps.config.specMaxBytes,
    skipUnresolvedRefs: source.skipUnresolvedRefs ?? false,
  });
  const derive = (): DerivedSpecId => {
    if (derived) return derived;
    const canonical = source.url !== undefined ? canonicalSpecUrl(source.url) : undefined;
    if (source.url !== undefined && canonical)
      return { specId: specIdFor({ url: source.url }), origin: { kind: 'url', url: canonical } };
    return { specId: specIdFor({ title: spec.title, content: source.content ?? '' }), origin: { kind: 'content' } };
  };
  const { specId, origin } = derive();
  const id = source.specId ?? specId;
  const options: Parameters<typeof openApiToPlan>[1] = {
    specId: id,
    tags: source.tags,
    source: source.source ?? source.url ?? null,
    origin,
  };
  if (source.title !== undefined) options.title = source.title;
  const plan: SpecImportPlan = openApiToPlan(spec, options);
  const overview = plan.documents[0]?.id;
  plan.spec = {
    specId: id,
    explicit: source.specId !== undefined,
    origin,
    title: spec.title,
    serverHosts: serverHosts(spec),
    sourceUrl: spec.sourceUrl,
    operationDocumentIds: plan.documents.map((d) => d.id).filter((docId) => docId !== overview),
  };
  return plan;
}

/**
 * Fetches a URL through the safe client and plans one document (or a spec's documents when it is OpenAPI). The
 * document carries its refresh rule: the write decides which stored document it refreshes and what it keeps.
 */
export async function planUrl(url: string, defaults: DocumentDefaults, deps: PlanDeps): Promise<SpecImportPlan> {
  return planFetched(url, await deps.fetcher.fetch(url, { accept: ACCEPT }), defaults, deps);
}

/** What importers send as Accept when fetching a page. */
export const PAGE_ACCEPT = ACCEPT;

/** Plans the document(s) of a page already fetched from `url` (see planUrl). */
export async function planFetched(
  url: string,
  res: FetchedResource,
  defaults: DocumentDefaults,
  deps: PlanDeps,
): Promise<SpecImportPlan> {
  const fetched = {
    url,
    finalUrl: res.finalUrl.replace(/#.*$/, ''),
    fetchedAt: new Date().toISOString(),
    contentType: res.contentType || null,
  };
  const id = documentIdForUrl(url);
  const source = defaults.source ?? canonicalUrl(res.finalUrl);
  if (isHtml(res.contentType, res.body)) {
    // Deep nesting would overflow the converters' recursion: its innermost tags are flattened, their text kept.
    const { html, flattenedAt } = flattenDeepHtml(decodeHtmlBody(res.body, res.charset), MAX_NESTING);
    const { htmlToMarkdown } = await import('../html/htmlToMarkdown.js');
    const page = htmlToMarkdown(html, { baseUrl: res.finalUrl });
    const doc: ImportedDocument = {
      id,
      title:
        defaults.title ?? page.title ?? titleFromPath(new URL(res.finalUrl).pathname, new URL(res.finalUrl).hostname),
      content: page.markdown,
      documentType: defaults.documentType ?? detectDocumentType(res.finalUrl),
      source,
      tags: defaults.tags,
      metadata: {
        ...defaults.metadata,
        ...fetched,
        language: page.language ?? null,
        description: page.description ?? null,
      },
    };
    return {
      documents: [refreshable(doc, defaults, fetched.finalUrl)],
      entities: [],
      relationships: [],
      warnings: flattenWarning(flattenedAt),
    };
  }
  const fileName = path.posix.basename(new URL(res.finalUrl).pathname) || new URL(res.finalUrl).hostname;
  const file = await extractFile({ fileName, contentType: res.contentType, bytes: res.body }, fileLimits(deps.config));
  if (file.format === 'openapi') {
    const spec: OpenApiSource = { url: res.finalUrl, content: file.content, tags: defaults.tags, source };
    if (defaults.title !== undefined) spec.title = defaults.title;
    return planOpenApi(spec, deps, {
      specId: specIdFor({ url }),
      origin: { kind: 'url', url: canonicalSpecUrl(url) ?? url },
    });
  }
  const doc = fileDocument(
    file,
    id,
    defaults,
    titleFromPath(new URL(res.finalUrl).pathname, new URL(res.finalUrl).hostname),
  );
  doc.documentType = defaults.documentType ?? detectDocumentType(res.finalUrl);
  doc.source = source;
  doc.metadata = { ...file.metadata, ...defaults.metadata, ...fetched };
  return {
    documents: [refreshable(doc, defaults, fetched.finalUrl)],
    entities: [],
    relationships: [],
    warnings: file.warnings,
  };
}

/** How a file import names a spec: the caller's specId, or an id taken from the document id (chosen or derived). */
export interface FileSpecId {
  specId?: string;
  /** The caller gave the document id: the spec id taken from it is theirs, not derived. */
  idGiven?: boolean;
}

/**
 * Plans an uploaded or local file; `relativePath` (folder imports) also hints the document type. A spec's id is
 * `naming.specId`, else taken from the document id.
 */
export async function planFile(
  file: FileSource,
  id: string,
  defaults: DocumentDefaults,
  deps: PlanDeps,
  relativePath?: string,
  naming: FileSpecId = {},
): Promise<SpecImportPlan> {
  const extracted = await extractFile(file, fileLimits(deps.config));
  if (extracted.format === 'openapi') {
    const spec: OpenApiSource = {
      content: extracted.content,
      tags: defaults.tags,
      source: defaults.source ?? file.fileName,
    };
    if (file.localPath !== undefined) spec.file = file.localPath;
    if (defaults.title !== undefined) spec.title = defaults.title;
    const fromId = specIdFromDocumentId(id);
    if (naming.specId !== undefined) spec.specId = naming.specId;
    else if (naming.idGiven) spec.specId = fromId;
    return planOpenApi(spec, deps, { specId: fromId, origin: { kind: 'file', file: id } });
  }
  if (naming.specId !== undefined) {
    throw badInput(
      'specId',
      `"${file.fileName}" is not an OpenAPI spec (it reads as ${extracted.format}); specId names a spec's documents and graph, so leave it out for other files`,
    );
  }
  const doc = fileDocument(extracted, id, defaults, titleFromPath(file.fileName, file.fileName));
  doc.documentType = defaults.documentType ?? (relativePath ? detectDocumentType(`file:///${relativePath}`) : 'other');
  doc.source = defaults.source ?? relativePath ?? file.fileName;
  doc.metadata = { ...extracted.metadata, ...defaults.metadata, fileName: file.fileName, format: extracted.format };
  // A re-import refreshes the file's document as a URL import refreshes a page's: what callers set and omit now stays.
  return { documents: [refreshable(doc, defaults)], entities: [], relationships: [], warnings: extracted.warnings };
}

/**
 * A stable document id for a file name or relative path, e.g. `file:handbook/intro.md`. Characters an id cannot hold
 * are percent-encoded (UTF-8), so different names never share an id: replacing them with "-" made `日本.md` and
 * `中国.md` one document, the second import silently overwriting the first. Too long a result becomes a hash.
 */
export function documentIdForFile(name: string): string {
  const encoded = Array.from(name.replaceAll('\\', '/').replace(/\p{Cs}/gu, '\uFFFD'), (ch) =>
    /^[A-Za-z0-9_\-:./@#?=&+~]$/.test(ch)
      ? ch
      : encodeURIComponent(ch).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
  ).join('');
  const id = `file:${encoded}`;
  return DOCUMENT_ID_PATTERN.test(id) ? id : `file:${createHash('sha256').update(name).digest('hex').slice(0, 32)}`;
}

function specIdFromDocumentId(id: string): string {
  return (
    id
      .replace(/^file:/, '')
      .replace(/[^A-Za-z0-9_\-.]/g, '-')
      .slice(0, 100) || 'spec'
  );
}

function fileDocument(
  file: ExtractedFile,
  id: string,
  defaults: DocumentDefaults,
  fallbackTitle: string,
): ImportedDocument {
  return {
    id,
    title: defaults.title ?? file.title ?? fallbackTitle,
    content: file.content,
    documentType: defaults.documentType ?? 'other',
    source: defaults.source ?? null,
    // The caller's tags first, then the file's own (front matter), once each.
    tags: file.tags?.length ? [...new Set([...(defaults.tags ?? []), ...file.tags])].slice(0, MAX_TAGS) : defaults.tags,
    metadata: { ...file.metadata, ...defaults.metadata },
  };
}

function fileLimits(config: ImportConfig): { pdfMaxPages: number; maxUnzippedBytes: number } {
  return { pdfMaxPages: config.pdfMaxPages, maxUnzippedBytes: config.maxUnzippedBytes };
}

function isHtml(contentType: string, body: Buffer): boolean {
  if (contentType === 'text/html' || contentType === 'application/xhtml+xml') return true;
  if (contentType !== '') return false;
  return /^\s*(<!doctype html|<html)/i.test(body.subarray(0, 512).toString('latin1'));
}

/** "getting-started.html" → "getting started"; the host when the path has no name. */
function titleFromPath(p: string, fallback: string): string {
  const base = path.posix.basename(p).replace(/\.[A-Za-z0-9]{1,8}$/, '');
  const words = decodeURIComponentSafe(base).replace(/[-_]+/g, ' ').trim();
  return words === '' ? fallback : words;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
