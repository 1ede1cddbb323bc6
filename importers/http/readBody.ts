import type { IncomingMessage } from 'node:http';
import { Transform, Writable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { AppError, ErrorCode } from '../../src/errors.js';
import { networkError } from './fetchHop.js';

/** The encodings the client advertises and can undo. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/** Splits a Content-Type header into the lower-case media type and its charset parameter. */
export function parseContentType(header: string | undefined): { contentType: string; charset: string | undefined } {
  if (!header) return { contentType: '', charset: undefined };
  const [type = '', ...params] = header.split(';');
  let charset: string | undefined;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const value = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .trim()
      .toLowerCase();
    if (value !== '') charset = value;
  }
  return { contentType: type.trim().toLowerCase(), charset };
}

/** Flattens response headers into lower-case name → value (repeated headers joined with ", "). */
export function flattenHeaders(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function tooLarge(url: URL, maxBytes: number, what: string, extra: Record<string, unknown> = {}): AppError {
  return new AppError(ErrorCode.IMPORT_TOO_LARGE, `${url.href} is larger than the ${maxBytes}-byte limit (${what})`, {
    url: url.href,
    maxBytes,
    ...extra,
  });
}

/** Counts bytes flowing through and fails as soon as the cap is passed, so nothing beyond it is buffered. */
class ByteCap extends Transform {
  private seen = 0;
  constructor(
    private readonly max: number,
    private readonly onExceed: () => AppError,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.max) done(this.onExceed());
    else done(null, chunk);
  }
}

function decoders(url: URL, header: string | undefined): Transform[] {
  const codings = (header ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length > 2) throw failed(url, `too many content encodings: ${header ?? ''}`);
  // Codings are listed in the order they were applied, so undo them from the last.
  return codings.reverse().map((coding) => {
    if (coding === 'gzip' || coding === 'x-gzip') return zlib.createGunzip();
    if (coding === 'deflate') return zlib.createInflate();
    if (coding === 'br') return zlib.createBrotliDecompress();
    throw failed(url, `unsupported content encoding: ${coding}`);
  });
}

function failed(url: URL, reason: string): AppError {
  return new AppError(ErrorCode.IMPORT_FETCH_FAILED, `fetch of ${url.href} failed: ${reason}`, {
    url: url.href,
    reason,
  });
}

/**
 * Reads a response body, undoing Content-Encoding, and stops at `maxBytes` of wire bytes or of
 * decoded bytes (decompression bombs): the connection is torn down as soon as either is passed.
 */
export async function readBody(url: URL, res: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    throw tooLarge(url, maxBytes, `Content-Length ${declared}`, { contentLength: declared });
  }
  let stages: Transform[];
  try {
    stages = decoders(url, res.headers['content-encoding']);
  } catch (err) {
    res.destroy();
    throw err;
  }
  // pipeline() forwards the first failure to every stage, so remember which stream failed first.
  let firstFailure: { err: unknown; decoding: boolean } | undefined;
  res.once('error', (err) => (firstFailure ??= { err, decoding: false }));
  for (const stage of stages) stage.once('error', (err) => (firstFailure ??= { err, decoding: true }));
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done): void {
      chunks.push(chunk);
      done();
    },
  });
  try {
    await pipeline([
      res,
      new ByteCap(maxBytes, () => tooLarge(url, maxBytes, 'received bytes')),
      ...stages,
      new ByteCap(maxBytes, () => tooLarge(url, maxBytes, 'decoded bytes')),
      sink,
    ]);
  } catch (err) {
    res.destroy();
    if (signal.aborted) throw signal.reason;
    if (err instanceof AppError) throw err;
    if (firstFailure?.decoding && firstFailure.err === err)
      throw failed(
        url,
        `could not decode the ${res.headers['content-encoding'] ?? ''} body: ${(err as Error).message}`,
      );
    throw networkError(url, err);
  }
  return Buffer.concat(chunks);
}
