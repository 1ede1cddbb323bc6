import fc from 'fast-check';
import {
  GraphQLNonNull,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';

/** One argument of a generated field: its value, and whether it travels inline or as a variable. */
export interface FuzzArg {
  name: string;
  type: GraphQLInputType;
  value: unknown;
  asVariable: boolean;
}

/** One selected field with its arguments and, for objects, its own selection. */
export interface FuzzSelection {
  field: string;
  args: FuzzArg[];
  sub: FuzzSelection[] | null;
}

/** A generated operation, kept as a tree so fast-check prints (and shrinks) it readably. */
export interface FuzzOperation {
  kind: 'query' | 'mutation';
  root: FuzzSelection[];
}

/** Values the generator draws from besides random ones: ids and cursors that exist, URLs that must stay blocked. */
export interface FuzzPools {
  ids: string[];
  cursors: string[];
  urls: string[];
  /** Root fields never generated (e.g. the one that turns authentication on). */
  skipRootFields: string[];
  /** Deepest selection; at this depth only scalar and enum fields are chosen. */
  maxDepth: number;
}

const INT32 = 2 ** 31 - 1;
/** Strings that broke (or could break) validation, SQL, JSON, tokenizers or the tag-expression parser. */
const EDGE_STRINGS = [
  '',
  ' ',
  '\t\n',
  'a',
  'x'.repeat(5_000),
  'ünïcödé ✓ 漢字 🚀 עברית',
  '\u0000',
  'a\u0000b',
  '\u200b\u200f\ufeff',
  '\ud800',
  'e\u0301',
  "'; DROP TABLE documents; --",
  '%',
  '_',
  '\\',
  '"',
  '{"a":1}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  'null',
  'undefined',
  '-1',
  '9'.repeat(40),
  'NaN',
  'a+b|c',
  '+|',
  '|',
  '+',
  '((',
  'a++b',
  'billing',
  'Ledger service',
  'DEPENDS_ON',
  'Service',
];
const WEIRD_IDS = [
  '',
  ' ',
  'x'.repeat(300),
  'doc:../../x',
  'a/b@c#d',
  '0',
  '-1',
  '999999999999999999999',
  '\u0000',
  'ünï',
  'svc:LEDGER',
];
const BAD_CURSORS = [
  '',
  'abc',
  '!!!',
  'A'.repeat(2_000),
  Buffer.from('{"x":1}').toString('base64'),
  Buffer.from('garbage').toString('base64url'),
  'eyJ9',
  '\u0000',
];
const DATES = [
  '2030-01-01T00:00:00.000Z',
  '1970-01-01T00:00:00Z',
  '2000-02-30T00:00:00Z',
  'not a date',
  '',
  '9999-12-31T23:59:59.999Z',
  '0000-01-01T00:00:00Z',
  '2026-13-45T00:00:00Z',
  '2099-06-01T12:00:00+02:00',
  '2001-01-01',
];

// Mostly small values, so range checks pass and the operation gets past validation into the real work.
const edgeInt = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 5 }) },
  { weight: 2, arbitrary: fc.constantFrom(-1, 10, 100, 1_000, 10_001, INT32, -INT32 - 1) },
  { weight: 1, arbitrary: fc.integer({ min: -INT32 - 1, max: INT32 }) },
);
/** Plausible values for arguments whose format is checked (tags, entity and relationship types), mixed with junk. */
const THEMED: Record<string, string[]> = {
  tags: ['billing', 'ops', 'a-b_c:d', 'billing+ops', 'billing|ops', 'Billing'],
  type: ['Service', 'Team', 'DEPENDS_ON', 'OWNS', 'service', 'lower_snake'],
  types: ['Service', 'Team', 'Api', 'nope'],
  relationshipTypes: ['DEPENDS_ON', 'OWNS', 'depends_on'],
};
const edgeFloat = fc.oneof(
  fc.constantFrom(0, 0.5, 1, -1, 1.5, 1e308, -1e308, 1e-300),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const anyString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...EDGE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
);
const jsonValue = fc.oneof(
  fc.constantFrom({}, [], 'x', 0, { nested: { deep: [1, 'two', null] } }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** A random value of `type`: null only where the type allows it; `name` picks themed pools (ids, cursors, URLs). */
function valueArb(type: GraphQLInputType, name: string, pools: FuzzPools, depth: number): fc.Arbitrary<unknown> {
  if (!isNonNullType(type))
    return fc.oneof(
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 4, arbitrary: valueArb(new GraphQLNonNull(type), name, pools, depth) },
    );
  const inner = type.ofType;
  if (isListType(inner)) {
    const item = valueArb(inner.ofType as GraphQLInputType, name, pools, depth + 1);
    return fc.oneof(
      { weight: 9, arbitrary: fc.array(item, { maxLength: 4 }) },
      { weight: 1, arbitrary: fc.array(item, { minLength: 30, maxLength: 60 }) },
    );
  }
  if (isEnumType(inner)) return fc.constantFrom(...inner.getValues().map((v) => v.name));
  if (isInputObjectType(inner)) {
    if (depth > 4) return fc.constant({});
    const fields = Object.values(inner.getFields());
    const record = Object.fromEntries(fields.map((f) => [f.name, valueArb(f.type, f.name, pools, depth + 1)]));
    return fc.record(record, { requiredKeys: fields.filter((f) => isNonNullType(f.type)).map((f) => f.name) });
  }
  switch (isScalarType(inner) ? inner.name : '') {
    case 'Int':
      return edgeInt;
    case 'Float':
      return edgeFloat;
    case 'Boolean':
      return fc.boolean();
    case 'ID':
      return fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...pools.ids) },
        { weight: 2, arbitrary: fc.constantFrom(...WEIRD_IDS) },
        { weight: 1, arbitrary: anyString },
      );
    case 'DateTime':
      return fc.oneof(fc.constant(new Date(Date.now() + 86_400_000).toISOString()), fc.constantFrom(...DATES));
    case 'JSON':
      return jsonValue;
    case 'String': {
      const themed = THEMED[name];
      if (name === 'url') return fc.constantFrom(...pools.urls);
      if (themed)
        return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...themed) }, { weight: 1, arbitrary: anyString });
      if (name === 'after') return fc.constantFrom(...pools.cursors, ...BAD_CURSORS);
      return anyString;
    }
    default:
      return anyString;
  }
}

function argsArb(args: readonly GraphQLArgument[], pools: FuzzPools): fc.Arbitrary<FuzzArg[]> {
  const each = args.map((a) => {
    const present = fc
      .record({ value: valueArb(a.type, a.name, pools, 0), asVariable: fc.boolean() })
      .map((v) => [{ name: a.name, type: a.type, ...v }]);
    // Optional arguments are sometimes left out (their defaults apply).
    return isNonNullType(a.type) ? present : fc.oneof(fc.constant([] as FuzzArg[]), present);
  });
  return fc.tuple(...each).map((parts) => parts.flat());
}

function selectionArb(type: GraphQLObjectType, pools: FuzzPools, depth: number): fc.Arbitrary<FuzzSelection[]> {
  const fields = Object.values(type.getFields()).filter(
    (f) => depth < pools.maxDepth || isLeafType(getNamedType(f.type)),
  );
  if (fields.length === 0) return fc.constant([{ field: '__typename', args: [], sub: null }]);
  return fc
    .uniqueArray(fc.constantFrom(...fields), { minLength: 1, maxLength: 4, selector: (f) => f.name })
    .chain((chosen) => fc.tuple(...chosen.map((f) => fieldArb(f, pools, depth))));
}

function fieldArb(field: GraphQLField<unknown, unknown>, pools: FuzzPools, depth: number): fc.Arbitrary<FuzzSelection> {
  const named = getNamedType(field.type);
  const sub = isObjectType(named) ? selectionArb(named, pools, depth + 1) : fc.constant(null);
  return fc.record({ field: fc.constant(field.name), args: argsArb(field.args, pools), sub });
}

/** Random valid operations over `schema`: one or two root fields of Query or Mutation, bounded selections. */
export function operationArb(schema: GraphQLSchema, pools: FuzzPools): fc.Arbitrary<FuzzOperation> {
  const roots = (kind: 'query' | 'mutation', type: GraphQLObjectType | null | undefined) => {
    const fields = Object.values(type?.getFields() ?? {}).filter((f) => !pools.skipRootFields.includes(f.name));
    return fc
      .uniqueArray(fc.constantFrom(...fields), { minLength: 1, maxLength: 2, selector: (f) => f.name })
      .chain((chosen) => fc.tuple(...chosen.map((f) => fieldArb(f, pools, 1))))
      .map((root) => ({ kind, root }));
  };
  return fc.oneof(roots('query', schema.getQueryType()), roots('mutation', schema.getMutationType()));
}

/** Prints a value as a GraphQL literal of `type`. */
function literal(value: unknown, type: GraphQLInputType): string {
  if (value === null) return 'null';
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner))
    return `[${(value as unknown[]).map((v) => literal(v, inner.ofType as GraphQLInputType)).join(', ')}]`;
  if (isEnumType(inner)) return String(value);
  if (isInputObjectType(inner)) {
    const fields = inner.getFields();
    return `{${Object.entries(value as object)
      .map(([k, v]) => `${k}: ${literal(v, fields[k]!.type)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value);
}

/** True when a value cannot be written inline: JSON scalars, and strings with lone surrogates (invalid in a document). */
function needsVariable(value: unknown, type: GraphQLInputType): boolean {
  if (value === null) return false;
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return (value as unknown[]).some((v) => needsVariable(v, inner.ofType as GraphQLInputType));
  if (isInputObjectType(inner)) {
    const fields = inner.getFields();
    return Object.entries(value as object).some(([k, v]) => needsVariable(v, fields[k]!.type));
  }
  if (getNamedType(inner).name === 'JSON') return true;
  return typeof value === 'string' && /\p{Cs}/u.test(value);
}

/** Renders the operation as a document plus its variables. */
export function render(op: FuzzOperation): { query: string; variables: Record<string, unknown> } {
  const definitions: string[] = [];
  const variables: Record<string, unknown> = {};
  const selections = (list: FuzzSelection[]): string =>
    list
      .map((s) => {
        const args = s.args.map((a) => {
          if (!a.asVariable && !needsVariable(a.value, a.type)) return `${a.name}: ${literal(a.value, a.type)}`;
          const name = `v${definitions.length}`;
          definitions.push(`$${name}: ${String(a.type)}`);
          variables[name] = a.value;
          return `${a.name}: $${name}`;
        });
        return `${s.field}${args.length ? `(${args.join(', ')})` : ''}${s.sub ? ` { ${selections(s.sub)} }` : ''}`;
      })
      .join(' ');
  const body = selections(op.root);
  return { query: `${op.kind}${definitions.length ? `(${definitions.join(', ')})` : ''} { ${body} }`, variables };
}
