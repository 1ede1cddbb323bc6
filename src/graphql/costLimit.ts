import type { ApolloServerPlugin } from '@apollo/server';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import {
  GraphQLError,
  Kind,
  TypeInfo,
  getNamedType,
  validate,
  visit,
  visitWithTypeInfo,
  type ArgumentNode,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValueNode,
} from 'graphql';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './inputs.js';
import type { GraphQLContext } from './context.js';
import { tooComplex } from './tooComplex.js';

/** Arguments that say how many items a field returns; armor multiplies a field's cost by them. */
const SIZE_ARGUMENTS = new Set(['first', 'last']);

/**
 * The operation as armor's cost rule should see it: `first`/`last` given by variables become the literals they stand
 * for, every size is cut to the MAX_PAGE_SIZE a field can return, and an omitted `first` becomes the page size the
 * field will use (its schema default, or DEFAULT_PAGE_SIZE on a connection). Armor only multiplies by literal sizes,
 * so `entities(first: $n)` otherwise cost as if it returned one item.
 */
export function withSizesInlined(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Readonly<Record<string, unknown>>,
): DocumentNode {
  const defaults = new Map<string, unknown>();
  for (const def of document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const v of def.variableDefinitions ?? [])
      if (v.defaultValue?.kind === Kind.INT) defaults.set(v.variable.name.value, Number(v.defaultValue.value));
  }
  /** The size an argument value asks for, or undefined when it asks none (null, or a variable not given). */
  const asked = (value: ValueNode): number | undefined => {
    const n =
      value.kind === Kind.INT
        ? Number(value.value)
        : value.kind === Kind.VARIABLE
          ? Object.prototype.hasOwnProperty.call(variables, value.name.value)
            ? variables[value.name.value]
            : defaults.get(value.name.value)
          : undefined;
    return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
  };
  const typeInfo = new TypeInfo(schema);
  return visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field: {
        enter(node) {
          const field = typeInfo.getFieldDef();
          const sized = node.arguments?.filter((a) => SIZE_ARGUMENTS.has(a.name.value)) ?? [];
          const first = field?.args.find((a) => a.name === 'first');
          if (!field || (!first && sized.length === 0)) return undefined;
          const isConnection = getNamedType(field.type).name.endsWith('Connection');
          const fallback =
            typeof first?.defaultValue === 'number' ? first.defaultValue : isConnection ? DEFAULT_PAGE_SIZE : undefined;
          const given = sized.map((a) => asked(a.value)).find((n) => n !== undefined);
          // A connection returns at most MAX_PAGE_SIZE items whatever `first` asks (and Entity.documents refuses more).
          const size = given !== undefined ? Math.min(given, MAX_PAGE_SIZE) : fallback;
          const others = (node.arguments ?? []).filter((a) => !SIZE_ARGUMENTS.has(a.name.value));
          const sizeArgument: ArgumentNode[] =
            size === undefined
              ? []
              : [
                  {
                    kind: Kind.ARGUMENT,
                    name: { kind: Kind.NAME, value: 'first' },
                    value: { kind: Kind.INT, value: String(size) },
                  },
                ];
          return { ...node, arguments: [...others, ...sizeArgument] };
        },
      },
    }),
  );
}

/** Cost settings: armor's defaults, with the configured maximum. */
export interface CostOptions {
  maxCost: number;
}

/**
 * Armor's cost limit, applied once variables are known (armor's own rule runs at validation, before them): rejects an
 * operation whose estimated cost, with its sizes inlined, passes `maxCost`, with QUERY_TOO_COMPLEX and HTTP 400.
 */
export function costLimitPlugin(options: CostOptions): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, request, schema, operation }) {
          if (!operation) return;
          const found = estimatedCost(schema, document, request.variables ?? {}, operation, options.maxCost);
          if (found === undefined) return;
          const error = tooComplex('cost', options.maxCost, found);
          throw new GraphQLError(error.message, { originalError: error, extensions: { http: { status: 400 } } });
        },
      };
    },
  };
}

/** The operation's cost when it passes `maxCost`, else undefined. */
export function estimatedCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Readonly<Record<string, unknown>>,
  operation: OperationDefinitionNode,
  maxCost: number,
): number | undefined {
  // Only the operation that runs (and the fragments) is costed, as armor costs each operation on its own.
  const single: DocumentNode = {
    ...document,
    definitions: document.definitions.filter((d) => d.kind !== Kind.OPERATION_DEFINITION || d === operation),
  };
  let found: number | undefined;
  const rule = costLimitRule({
    maxCost,
    ignoreIntrospection: true,
    propagateOnRejection: false,
    onReject: [
      (_ctx, err) => {
        const n = Number(/found (\d+(?:\.\d+)?)/.exec(err.message)?.[1]);
        found = Number.isFinite(n) ? Math.ceil(n) : maxCost + 1;
      },
    ],
  });
  validate(schema, withSizesInlined(schema, single, variables), [rule]);
  return found;
}
