import type { RawEntityInput, RawRelationshipInput } from '../../src/importerPort.js';
import type { SpecIds } from './ids.js';
import type { OperationInfo } from './operations.js';
import { oneLine, schemaLabel } from './renderSchema.js';
import { directSchemaRefs, type SpecRefs } from './SpecRefs.js';
import { asArray, asJson, asString, type LoadedSpec } from './types.js';

const MAX_NAME = 500;
const MAX_DESCRIPTION = 10_000;
const MAX_ALIASES = 50;
const MAX_LISTED_FIELDS = 200;

function name(text: string): string {
  return oneLine(text, MAX_NAME) || '(unnamed)';
}

function description(...parts: (string | undefined)[]): string | null {
  const text = parts
    .filter((p): p is string => !!p && p.trim() !== '')
    .join('\n\n')
    .trim();
  return text === '' ? null : text.slice(0, MAX_DESCRIPTION);
}

/** Distinct aliases (case-insensitive), none equal to the entity's name. */
function aliases(entityName: string, candidates: (string | undefined)[]): string[] {
  const seen = new Set([entityName.toLowerCase()]);
  const out: string[] = [];
  for (const c of candidates) {
    const a = c ? name(c) : '';
    if (a !== '' && !seen.has(a.toLowerCase()) && out.length < MAX_ALIASES) {
      seen.add(a.toLowerCase());
      out.push(a);
    }
  }
  return out;
}

/** Named schemas an operation accepts (parameters, request body) and returns (responses, by status). */
export interface OperationSchemas {
  accepts: Map<string, Set<string>>;
  returns: Map<string, Set<string>>;
}

function addUse(map: Map<string, Set<string>>, schema: unknown, refs: SpecRefs, where: string): void {
  for (const n of directSchemaRefs(schema, refs)) {
    const set = map.get(n) ?? new Set<string>();
    set.add(where);
    map.set(n, set);
  }
}

/** Which named schemas an operation uses directly, and where (parameter location or response status). */
export function operationSchemas(op: OperationInfo, refs: SpecRefs): OperationSchemas {
  const accepts = new Map<string, Set<string>>();
  const returns = new Map<string, Set<string>>();
  for (const p of op.parameters) addUse(accepts, p.schema, refs, p.in);
  for (const m of op.body?.media ?? []) addUse(accepts, m.schema, refs, 'body');
  for (const r of op.responses) for (const m of r.media) addUse(returns, m.schema, refs, r.status);
  return { accepts, returns };
}

/** The graph part of the plan: entities and relationships for the API, operations, schemas and tags. */
export interface GraphPlan {
  entities: RawEntityInput[];
  relationships: RawRelationshipInput[];
}

/** The relationship types buildGraph writes (a re-import replaces these, and leaves relationships users added). */
export const SPEC_RELATIONSHIP_TYPES = ['EXPOSES', 'ACCEPTS', 'RETURNS', 'REFERENCES', 'TAGGED'];

function schemaEntity(
  schemaName: string,
  schema: unknown,
  refs: SpecRefs,
  ids: SpecIds,
  specId: string,
): RawEntityInput {
  const s = asJson(schema) ?? {};
  const fields = Object.keys(asJson(s.properties) ?? {});
  return {
    id: ids.schema(schemaName),
    type: 'Schema',
    name: name(schemaName),
    aliases: aliases(schemaName, [asString(s.title)]),
    description: description(asString(s.description)),
    properties: {
      specId,
      kind: oneLine(schemaLabel({ ...s, description: undefined }, refs), 300),
      fields: fields.slice(0, MAX_LISTED_FIELDS),
      required: asArray(s.required)
        .filter((r) => typeof r === 'string')
        .slice(0, MAX_LISTED_FIELDS),
    },
    linkByName: false,
  };
}

function operationEntity(op: OperationInfo, opId: string, specId: string, documentId: string): RawEntityInput {
  const head = op.kind === 'webhook' ? `webhook ${op.path} ${op.method}` : `${op.method} ${op.path}`;
  const entityName = op.operationId ?? head;
  return {
    id: opId,
    type: 'Operation',
    name: name(entityName),
    aliases: aliases(entityName, [head, op.operationId, op.summary]),
    description: description(op.summary, op.description),
    properties: {
      specId,
      kind: op.kind,
      method: op.method,
      path: op.path,
      operationId: op.operationId ?? null,
      deprecated: op.deprecated,
      tags: op.tags,
      documentId,
    },
  };
}

/** Builds entities Api, Operation, Schema, Tag and edges EXPOSES, ACCEPTS, RETURNS, REFERENCES, TAGGED. */
export function buildGraph(
  spec: LoadedSpec,
  refs: SpecRefs,
  ids: SpecIds,
  ops: { op: OperationInfo; schemas: OperationSchemas; documentId: string }[],
  tags: { name: string; description?: string }[],
  specId: string,
  title: string,
): GraphPlan {
  const entities: RawEntityInput[] = [];
  const relationships: RawRelationshipInput[] = [];
  const seenEdges = new Set<string>();
  const edge = (fromId: string, type: string, toId: string, properties?: Record<string, unknown>): void => {
    const key = `${fromId}\u0000${type}\u0000${toId}`;
    if (seenEdges.has(key)) return;
    seenEdges.add(key);
    relationships.push({ fromId, type, toId, ...(properties ? { properties } : {}) });
  };
  const info = asJson(spec.document.info) ?? {};
  entities.push({
    id: ids.api,
    type: 'Api',
    name: name(title),
    aliases: aliases(title, [spec.title, specId]),
    description: description(asString(info.summary), asString(info.description)),
    properties: {
      specId,
      specVersion: spec.specVersion,
      openapiVersion: spec.declaredVersion,
      apiVersion: spec.apiVersion,
      source: spec.sourceUrl,
      operationCount: ops.length,
      documentId: ids.overviewDocument,
    },
  });
  for (const t of tags) {
    // Tags and schemas have generic names ("pets", "Error"): they link to their spec's documents explicitly, never by
    // name, or every note mentioning pets or an error (in any spec) would link to them.
    entities.push({
      id: ids.tag(t.name),
      type: 'Tag',
      name: name(t.name),
      aliases: [],
      description: description(t.description),
      properties: { specId },
      linkByName: false,
    });
  }
  for (const [schemaName, schema] of refs.namedSchemas()) {
    entities.push(schemaEntity(schemaName, schema, refs, ids, specId));
    for (const target of directSchemaRefs(schema, refs)) edge(ids.schema(schemaName), 'REFERENCES', ids.schema(target));
  }
  for (const { op, schemas, documentId } of ops) {
    const opId = ids.operation(op.key);
    entities.push(operationEntity(op, opId, specId, documentId));
    edge(ids.api, 'EXPOSES', opId);
    for (const [schemaName, where] of schemas.accepts)
      edge(opId, 'ACCEPTS', ids.schema(schemaName), { in: [...where] });
    for (const [schemaName, statuses] of schemas.returns)
      edge(opId, 'RETURNS', ids.schema(schemaName), { statuses: [...statuses] });
    for (const t of op.tags) edge(opId, 'TAGGED', ids.tag(t));
  }
  return { entities, relationships };
}
