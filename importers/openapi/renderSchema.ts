import { followSchema, type SpecRefs } from './SpecRefs.js';
import { asArray, asJson, asString, type Json } from './types.js';

/** Default nesting depth of rendered schema fields. */
export const DEFAULT_MAX_SCHEMA_DEPTH = 4;

/** State shared by every schema rendered into one document. */
export interface SchemaRenderContext {
  refs: SpecRefs;
  maxDepth: number;
  /** Named schemas whose fields this document already lists; later uses say "see above". */
  expanded: Set<string>;
  /** Lines this document may still add; when it runs out the rest is left out and `truncated` set. */
  budget: { lines: number; truncated: boolean };
}

const MAX_ENUM = 25;
const MAX_TEXT = 400;

/** One line of prose: whitespace collapsed, cut at a readable length. */
export function oneLine(text: string | undefined, max = MAX_TEXT): string {
  const t = (text ?? '').replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1).trimEnd()}…` : t;
}

function literal(value: unknown): string {
  const s = typeof value === 'string' ? value : JSON.stringify(value);
  return `\`${oneLine(s ?? 'null', 80).replace(/`/g, "'")}\``;
}

function typesOf(s: Json): string[] {
  const t = s.type;
  const types = Array.isArray(t)
    ? t.filter((x): x is string => typeof x === 'string')
    : typeof t === 'string'
      ? [t]
      : [];
  if (types.length === 0) {
    if (asJson(s.properties) || asJson(s.additionalProperties)) types.push('object');
    else if (s.items !== undefined) types.push('array');
  }
  if (s.nullable === true && !types.includes('null')) types.push('null');
  return types;
}

/** True when a schema has fields worth listing (object members, object items, composition). */
function isStructured(s: Json | undefined, refs: SpecRefs, hops = 0): boolean {
  if (!s || hops > 8) return false;
  if (asJson(s.properties) && Object.keys(asJson(s.properties)!).length > 0) return true;
  if (asJson(s.additionalProperties)) return true;
  // Composition is worth listing only when some alternative has fields (`anyOf: [string, integer]` is not).
  const parts = [...asArray(s.allOf), ...asArray(s.oneOf), ...asArray(s.anyOf)];
  if (parts.some((p) => isStructured(followSchema(p, refs).target, refs, hops + 1))) return true;
  if (s.items !== undefined) return isStructured(followSchema(s.items, refs).target, refs, hops + 1);
  return false;
}

/** A short type description: `string, date-time`, `array of Pet`, `one of: Cat | Dog`, `Pet`. */
export function schemaLabel(schema: unknown, refs: SpecRefs, hops = 0): string {
  if (schema === true || schema === undefined || schema === null) return 'any';
  if (schema === false) return 'nothing';
  const hop = followSchema(schema, refs);
  const s = hop.target;
  if (!s) return hop.pointer ? `unresolved ${hop.pointer}` : 'any';
  if (hop.name) {
    // A named object is known by its name; a named array or primitive also says what it is.
    return isStructured(s, refs) && s.items === undefined
      ? hop.name
      : hops < 3
        ? `${hop.name}: ${schemaLabel(s, refs, hops + 1)}`
        : hop.name;
  }
  if (hops > 6) return 'object';
  const join = (key: string, sep: string) =>
    asArray(s[key])
      .map((x) => schemaLabel(x, refs, hops + 1))
      .join(sep);
  if (asArray(s.allOf).length > 0) return `all of: ${join('allOf', ' & ')}`;
  if (asArray(s.oneOf).length > 0) return `one of: ${join('oneOf', ' | ')}`;
  if (asArray(s.anyOf).length > 0) return `any of: ${join('anyOf', ' | ')}`;
  if (s.const !== undefined) return `const ${literal(s.const)}`;
  const types = typesOf(s);
  const format = asString(s.format);
  const parts = types.map((t) => {
    if (t === 'array') return `array of ${schemaLabel(s.items, refs, hops + 1)}`;
    if (t === 'object' && asJson(s.additionalProperties) && !asJson(s.properties))
      return `map of ${schemaLabel(s.additionalProperties, refs, hops + 1)}`;
    return t === 'null' || !format ? t : `${t}, ${format}`;
  });
  return parts.length > 0 ? parts.join(' | ') : 'any';
}

/** Details after a field's colon: description, enum, default, constraints. */
export function schemaDetails(schema: unknown, refs: SpecRefs, description?: string): string {
  const own = asJson(schema);
  const hop = followSchema(schema, refs);
  const s = hop.target ?? {};
  const out: string[] = [];
  // A named object's own description belongs to its Schema entity; a primitive's says what the value is.
  const inherited = hop.name && isStructured(s, refs) ? undefined : asString(s.description);
  const text = oneLine(description ?? asString(own?.description) ?? inherited);
  if (text) out.push(text.replace(/[.]$/, '') + '.');
  const values = asArray(s.enum ?? asJson(s.items)?.enum);
  if (values.length > 0)
    out.push(
      `Enum: ${values.slice(0, MAX_ENUM).map(literal).join(', ')}${values.length > MAX_ENUM ? `, … (${values.length} values)` : ''}.`,
    );
  if (s.default !== undefined) out.push(`Default: ${literal(s.default)}.`);
  const limits: string[] = [];
  for (const [key, word] of [
    ['minimum', 'min'],
    ['maximum', 'max'],
    ['minLength', 'min length'],
    ['maxLength', 'max length'],
    ['minItems', 'min items'],
    ['maxItems', 'max items'],
  ] as const) {
    if (typeof s[key] === 'number') limits.push(`${word} ${String(s[key])}`);
  }
  if (typeof s.pattern === 'string') limits.push(`pattern ${literal(s.pattern)}`);
  if (limits.length > 0) out.push(`Constraints: ${limits.join(', ')}.`);
  return out.join(' ');
}

function flags(schema: unknown, refs: SpecRefs, required: boolean): string[] {
  const own = asJson(schema) ?? {};
  const s = followSchema(schema, refs).target ?? {};
  const out: string[] = [];
  if (required) out.push('required');
  if (own.deprecated === true || s.deprecated === true) out.push('deprecated');
  if (own.readOnly === true || s.readOnly === true) out.push('read-only');
  if (own.writeOnly === true || s.writeOnly === true) out.push('write-only');
  return out;
}

function emit(ctx: SchemaRenderContext, out: string[], indent: number, text: string): boolean {
  if (ctx.budget.lines <= 0) {
    ctx.budget.truncated = true;
    return false;
  }
  ctx.budget.lines--;
  out.push(`${'  '.repeat(indent)}- ${text}`);
  return true;
}

/** What to do with a schema's members: list them, or say why not. */
type Expansion = { marker: string } | { target: Json; stack: string[] } | undefined;

function plan(schema: unknown, ctx: SchemaRenderContext, depth: number, stack: string[]): Expansion {
  const hop = followSchema(schema, ctx.refs);
  if (!hop.target || !isStructured(hop.target, ctx.refs)) return undefined;
  const key = hop.name ?? hop.pointer;
  if (key !== undefined && stack.includes(key)) return { marker: `(circular: ${hop.name ?? key})` };
  if (hop.name && ctx.expanded.has(hop.name)) return { marker: `(fields of ${hop.name}: see above)` };
  if (depth > ctx.maxDepth) return { marker: '(nested fields omitted: depth limit)' };
  if (hop.name) ctx.expanded.add(hop.name);
  const nextStack = key === undefined ? stack : [...stack, key];
  const t = hop.target;
  // A plain array's members are its items': decide on those, so a cycle shows on the field's own line.
  if (
    t.items !== undefined &&
    !asJson(t.properties) &&
    asArray(t.allOf).length + asArray(t.oneOf).length + asArray(t.anyOf).length === 0
  ) {
    return plan(t.items, ctx, depth, nextStack);
  }
  return { target: t, stack: nextStack };
}

/** A field line plus its members, indented beneath it. */
function field(
  out: string[],
  ctx: SchemaRenderContext,
  indent: number,
  depth: number,
  stack: string[],
  name: string,
  schema: unknown,
  required: boolean,
  description?: string,
): void {
  const inParens = [schemaLabel(schema, ctx.refs), ...flags(schema, ctx.refs, required)].join(', ');
  const details = schemaDetails(schema, ctx.refs, description);
  const next = plan(schema, ctx, depth + 1, stack);
  const marker = next && 'marker' in next ? ` ${next.marker}` : '';
  if (!emit(ctx, out, indent, `${name} (${inParens})${marker}${details ? `: ${details}` : ''}`)) return;
  if (next && 'target' in next) members(out, ctx, next.target, indent + 1, depth + 1, next.stack);
}

/** Lists the members of a concrete (already dereferenced) schema. */
function members(
  out: string[],
  ctx: SchemaRenderContext,
  s: Json,
  indent: number,
  depth: number,
  stack: string[],
): void {
  const required = new Set(asArray(s.required).filter((r): r is string => typeof r === 'string'));
  for (const [name, prop] of Object.entries(asJson(s.properties) ?? {})) {
    if (ctx.budget.truncated) return;
    field(out, ctx, indent, depth, stack, name, prop, required.has(name));
  }
  const extra = asJson(s.additionalProperties);
  if (extra) field(out, ctx, indent, depth, stack, '[any key]', extra, false);
  // Array members are the item's members; allOf parts are merged into one list.
  if (s.items !== undefined) nested(out, ctx, s.items, indent, depth, stack);
  for (const part of asArray(s.allOf)) nested(out, ctx, part, indent, depth, stack);
  for (const key of ['oneOf', 'anyOf'] as const) {
    asArray(s[key]).forEach((alt, i) => {
      if (ctx.budget.truncated) return;
      const next = plan(alt, ctx, depth + 1, stack);
      const marker = next && 'marker' in next ? ` ${next.marker}` : '';
      if (
        !emit(
          ctx,
          out,
          indent,
          `${key === 'oneOf' ? 'one of' : 'any of'} #${i + 1}: ${schemaLabel(alt, ctx.refs)}${marker}`,
        )
      )
        return;
      if (next && 'target' in next) members(out, ctx, next.target, indent + 1, depth + 1, next.stack);
    });
  }
  const disc = asJson(s.discriminator);
  const discName = asString(disc?.propertyName) ?? (typeof s.discriminator === 'string' ? s.discriminator : undefined);
  if (discName) {
    const mapping = Object.entries(asJson(disc?.mapping) ?? {}).map(
      ([k, v]) => `${k} → ${String(v).split('/').pop() ?? ''}`,
    );
    emit(ctx, out, indent, `discriminator: ${discName}${mapping.length > 0 ? ` (${mapping.join(', ')})` : ''}`);
  }
}

/** Members of a schema reached without a field line of its own (items, allOf parts, top level). */
function nested(
  out: string[],
  ctx: SchemaRenderContext,
  schema: unknown,
  indent: number,
  depth: number,
  stack: string[],
): void {
  const next = plan(schema, ctx, depth, stack);
  if (!next) return;
  if ('marker' in next) emit(ctx, out, indent, next.marker);
  else members(out, ctx, next.target, indent, depth, next.stack);
}

/** The fields of a schema as an indented markdown list (`- name (type, required): description`). */
export function renderSchemaFields(schema: unknown, ctx: SchemaRenderContext): string[] {
  const out: string[] = [];
  nested(out, ctx, schema, 0, 1, []);
  return out;
}
