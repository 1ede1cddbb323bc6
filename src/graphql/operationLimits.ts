import { getOperationAST, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { Principal } from '../auth/roles.js';
import type { GraphqlLimits } from '../config.js';
import { AppError, ErrorCode, badInput } from '../errors.js';
import { estimatedCost } from './costLimit.js';
import { introspectionRefusal } from './protection.js';
import { tooComplex } from './tooComplex.js';
import { variablesOverLimit } from './variableLimits.js';

/**
 * What Apollo's plugins check on HTTP once an operation is parsed and validated (the variables' sizes, the estimated
 * cost with variables known, introspection by role), for operations served over graphql-ws, where only
 * subscriptions are taken: queries and mutations go to POST /graphql. Returns the first problem, or undefined.
 */
export function subscriptionProblem(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Readonly<Record<string, unknown>>,
  principal: Principal,
  limits: GraphqlLimits,
): AppError | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation)
    return new AppError(
      ErrorCode.BAD_REQUEST,
      'Name the operation to run (operationName): the document has none of that name, or several.',
    );
  if (operation.operation !== 'subscription') {
    return new AppError(
      ErrorCode.BAD_REQUEST,
      `Only subscriptions are served over WebSocket; send ${operation.operation} operations to POST /graphql.`,
      { operation: operation.operation },
    );
  }
  const over = variablesOverLimit(variables);
  if (over) return badInput(over.path, over.reason);
  const cost = estimatedCost(schema, document, variables, operation, limits.maxCost);
  if (cost !== undefined) return tooComplex('cost', limits.maxCost, cost);
  return introspectionRefusal(document, principal.role);
}
