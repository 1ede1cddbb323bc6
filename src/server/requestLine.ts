import type { RequestHandler } from 'express';
import type { Logger } from '../logger.js';
import { principalOf } from './guard.js';

/** Probes a load balancer sends every few seconds: never logged. */
const PROBES = new Set(['/healthz', '/readyz']);
/** Longest path a line shows (a document id in a /knowledge path can be long). */
const MAX_PATH = 200;

/** One request as its log line tells it. */
export interface RequestSummary {
  id: string;
  method: string;
  /** The path without its query string (where clients put keys and GraphQL variables). */
  path: string;
  /** The status sent, or `aborted` when the client went away first. */
  status: number | 'aborted';
  ms: number;
  /** The key's name; `local` while authentication is off; null when no key was accepted. */
  key: string | null;
}

/** `POST /graphql 200 12ms key=my-agent`: what a person at a terminal reads. */
export function requestSummaryText(s: RequestSummary): string {
  const who = s.key === null ? 'no key' : s.key === 'local' ? 'local' : `key=${s.key}`;
  return `${s.method} ${s.path} ${s.status} ${s.ms}ms ${who}`;
}

function pathOf(url: string): string {
  const path = url.split('?')[0] ?? url;
  return path.length > MAX_PATH ? `${path.slice(0, MAX_PATH - 1)}…` : path;
}

/**
 * Logs one short record per request when it ends, at info (error for a 5xx): the line above as the message and the
 * same fields under `request` for log collectors. The full record, with headers, is pino-http's, at debug.
 */
export function requestLine(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const path = pathOf(req.originalUrl);
    if (PROBES.has(path)) {
      next();
      return;
    }
    const started = performance.now();
    res.once('close', () => {
      const principal = principalOf(res);
      const request: RequestSummary = {
        id: String(req.id),
        method: req.method,
        path,
        status: res.writableFinished ? res.statusCode : 'aborted',
        ms: Math.round(performance.now() - started),
        key: principal === undefined ? null : principal.kind === 'local' ? 'local' : principal.name,
      };
      const level = typeof request.status === 'number' && request.status >= 500 ? 'error' : 'info';
      logger[level]({ request }, requestSummaryText(request));
    });
    next();
  };
}
