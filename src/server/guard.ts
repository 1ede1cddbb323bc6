import type { Request, RequestHandler, Response } from 'express';
import type { Authenticator } from '../auth/authenticator.js';
import { relayedByProxy } from '../auth/loopback.js';
import { requireRole, type Principal, type Role } from '../auth/roles.js';
import { AppError, ErrorCode, isAppError } from '../errors.js';
import { sendError } from './httpErrors.js';
import type { RateLimiter } from './rateLimiter.js';

const PRINCIPAL = 'cairnPrincipal';

/** The principal the guard attached to this response, if it ran. */
export function principalOf(res: Response): Principal | undefined {
  return res.locals[PRINCIPAL] as Principal | undefined;
}

/** Spends a token of `bucket`; answers 429 with Retry-After and returns true when none is left. */
function limited(limiter: RateLimiter, res: Response, bucket: string): boolean {
  const decision = limiter.take(bucket);
  if (decision.ok) return false;
  res.setHeader('retry-after', String(decision.retryAfterSeconds));
  const error = new AppError(ErrorCode.RATE_LIMITED, `Too many requests; retry in ${decision.retryAfterSeconds} s (CAIRN_RATE_LIMIT_PER_SECOND, CAIRN_RATE_LIMIT_BURST).`, {
    retryAfterSeconds: decision.retryAfterSeconds,
  });
  sendError(res, 429, error);
  return true;
}

const clientAddress = (req: Request): string => req.socket.remoteAddress ?? 'unknown';

/**
 * Middleware for API routes: authenticates (401 UNAUTHENTICATED), rate-limits per key or, without one, per client
 * address (429 RATE_LIMITED), and with `need` checks the role (403 FORBIDDEN). GraphQL checks roles per field.
 */
export function createGuard(authenticator: Authenticator, limiter: RateLimiter) {
  return (need?: Role): RequestHandler =>
    async (req, res, next) => {
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
        if (limited(limiter, res, `ip:${clientAddress(req)}`)) return;
        res.setHeader('www-authenticate', 'Bearer realm="cairn"');
        sendError(res, 401, err);
        return;
      }
      if (limited(limiter, res, principal.keyId ? `key:${principal.keyId}` : `ip:${clientAddress(req)}`)) return;
      if (need) {
        try {
          requireRole(principal, need, `${req.method} ${req.baseUrl}${req.path}`);
        } catch (err) {
          sendError(res, 403, err as AppError);
          return;
        }
      }
      res.locals[PRINCIPAL] = principal;
      next();
    };
}
