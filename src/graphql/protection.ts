import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { BREAK, GraphQLError, visit, type DocumentNode, type ValidationContext } from 'graphql';
import type { GraphqlLimits } from '../config.js';
import { AppError, ErrorCode } from '../errors.js';
import { costLimitPlugin } from './costLimit.js';
import { variableLimitsPlugin } from './variableLimits.js';
import { tooComplex, type LimitName } from './tooComplex.js';
import type { GraphQLContext } from './context.js';

// Armor reports "… exceeded, found N."; keep N and report our own error instead of armor's BAD_USER_INPUT.
function onReject(limit: LimitName, max: number) {
  return [
    (ctx: ValidationContext | null, err: GraphQLError) => {
      const found = Number(/found (\d+(?:\.\d+)?)/.exec(err.message)?.[1]);
      const error = tooComplex(limit, max, Number.isFinite(found) ? Math.ceil(found) : undefined);
      ctx?.reportError(new GraphQLError(error.message, { originalError: error }));
    },
  ];
}

/** graphql-armor's Apollo protections for the configured limits, plus the parser's token cap. */
export function armorProtection(limits: GraphqlLimits) {
  const armor = new ApolloArmor({
    maxDepth: {
      n: limits.maxDepth,
      ignoreIntrospection: true,
      propagateOnRejection: false,
      onReject: onReject('depth', limits.maxDepth),
    },
    // Costed by costLimitPlugin instead, once variables are known: armor's rule sees `first: $n` as one item.
    costLimit: { enabled: false },
    maxAliases: { n: limits.maxAliases, propagateOnRejection: false, onReject: onReject('aliases', limits.maxAliases) },
    maxDirectives: {
      n: limits.maxDirectives,
      propagateOnRejection: false,
      onReject: onReject('directives', limits.maxDirectives),
    },
    // Armor's token plugin throws from a parsing hook, which Apollo answers with HTTP 500; graphql-js's own
    // `maxTokens` parse option stops the lexer just the same and answers 400 (mapped by `tokenLimitError`).
    maxTokens: { enabled: false },
    // Suggestions are hidden by formatError: armor's Apollo wrapper leaves "?" behind and misses "Did you mean the
    // enum value …" forms.
    blockFieldSuggestion: { enabled: false },
  }).protect();
  // Armor's declarations resolve Apollo's CommonJS types; the plugins are the same objects under ESM.
  const plugins = [
    ...(armor.plugins as unknown as ApolloServerPlugin<GraphQLContext>[]),
    costLimitPlugin({ maxCost: limits.maxCost }),
    variableLimitsPlugin(),
  ];
  return { plugins, validationRules: armor.validationRules, parseOptions: { maxTokens: limits.maxTokens } };
}

// graphql-js 16 words it "more that N tokens"; accept the corrected spelling too.
const TOKEN_LIMIT = /Document contains more th(?:an|at) (\d+) tokens/;

/** The QUERY_TOO_COMPLEX error for graphql-js's token-limit parse error, or undefined for any other error. */
export function tokenLimitError(message: string): AppError | undefined {
  const max = TOKEN_LIMIT.exec(message)?.[1];
  return max === undefined ? undefined : tooComplex('tokens', Number(max), undefined);
}

/** True when the document selects `__schema` or `__type` anywhere (`__typename` is fine). */
export function usesIntrospection(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** FORBIDDEN when a principal below admin introspects the schema, else undefined. */
export function introspectionRefusal(document: DocumentNode, role: string): AppError | undefined {
  if (role === 'admin' || !usesIntrospection(document)) return undefined;
  return new AppError(ErrorCode.FORBIDDEN, 'Schema introspection (__schema, __type) needs the admin role.', {
    requiredRole: 'admin',
  });
}

/** Refuses schema introspection to every role but admin (the local principal is admin while auth is off). */
export function introspectionGuard(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, contextValue }) {
          const error = introspectionRefusal(document, contextValue.principal.role);
          if (!error) return;
          throw new GraphQLError(error.message, { originalError: error, extensions: { http: { status: 403 } } });
        },
      };
    },
  };
}
