import { AppError, ErrorCode, badInput, isAppError } from '../errors.js';

// SQLSTATE 08xxx (connection exception) and 57P01-03 (terminated by an administrator, crash shutdown, starting up),
// plus the driver's and the socket's own ways of saying the connection is gone.
const LOST_SQLSTATE = /^(08...|57P0[123])$/;
const LOST_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const LOST_MESSAGE = /Connection terminated|not queryable|timeout exceeded when trying to connect/i;
// 22021: a NUL byte in text; 22P05: \u0000 in JSON; 22P02 on JSON: an unpaired surrogate (JSON.stringify escapes it
// as \ud800, which jsonb refuses). Postgres stores none of them, and Cairn never makes them itself: the client sent them.
const NUL_SQLSTATES = new Set(['22021', '22P05']);
// 40P01: deadlock detected; 40001: serialization failure. Postgres chose this transaction as the victim and rolled it
// back; the same write succeeds when repeated.
const COLLISION_SQLSTATES = new Set(['40P01', '40001']);
const isBadJson = (code: string, message: string) => code === '22P02' && /type json/.test(message);

/** True when `err` (a driver's or socket's error, translated or not) says the connection is gone or was refused. */
export function isConnectionLost(err: unknown): boolean {
  if (isAppError(err)) return err.code === ErrorCode.DATABASE_UNAVAILABLE;
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (LOST_SQLSTATE.test(code) || LOST_NODE_CODES.has(code))) return true;
  return typeof message === 'string' && LOST_MESSAGE.test(message);
}

/**
 * Translates database errors a client can act on into AppErrors: a lost or refused connection becomes
 * DATABASE_UNAVAILABLE (retry), a deadlock or serialization failure CONFLICT (retry), text Postgres cannot store
 * BAD_USER_INPUT; anything else passes through.
 */
export function translateDbError(err: unknown, inTransaction: boolean): unknown {
  if (isAppError(err) || !(err instanceof Error)) return err;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (NUL_SQLSTATES.has(code) || isBadJson(code, err.message))) {
    return badInput('input', 'text must be valid Unicode without NUL characters (\\u0000) or unpaired surrogates', {
      reason: err.message,
    });
  }
  if (typeof code === 'string' && COLLISION_SQLSTATES.has(code)) {
    return new AppError(
      ErrorCode.CONFLICT,
      `The write collided with a concurrent one (${err.message}) and was rolled back, so nothing was written; retry it.`,
      { retryable: true },
      { cause: err },
    );
  }
  const lost = typeof code === 'string' ? LOST_SQLSTATE.test(code) || LOST_NODE_CODES.has(code) : false;
  if (!lost && !LOST_MESSAGE.test(err.message)) return err;
  const outcome = inTransaction ? 'the transaction was rolled back' : 'the statement did not run';
  return new AppError(
    ErrorCode.DATABASE_UNAVAILABLE,
    `The database connection failed (${err.message}); ${outcome}. Retry shortly.`,
    {},
    { cause: err },
  );
}
