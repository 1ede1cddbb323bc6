import type { Request, RequestHandler, Response } from 'express';
import type { Authenticator } from '../auth/Authenticator.js';
import { relayedByProxy } from '../auth/loopback.js';
import { requireRole, type Principal, type Role } from '../auth/roles.js';
import { SPACE_HEADER, type SpaceService } from '../auth/SpaceService.js';
import { runInSpace } from '../db/spaceScope.js';
import { runOnRoute } from '../db/readRoute.js';
import { AppError, ErrorCode, isAppError } from '../errors.js';
import { sendError } from './httpErrors.js';
import type { RateLimiter } from './RateLimiter.js';

const PRINCIPAL = 'cairnPrincipal';
const SPACE = 'cairnSpace';

/** The principal the guard attached to this response, if it ran. */
export function principalOf(res: Response): Principal | undefined {
  return res.locals[PRINCIPAL] as Principal | undefined;
}

/** The space the guard chose for this request (see `SpaceService.forRequest`), if it ran. */
export function requestSpaceOf(res: Response): string | undefined {
  return res.locals[SPACE] as string | undefined;
}

/**
 * Runs the rest of the request in its space, on a read route of its caller (reads stay on the primary until the
 * request is known to only read: see readRoute.ts). Mount it after the body parser: the parser's stream callbacks
 * would not carry the scope on to the handlers after it.
 */
export const inRequestSpace: RequestHandler = (_req, res, next) => {
  const space = requestSpaceOf(res);
  if (space === undefined) {
    next(new Error('inRequestSpace runs behind the guard'));
    return;
  }
  const principal = principalOf(res);
  const client = principal ? (principal.keyId ?? principal.kind) : undefined;
  runInSpace(space, () => runOnRoute({ client, replica: false }, next));
};

/** Answers 429 with Retry-After for a refused decision; `limit` says which settings to raise and what ran out. */
function refuse(res: Response, decision: { retryAfterSeconds: number }, what: string, settings: string): void {
  res.setHeader('retry-after', String(decision.retryAfterSeconds));
  const error = new AppError(
    ErrorCode.RATE_LIMITED,
    `${what}; retry in ${decision.retryAfterSeconds} s (${settings}).`,
    {
      retryAfterSeconds: decision.retryAfterSeconds,
    },
  );
  sendError(res, 429, error);
}

const API_LIMIT = { what: 'Too many requests', settings: 'CAIRN_RATE_LIMIT_PER_SECOND, CAIRN_RATE_LIMIT_BURST' };

/** Spends a token of `bucket`; answers 429 with Retry-After (naming `limit`) and returns true when none is left. */
function limited(
  limiter: RateLimiter,
  res: Response,
  bucket: string,
  limit: { what: string; settings: string } = API_LIMIT,
): boolean {
  const decision = limiter.take(bucket);
  if (decision.ok) return false;
  refuse(res, decision, limit.what, limit.settings);
  return true;
}

/** HTTP statuses of the refusals before a request runs (a role too low, or a space the key lacks, is 403). */
const SPACE_STATUS: Partial<Record<string, number>> = { [ErrorCode.NOT_FOUND]: 404, [ErrorCode.BAD_REQUEST]: 400 };

const clientAddress = (req: Request): string => req.socket.remoteAddress ?? 'unknown';

/**
 * True (after answering 429) when the request's address has spent its budget of unknown, malformed or revoked keys
 * and the request's key is not one this process accepted recently. Checked before the key is looked up, so that a
 * flood of made-up keys from one address costs no database query once the budget is gone.
 */
function failedKeysExhausted(
  authenticator: Authenticator,
  failedKeys: RateLimiter,
  req: Request,
  res: Response,
): boolean {
  if (req.headers.authorization === undefined) return false;
  const decision = failedKeys.peek(`ip:${clientAddress(req)}`);
  if (decision.ok || authenticator.presentsAcceptedKey(req.headers.authorization)) return false;
  refuse(
    res,
    decision,
    'Too many unknown, malformed or revoked API keys from this address',
    'CAIRN_RATE_LIMIT_FAILED_KEYS_PER_MINUTE',
  );
  return true;
}

/**
 * Middleware for API routes: refuses addresses that sent too many bad keys (429 RATE_LIMITED, before any lookup),
 * authenticates (401 UNAUTHENTICATED), rate-limits per key or, without one, per client address (429 RATE_LIMITED),
 * and with `need` checks the role (403 FORBIDDEN). GraphQL checks roles per field.
 */
export function createGuard(
  authenticator: Authenticator,
  limiters: { limiter: RateLimiter; failedKeys: RateLimiter; spaces: RateLimiter },
  spaces: SpaceService,
) {
  const { limiter, failedKeys, spaces: spaceLimiter } = limiters;
  return (need?: Role): RequestHandler =>
    async (req, res, next) => {
      if (failedKeysExhausted(authenticator, failedKeys, req, res)) return;
      let principal: Principal;
      try {
        principal = await authenticator.authenticate({
          authorization: req.headers.authorization,
          host: req.headers.host,
          forwarded: relayedByProxy(req.headers),
          remoteAddress: req.socket.remoteAddress,
        });
      } catch (err) {
        if (!isAppError(err) || err.code !== ErrorCode.UNAUTHENTICATED) {
          next(err);
          return;
        }
        if (err.details.reason === 'invalid') failedKeys.take(`ip:${clientAddress(req)}`);
        if (limited(limiter, res, `ip:${clientAddress(req)}`)) return;
        res.setHeader('www-authenticate', 'Bearer realm="cairn"');
        sendError(res, 401, err);
        return;
      }
      if (limited(limiter, res, principal.keyId ? `key:${principal.keyId}` : `ip:${clientAddress(req)}`)) return;
      try {
        if (need) requireRole(principal, need, `${req.method} ${req.baseUrl}${req.path}`);
        res.locals[SPACE] = await spaces.forRequest(principal, req.header(SPACE_HEADER));
      } catch (err) {
        if (!isAppError(err)) {
          next(err);
          return;
        }
        sendError(res, SPACE_STATUS[err.code] ?? 403, err);
        return;
      }
      const space = res.locals[SPACE] as string;
      const spaceLimit = {
        what: `Too many requests in space "${space}"`,
        settings: 'CAIRN_SPACE_RATE_LIMIT_PER_SECOND, CAIRN_SPACE_RATE_LIMIT_BURST',
      };
      if (limited(spaceLimiter, res, `space:${space}`, spaceLimit)) return;
      res.locals[PRINCIPAL] = principal;
      next();
    };
}
