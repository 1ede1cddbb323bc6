import type { SpecRefs } from './SpecRefs.js';
import { asArray, asJson, asString, type Json } from './types.js';

/** HTTP methods an OpenAPI path item may hold, in the order documents list them. */
export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** A parameter with Swagger 2.0 inline types turned into a `schema`. */
export interface ParamInfo {
  name: string;
  in: string;
  required: boolean;
  deprecated: boolean;
  description?: string;
  schema: unknown;
}

/** One media type (or several sharing a schema) of a body. */
export interface MediaInfo {
  mediaTypes: string[];
  schema: unknown;
}

/** A request body, from 3.x `requestBody` or 2.0 `body`/`formData` parameters. */
export interface BodyInfo {
  required: boolean;
  description?: string;
  media: MediaInfo[];
}

/** A link from a response to another operation (3.x). */
export interface LinkInfo {
  name: string;
  target?: string;
  description?: string;
  parameters: [string, string][];
}

/** One response of an operation. */
export interface ResponseInfo {
  status: string;
  description?: string;
  media: MediaInfo[];
  headers: { name: string; description?: string; schema: unknown }[];
  links: LinkInfo[];
}

/** An operation or webhook, independent of the spec version. */
export interface OperationInfo {
  /** `GET /pets/{id}` or `webhook:newPet POST`: the part of its ids after the spec id. */
  key: string;
  kind: 'operation' | 'webhook';
  method: string;
  /** Path template, or the webhook's name. */
  path: string;
  operationId?: string;
  summary?: string;
  description?: string;
  deprecated: boolean;
  tags: string[];
  /** Effective security requirements (operation's, else the spec's); undefined when none are declared. */
  security?: Json[];
  parameters: ParamInfo[];
  body?: BodyInfo;
  responses: ResponseInfo[];
  callbacks: { name: string; expression: string; operations: OperationInfo[] }[];
  /** The raw operation object, for anything the normalised form leaves out. */
  raw: Json;
}

/** Groups media types whose schemas are identical, so a schema is rendered once. */
function groupMedia(entries: [string, unknown][]): MediaInfo[] {
  const groups = new Map<string, MediaInfo>();
  for (const [mediaType, schema] of entries) {
    const key = JSON.stringify(schema ?? null);
    const group = groups.get(key);
    if (group) group.mediaTypes.push(mediaType);
    else groups.set(key, { mediaTypes: [mediaType], schema });
  }
  return [...groups.values()];
}

function contentMedia(content: unknown): MediaInfo[] {
  const c = asJson(content);
  if (!c) return [];
  return groupMedia(Object.entries(c).map(([mt, media]) => [mt, asJson(media)?.schema]));
}

/** Swagger 2.0 keeps a parameter's type inline; collect it into a schema so one renderer fits all. */
function swagger2ParamSchema(p: Json): Json {
  const schema: Json = {};
  for (const k of [
    'type',
    'format',
    'items',
    'enum',
    'default',
    'minimum',
    'maximum',
    'minLength',
    'maxLength',
    'pattern',
    'minItems',
    'maxItems',
  ]) {
    if (p[k] !== undefined) schema[k] = p[k];
  }
  return schema;
}

function toParam(p: Json, v2: boolean): ParamInfo {
  const description = asString(p.description);
  // A 3.x parameter has either `schema` or a one-entry `content` map.
  const contentSchema = Object.values(asJson(p.content) ?? {}).map((m) => asJson(m)?.schema)[0];
  return {
    name: asString(p.name) ?? '(unnamed)',
    in: asString(p.in) ?? 'query',
    required: p.required === true,
    deprecated: p.deprecated === true,
    ...(description ? { description } : {}),
    schema: v2 ? swagger2ParamSchema(p) : (p.schema ?? contentSchema),
  };
}

/** Path-level parameters apply unless the operation redefines the same name and location. */
function mergedParams(pathItem: Json, op: Json, refs: SpecRefs): Json[] {
  const own = asArray(op.parameters)
    .map((p) => refs.deref(p))
    .filter((p): p is Json => p !== undefined);
  const ownKeys = new Set(own.map((p) => `${String(p.in)}:${String(p.name)}`));
  const inherited = asArray(pathItem.parameters)
    .map((p) => refs.deref(p))
    .filter((p): p is Json => p !== undefined && !ownKeys.has(`${String(p.in)}:${String(p.name)}`));
  return [...inherited, ...own];
}

function swagger2Body(params: Json[], op: Json, doc: Json): BodyInfo | undefined {
  const consumes = asArray(op.consumes ?? doc.consumes).filter((c): c is string => typeof c === 'string');
  const body = params.find((p) => p.in === 'body');
  if (body) {
    const description = asString(body.description);
    return {
      required: body.required === true,
      ...(description ? { description } : {}),
      media: [{ mediaTypes: consumes.length > 0 ? consumes : ['application/json'], schema: body.schema }],
    };
  }
  const form = params.filter((p) => p.in === 'formData');
  if (form.length === 0) return undefined;
  const properties: Json = {};
  for (const p of form)
    properties[asString(p.name) ?? '(unnamed)'] = {
      ...swagger2ParamSchema(p),
      ...(asString(p.description) ? { description: asString(p.description) } : {}),
    };
  const required = form.filter((p) => p.required === true).map((p) => asString(p.name) ?? '(unnamed)');
  const fallback = form.some((p) => p.type === 'file') ? 'multipart/form-data' : 'application/x-www-form-urlencoded';
  return {
    required: required.length > 0,
    media: [
      {
        mediaTypes: consumes.length > 0 ? consumes : [fallback],
        schema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}) },
      },
    ],
  };
}

function responses(op: Json, doc: Json, refs: SpecRefs, v2: boolean): ResponseInfo[] {
  const produces = asArray(op.produces ?? doc.produces).filter((c): c is string => typeof c === 'string');
  return Object.entries(asJson(op.responses) ?? {})
    .filter(([status]) => !status.startsWith('x-'))
    .map(([status, value]) => {
      const r = refs.deref(value) ?? {};
      const description = asString(r.description);
      const media = v2
        ? r.schema !== undefined
          ? [{ mediaTypes: produces.length > 0 ? produces : ['application/json'], schema: r.schema }]
          : []
        : contentMedia(r.content);
      const headers = Object.entries(asJson(r.headers) ?? {}).map(([name, h]) => {
        const header = refs.deref(h) ?? {};
        const hd = asString(header.description);
        return { name, ...(hd ? { description: hd } : {}), schema: v2 ? swagger2ParamSchema(header) : header.schema };
      });
      const links = Object.entries(asJson(r.links) ?? {}).map(([name, l]) => {
        const link = refs.deref(l) ?? {};
        const target = asString(link.operationId) ?? asString(link.operationRef);
        const ld = asString(link.description);
        const parameters = Object.entries(asJson(link.parameters) ?? {}).map(([k, v]): [string, string] => [
          k,
          typeof v === 'string' ? v : JSON.stringify(v),
        ]);
        return { name, ...(target ? { target } : {}), ...(ld ? { description: ld } : {}), parameters };
      });
      return { status, ...(description ? { description } : {}), media, headers, links };
    });
}

function requestBody(op: Json, refs: SpecRefs): BodyInfo | undefined {
  const rb = refs.deref(op.requestBody);
  if (!rb) return undefined;
  const description = asString(rb.description);
  return { required: rb.required === true, ...(description ? { description } : {}), media: contentMedia(rb.content) };
}

function buildOperation(
  kind: OperationInfo['kind'],
  key: string,
  method: string,
  path: string,
  pathItem: Json,
  op: Json,
  refs: SpecRefs,
  depth: number,
): OperationInfo {
  const doc = refs.doc;
  const v2 = refs.specVersion === '2.0';
  const params = mergedParams(pathItem, op, refs);
  const operationId = asString(op.operationId);
  const summary = asString(op.summary) ?? asString(pathItem.summary);
  const description = asString(op.description) ?? asString(pathItem.description);
  const security = Array.isArray(op.security) ? op.security : Array.isArray(doc.security) ? doc.security : undefined;
  const body = v2 ? swagger2Body(params, op, doc) : requestBody(op, refs);
  const callbacks =
    depth > 0
      ? []
      : Object.entries(asJson(op.callbacks) ?? {}).flatMap(([name, cb]) =>
          Object.entries(refs.deref(cb) ?? {}).map(([expression, item]) => ({
            name,
            expression,
            operations: pathItemOperations(
              'operation',
              expression,
              refs.deref(item) ?? {},
              refs,
              depth + 1,
              (m) => `${m} ${expression}`,
            ),
          })),
        );
  return {
    key,
    kind,
    method: method.toUpperCase(),
    path,
    ...(operationId ? { operationId } : {}),
    ...(summary ? { summary } : {}),
    ...(description ? { description } : {}),
    deprecated: op.deprecated === true,
    tags: asArray(op.tags)
      .map((t) => asString(t))
      .filter((t): t is string => t !== undefined),
    ...(security ? { security: security.filter((s): s is Json => asJson(s) !== undefined) } : {}),
    parameters: params.filter((p) => !v2 || (p.in !== 'body' && p.in !== 'formData')).map((p) => toParam(p, v2)),
    ...(body ? { body } : {}),
    responses: responses(op, doc, refs, v2),
    callbacks,
    raw: op,
  };
}

function pathItemOperations(
  kind: OperationInfo['kind'],
  path: string,
  pathItem: Json,
  refs: SpecRefs,
  depth: number,
  keyOf: (method: string) => string,
): OperationInfo[] {
  return METHODS.filter((m) => asJson(pathItem[m]) !== undefined).map((m) =>
    buildOperation(kind, keyOf(m.toUpperCase()), m, path, pathItem, asJson(pathItem[m])!, refs, depth),
  );
}

/** Every operation under `paths`, then every webhook (3.1), in document order. */
export function listOperations(refs: SpecRefs): OperationInfo[] {
  const doc = refs.doc;
  const ops: OperationInfo[] = [];
  for (const [path, item] of Object.entries(asJson(doc.paths) ?? {})) {
    if (path.startsWith('x-')) continue;
    ops.push(...pathItemOperations('operation', path, refs.deref(item) ?? {}, refs, 0, (m) => `${m} ${path}`));
  }
  for (const [name, item] of Object.entries(asJson(doc.webhooks) ?? {})) {
    ops.push(...pathItemOperations('webhook', name, refs.deref(item) ?? {}, refs, 0, (m) => `webhook:${name} ${m}`));
  }
  return ops;
}
