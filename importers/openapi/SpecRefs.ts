import { asJson, isJson, type Json, type SpecVersion } from './types.js';

const MAX_HOPS = 32;

function decodeToken(token: string): string {
  let t = token;
  try {
    t = decodeURIComponent(token);
  } catch {
    // Not percent-encoded after all; use it as written.
  }
  return t.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Resolves the internal `$ref`s of a bundled spec and knows its named schemas. */
export class SpecRefs {
  readonly doc: Json;
  readonly specVersion: SpecVersion;
  private readonly schemas: Json;

  constructor(doc: Json, specVersion: SpecVersion) {
    this.doc = doc;
    this.specVersion = specVersion;
    this.schemas = (specVersion === '2.0' ? asJson(doc.definitions) : asJson(asJson(doc.components)?.schemas)) ?? {};
  }

  /** Named schemas (`components.schemas` or `definitions`) in document order. */
  namedSchemas(): [string, unknown][] {
    return Object.entries(this.schemas);
  }

  /** The value a local JSON pointer (`#/a/b`) points at, or undefined. */
  resolve(ref: string): unknown {
    if (!ref.startsWith('#')) return undefined;
    const path = ref.slice(1);
    if (path === '' || path === '/') return this.doc;
    if (!path.startsWith('/')) return undefined;
    let node: unknown = this.doc;
    for (const raw of path.slice(1).split('/')) {
      const token = decodeToken(raw);
      if (Array.isArray(node)) node = node[Number(token)];
      else if (isJson(node) && Object.hasOwn(node, token)) node = node[token];
      else return undefined;
    }
    return node;
  }

  /** The name of the named schema a `$ref` points at (exactly, not into it), or undefined. */
  schemaNameOf(ref: string): string | undefined {
    if (!ref.startsWith('#/')) return undefined;
    const tokens = ref.slice(2).split('/').map(decodeToken);
    const name =
      this.specVersion === '2.0'
        ? tokens.length === 2 && tokens[0] === 'definitions'
          ? tokens[1]
          : undefined
        : tokens.length === 3 && tokens[0] === 'components' && tokens[1] === 'schemas'
          ? tokens[2]
          : undefined;
    return name !== undefined && Object.hasOwn(this.schemas, name) ? name : undefined;
  }

  /** Follows `$ref`s of a non-schema object (parameter, response, request body, path item, callback, link). */
  deref(value: unknown): Json | undefined {
    let node = value;
    for (let hop = 0; hop < MAX_HOPS; hop++) {
      const obj = asJson(node);
      if (!obj) return undefined;
      if (typeof obj.$ref !== 'string') return obj;
      node = this.resolve(obj.$ref);
    }
    return undefined;
  }
}

/** Where a schema `$ref` leads: the named schema it names (if any), the pointer, and the target. */
export interface SchemaHop {
  name?: string;
  pointer?: string;
  target: Json | undefined;
}

/** Follows a schema's `$ref` chain to a concrete schema, noting the first named schema on the way. */
export function followSchema(schema: unknown, refs: SpecRefs): SchemaHop {
  let node = schema;
  let name: string | undefined;
  let pointer: string | undefined;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const obj = asJson(node);
    if (!obj || typeof obj.$ref !== 'string')
      return { ...(name ? { name } : {}), ...(pointer ? { pointer } : {}), target: obj };
    pointer ??= obj.$ref;
    name ??= refs.schemaNameOf(obj.$ref);
    node = refs.resolve(obj.$ref);
  }
  return { ...(name ? { name } : {}), ...(pointer ? { pointer } : {}), target: undefined };
}

/**
 * Named schemas a schema uses directly: walks the inline structure (properties, items, allOf, …),
 * records each `$ref` to a named schema and does not descend into it. Unnamed `$ref`s are followed.
 */
export function directSchemaRefs(schema: unknown, refs: SpecRefs, out: Set<string> = new Set()): Set<string> {
  const seenPointers = new Set<string>();
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push(node[i]);
      continue;
    }
    const obj = asJson(node);
    if (!obj) continue;
    if (typeof obj.$ref === 'string') {
      const name = refs.schemaNameOf(obj.$ref);
      if (name !== undefined) out.add(name);
      else if (!seenPointers.has(obj.$ref)) {
        seenPointers.add(obj.$ref);
        stack.push(refs.resolve(obj.$ref));
      }
      continue;
    }
    // Values of `properties` etc. are schemas; `example(s)`, `enum`, `default` are data, not schemas.
    const values = Object.entries(obj)
      .filter(
        ([k]) =>
          k !== 'example' && k !== 'examples' && k !== 'enum' && k !== 'default' && k !== 'const' && k !== 'x-examples',
      )
      .map(([, v]) => v);
    for (let i = values.length - 1; i >= 0; i--) stack.push(values[i]);
  }
  return out;
}
