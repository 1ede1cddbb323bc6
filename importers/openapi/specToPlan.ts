import { MAX_TAGS, MAX_TITLE } from '../../src/importerPort.js';
import type { ImportedDocument, ImportPlan } from '../types.js';
import { SPEC_RELATIONSHIP_TYPES, buildGraph, operationSchemas } from './graphPlan.js';
import { sanitizeTag, specIds } from './ids.js';
import { listOperations, type OperationInfo } from './operations.js';
import { operationTitle, renderOperation } from './renderOperation.js';
import { renderOverview, tagCatalogue } from './renderOverview.js';
import { DEFAULT_MAX_SCHEMA_DEPTH, oneLine, type SchemaRenderContext } from './renderSchema.js';
import { serverHosts, type SpecOrigin } from './specOrigin.js';
import { SpecRefs } from './SpecRefs.js';
import type { LoadedSpec } from './types.js';

export { specIdFor } from './ids.js';

/** How a loaded spec becomes a plan. */
export interface OpenApiPlanOptions {
  /** Slug the ids are built from (see `specIdFor`). */
  specId: string;
  /** Overrides `info.title` for the overview document and the Api entity. */
  title?: string;
  /** Tags every document gets, in addition to the operation's own. */
  tags: string[];
  /** The documents' `source` (usually the spec's URL). */
  source: string | null;
  /** Where the spec came from; recorded on the overview document so a later import can tell the spec from others. */
  origin?: SpecOrigin;
  /** Nesting depth of rendered schema fields (default 4). */
  maxSchemaDepth?: number;
  /** Lines of schema fields one operation document may hold before the rest is left out (default 2000). */
  maxSchemaLines?: number;
}

function documentTags(base: string[], opTags: string[]): string[] {
  const out = new Set(base);
  for (const t of opTags) {
    const tag = sanitizeTag(t);
    if (tag) out.add(tag);
  }
  return [...out].slice(0, MAX_TAGS);
}

type Metadata = ImportedDocument['metadata'];

function operationMetadata(op: OperationInfo, spec: LoadedSpec, specId: string): Metadata {
  return {
    specId,
    kind: op.kind,
    method: op.method,
    path: op.path,
    operationId: op.operationId ?? null,
    tags: op.tags,
    deprecated: op.deprecated,
    specVersion: spec.specVersion,
    apiVersion: spec.apiVersion,
  };
}

function overviewMetadata(spec: LoadedSpec, options: OpenApiPlanOptions, operationCount: number): Metadata {
  return {
    specId: options.specId,
    kind: 'overview',
    specVersion: spec.specVersion,
    openapiVersion: spec.declaredVersion,
    apiVersion: spec.apiVersion,
    operationCount,
    // What tells this spec from another that would get the same derived id (see specOrigin.ts).
    infoTitle: spec.title,
    serverHosts: serverHosts(spec),
    ...(options.origin ? { origin: { ...options.origin } } : {}),
  };
}

/**
 * Turns a loaded spec into documents (an overview plus one per operation and webhook) and a graph
 * (Api, Operation, Schema, Tag). Deterministic: the same spec and options give an identical plan.
 */
export function openApiToPlan(spec: LoadedSpec, options: OpenApiPlanOptions): ImportPlan {
  const ids = specIds(options.specId);
  const refs = new SpecRefs(spec.document, spec.specVersion);
  const ops = listOperations(refs);
  const warnings = [...spec.warnings];
  const title = oneLine(options.title ?? spec.title, MAX_TITLE) || 'Untitled API';
  const api = { title, version: spec.apiVersion };
  const base = [...new Set(options.tags)];

  const documents: ImportedDocument[] = [];
  const planned: Parameters<typeof buildGraph>[3] = [];
  const seenKeys = new Set<string>();
  const seenOperationIds = new Map<string, string>();
  for (const op of ops) {
    if (seenKeys.has(op.key)) continue;
    seenKeys.add(op.key);
    if (op.operationId) {
      const other = seenOperationIds.get(op.operationId);
      if (other) warnings.push(`operationId "${op.operationId}" is used by both ${other} and ${op.key}`);
      else seenOperationIds.set(op.operationId, op.key);
    }
    const ctx: SchemaRenderContext = {
      refs,
      maxDepth: options.maxSchemaDepth ?? DEFAULT_MAX_SCHEMA_DEPTH,
      expanded: new Set(),
      budget: { lines: options.maxSchemaLines ?? 2000, truncated: false },
    };
    const content = renderOperation(op, api, ctx);
    if (ctx.budget.truncated)
      warnings.push(`${op.key}: schemas too large to list completely; some fields were left out`);
    const schemas = operationSchemas(op, refs);
    const documentId = ids.operationDocument(op.key);
    planned.push({ op, schemas, documentId });
    const schemaIds = [...new Set([...schemas.accepts.keys(), ...schemas.returns.keys()])].map((n) => ids.schema(n));
    documents.push({
      id: documentId,
      title: oneLine(operationTitle(op), MAX_TITLE),
      content,
      documentType: 'api_spec',
      source: options.source,
      tags: documentTags(base, op.tags),
      metadata: operationMetadata(op, spec, options.specId),
      entityIds: [ids.operation(op.key), ids.api, ...schemaIds, ...[...new Set(op.tags)].map((t) => ids.tag(t))],
    });
  }

  const tags = tagCatalogue(spec.document, ops);
  const graph = buildGraph(spec, refs, ids, planned, tags, options.specId, title);
  const overview: ImportedDocument = {
    id: ids.overviewDocument,
    title,
    content: renderOverview(spec, refs, ops, title),
    documentType: 'api_spec',
    source: options.source,
    tags: base.slice(0, MAX_TAGS),
    metadata: overviewMetadata(spec, options, documents.length),
    entityIds: [ids.api, ...tags.map((t) => ids.tag(t.name))],
  };
  if (ops.length === 0) warnings.push('The spec has no operations; only the overview document was planned');
  return {
    documents: [overview, ...documents],
    entities: graph.entities,
    relationships: graph.relationships,
    replacePrefix: ids.documentPrefix,
    replaceEntityPrefixes: ids.entityPrefixes,
    replaceRelationshipTypes: SPEC_RELATIONSHIP_TYPES,
    warnings,
  };
}
