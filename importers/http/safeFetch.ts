import type { IncomingMessage } from 'node:http';
import { AppError, ErrorCode } from '../../src/errors.js';
import { requestHop } from './fetchHop.js';
import { checkUrl, normalizeAllowList, systemResolver, vetTarget } from './fetchTarget.js';
import { ACCEPT_ENCODING, flattenHeaders, parseContentType, readBody } from './readBody.js';
import type { FetchedResource, SafeFetcher, SafeFetcherOptions, SafeFetchRequest } from './SafeFetcher.js';

/** Redirect hops are capped at this regardless of configuration. */
export const MAX_REDIRECTS_LIMIT = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Creates the safe HTTP client: http(s) only, every hop's addresses resolved once, vetted against the
 * address policy and pinned for the connection, redirects followed by hand, size and time capped.
 */
export function createSafeFetcher(options: SafeFetcherOptions): SafeFetcher {
  const allowList = normalizeAllowList(options.allowPrivateHosts);
  const resolve = options.resolve ?? systemResolver;
  const maxRedirects = Math.max(0, Math.min(MAX_REDIRECTS_LIMIT, Math.floor(options.maxRedirects)));
  const baseHeaders = { 'User-Agent': options.userAgent, 'Accept-Encoding': ACCEPT_ENCODING };

  async function fetchUrl(requestedUrl: string, request: SafeFetchRequest = {}): Promise<FetchedResource> {
    const maxBytes = Math.min(request.maxBytes ?? options.maxBytes, options.maxBytes);
    const headers: Record<string, string> = { ...baseHeaders, Accept: request.accept ?? '*/*' };
    if (request.conditional?.etag) headers['If-None-Match'] = request.conditional.etag;
    if (request.conditional?.lastModified) headers['If-Modified-Since'] = request.conditional.lastModified;
    const { signal, dispose } = fetchSignal(requestedUrl, options.timeoutMs, request.signal);
    try {
      const redirects: string[] = [];
      let url = checkUrl(requestedUrl);
      for (;;) {
        const target = await untilAborted(vetTarget(url, allowList, resolve), signal);
        const res = await requestHop(url, { target, headers, connectTimeoutMs: options.connectTimeoutMs, signal });
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        if (REDIRECT_STATUSES.has(status) && location !== undefined) {
          res.destroy();
          // Every hop is re-checked from scratch; a 303 (or anything else) is followed with GET, the only method used.
          const next = checkUrl(location, url);
          if (redirects.length >= maxRedirects) {
            throw new AppError(
              ErrorCode.IMPORT_FETCH_FAILED,
              `fetch of ${requestedUrl} failed: too many redirects (more than ${maxRedirects})`,
              {
                url: requestedUrl,
                reason: 'too many redirects',
                maxRedirects,
                redirects: [...redirects, url.href],
              },
            );
          }
          redirects.push(url.href);
          url = next;
          continue;
        }
        if (status === 304 && request.conditional) {
          res.destroy();
          return {
            requestedUrl,
            finalUrl: url.href,
            status,
            contentType: '',
            charset: undefined,
            headers: flattenHeaders(res),
            body: Buffer.alloc(0),
            redirects,
          };
        }
        if (status < 200 || status > 299) throw statusError(url, res, status);
        const body = await readBody(url, res, maxBytes, signal);
        return {
          requestedUrl,
          finalUrl: url.href,
          status,
          ...parseContentType(res.headers['content-type']),
          headers: flattenHeaders(res),
          body,
          redirects,
        };
      }
    } catch (err) {
      // Whatever failed last, a timeout or the caller's abort is the real reason.
      if (signal.aborted && !(err instanceof AppError && err.code !== ErrorCode.IMPORT_FETCH_FAILED))
        throw signal.reason;
      throw err;
    } finally {
      dispose();
    }
  }

  return { fetch: fetchUrl };
}

function statusError(url: URL, res: IncomingMessage, status: number): AppError {
  res.destroy();
  return new AppError(
    ErrorCode.IMPORT_FETCH_FAILED,
    `fetch of ${url.href} failed: HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}`,
    {
      url: url.href,
      status,
      reason: `HTTP ${status}`,
    },
  );
}

/** One signal for the whole fetch: fires on the total timeout or when the caller aborts, with an AppError as reason. */
function fetchSignal(
  url: string,
  timeoutMs: number,
  outer: AbortSignal | undefined,
): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(
      new AppError(ErrorCode.IMPORT_FETCH_FAILED, `fetch of ${url} failed: total timeout of ${timeoutMs} ms exceeded`, {
        url,
        reason: 'timeout',
        timeoutMs,
      }),
    );
  }, timeoutMs);
  const onOuterAbort = (): void => {
    controller.abort(
      new AppError(
        ErrorCode.IMPORT_FETCH_FAILED,
        `fetch of ${url} was aborted`,
        { url, reason: 'aborted' },
        { cause: outer?.reason },
      ),
    );
  };
  if (outer?.aborted) onOuterAbort();
  else outer?.addEventListener('abort', onOuterAbort, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    },
  };
}

/** Settles with the promise, or rejects with the signal's reason as soon as it aborts (DNS cannot be cancelled). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e as Error);
      },
    );
  });
}
