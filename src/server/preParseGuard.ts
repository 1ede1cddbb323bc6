import type { RequestHandler } from 'express';
import type { GraphqlLimits } from '../config.js';
import { preParseProblem } from '../graphql/preParseLimits.js';
import { sendError } from './httpErrors.js';

const queryOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * Refuses a GraphQL operation (POST body or GET `query`) over the token cap or nested too deep before Apollo parses
 * it, with the QUERY_TOO_COMPLEX error the limit gives after parsing (see preParseProblem).
 */
export function preParseGuard(limits: GraphqlLimits): RequestHandler {
  return (req, res, next) => {
    const body = req.body as { query?: unknown } | undefined;
    const query = queryOf(body?.query) ?? queryOf(req.query.query);
    const problem = query === undefined ? undefined : preParseProblem(query, limits);
    if (problem) sendError(res, 400, problem);
    else next();
  };
}
