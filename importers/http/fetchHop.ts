import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { AppError, ErrorCode } from '../../src/errors.js';
import type { VettedTarget } from './fetchTarget.js';

/** What one request needs besides the URL. */
export interface HopOptions {
  target: VettedTarget;
  headers: Record<string, string>;
  connectTimeoutMs: number;
  /** Aborted with an AppError as reason when the whole fetch must stop (total timeout, caller's signal). */
  signal: AbortSignal;
}

/**
 * A lookup that only ever answers with the addresses vetted for this hop, so Node never asks DNS
 * again between the check and the connect (no rebinding window).
 */
export function pinnedLookup(target: VettedTarget): LookupFunction {
  const pinned: LookupAddress[] = target.addresses.map((a) => ({
    address: a.address,
    family: isIP(a.address) || a.family,
  }));
  return (hostname, options, callback) => {
    const wanted =
      options.family === 4 || options.family === 6 ? pinned.filter((a) => a.family === options.family) : pinned;
    const first = wanted[0];
    if (hostname !== target.hostname || !first) {
      const err: NodeJS.ErrnoException = new Error(`no vetted address for ${hostname}`);
      err.code = 'ENOTFOUND';
      callback(err, '');
      return;
    }
    if (options.all) callback(null, wanted);
    else callback(null, first.address, first.family);
  };
}

/** Sends one GET to the vetted addresses and resolves with the response head; the body is left unread. */
export function requestHop(url: URL, opts: HopOptions): Promise<http.IncomingMessage> {
  const secure = url.protocol === 'https:';
  const { target } = opts;
  return new Promise((resolve, reject) => {
    if (opts.signal.aborted) {
      reject(opts.signal.reason);
      return;
    }
    let connectTimer: NodeJS.Timeout | undefined;
    const clearConnectTimer = (): void => {
      if (connectTimer) clearTimeout(connectTimer);
      connectTimer = undefined;
    };
    let req: http.ClientRequest;
    try {
      req = (secure ? https : http).request({
        protocol: url.protocol,
        hostname: target.hostname,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { ...opts.headers, Host: url.host },
        // A fresh agent per request: a pooled socket could still point at an address vetted for an earlier fetch.
        agent: false,
        lookup: pinnedLookup(target),
        ...(secure && isIP(target.hostname) === 0 ? { servername: target.hostname.replace(/\.$/, '') } : {}),
      });
    } catch (err) {
      // Bad header values, or a connect refused synchronously, surface here rather than as 'error'.
      reject(networkError(url, err));
      return;
    }
    const onAbort = (): void => {
      req.destroy(opts.signal.reason as Error);
    };
    opts.signal.addEventListener('abort', onAbort, { once: true });
    req.once('socket', (socket: Socket) => {
      // The connect timeout covers the TCP connect and, for https, the TLS handshake.
      const ready = secure ? 'secureConnect' : 'connect';
      connectTimer = setTimeout(() => {
        req.destroy(
          new AppError(
            ErrorCode.IMPORT_FETCH_FAILED,
            `fetch of ${url.href} failed: connect timeout after ${opts.connectTimeoutMs} ms`,
            {
              url: url.href,
              reason: 'connect timeout',
              timeoutMs: opts.connectTimeoutMs,
            },
          ),
        );
      }, opts.connectTimeoutMs);
      socket.once(ready, clearConnectTimer);
    });
    req.once('response', (res) => {
      clearConnectTimer();
      opts.signal.removeEventListener('abort', onAbort);
      // Later aborts (timeout during the body) must still tear the response down.
      const onLateAbort = (): void => {
        res.destroy(opts.signal.reason as Error);
      };
      opts.signal.addEventListener('abort', onLateAbort, { once: true });
      res.once('close', () => opts.signal.removeEventListener('abort', onLateAbort));
      resolve(res);
    });
    req.once('error', (err) => {
      clearConnectTimer();
      opts.signal.removeEventListener('abort', onAbort);
      reject(networkError(url, err));
    });
    req.once('close', clearConnectTimer);
    req.end();
  });
}

/** Wraps a socket or TLS error as IMPORT_FETCH_FAILED naming the cause; AppErrors pass through. */
export function networkError(url: URL, err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as NodeJS.ErrnoException;
  const reason = e.code ? `${e.code}${e.message && !e.message.startsWith(e.code) ? ` (${e.message})` : ''}` : e.message;
  return new AppError(
    ErrorCode.IMPORT_FETCH_FAILED,
    `fetch of ${url.href} failed: ${reason}`,
    { url: url.href, reason: e.code ?? e.message },
    { cause: err },
  );
}
