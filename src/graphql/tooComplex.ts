import { AppError, ErrorCode } from '../errors.js';

/** The static limits an operation can exceed. */
export type LimitName = 'depth' | 'cost' | 'aliases' | 'directives' | 'tokens';

const LIMITS: Record<LimitName, { env: string; describe: (found: string) => string }> = {
  depth: { env: 'CAIRN_GRAPHQL_MAX_DEPTH', describe: (n) => `is nested ${n} levels deep` },
  cost: { env: 'CAIRN_GRAPHQL_MAX_COST', describe: (n) => `has an estimated cost of ${n}` },
  aliases: { env: 'CAIRN_GRAPHQL_MAX_ALIASES', describe: (n) => `uses ${n} aliases` },
  directives: { env: 'CAIRN_GRAPHQL_MAX_DIRECTIVES', describe: (n) => `uses ${n} directives` },
  tokens: { env: 'CAIRN_GRAPHQL_MAX_TOKENS', describe: (n) => `has more than ${n} tokens` },
};

/** QUERY_TOO_COMPLEX naming the limit, its value and the variable that sets it. */
export function tooComplex(limit: LimitName, max: number, found: number | undefined): AppError {
  const { env, describe } = LIMITS[limit];
  const shown = found === undefined ? `more than ${max}` : String(found);
  const what = limit === 'tokens' ? describe(String(max)) : describe(shown);
  return new AppError(ErrorCode.QUERY_TOO_COMPLEX, `The operation ${what}; the ${limit} limit is ${max} (${env}).`, {
    limit,
    max,
    ...(found !== undefined ? { found } : {}),
    env,
  });
}
