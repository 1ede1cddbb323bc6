import busboy from 'busboy';
import type { Request, Response } from 'express';
import { AppError, ErrorCode, isAppError } from '../errors.js';
import type { Services } from '../services.js';
import { runInSpace } from '../db/spaceScope.js';
import { requestSpaceOf } from './guard.js';
import { sendError } from './httpErrors.js';

const MAX_FILE_NAME = 255;
const FILE_FIELD = 'file';
const MAX_SHOWN_NAME = 100;

// Apollo's CSRF prevention headers, so one rule covers /graphql and uploads. A page on another origin can only set
// them after a CORS preflight, which Cairn never grants; a plain HTML form cannot set them at all.
const PREFLIGHT_HEADERS = ['apollo-require-preflight', 'x-apollo-operation-name'] as const;

/** The multipart file as read, before it is stored. */
interface ReceivedFile {
  fileName: string;
  contentType: string | null;
  bytes: Buffer;
}

/** True when the request carries a non-empty preflight header (a multipart body alone is what a form can send). */
function isPreflighted(req: Request): boolean {
  return PREFLIGHT_HEADERS.some((name) => {
    const value = req.headers[name];
    return typeof value === 'string' && value.length > 0;
  });
}

/** The error for a part other than the one file part, naming the part and the field expected. */
function unexpectedPart(name: string | undefined, isFile: boolean): AppError {
  const shown = JSON.stringify((name ?? '').slice(0, MAX_SHOWN_NAME));
  if (!isFile && name === FILE_FIELD) {
    return new AppError(
      ErrorCode.BAD_USER_INPUT,
      `the part "${FILE_FIELD}" is a text field, not a file: send the file's content (curl -F ${FILE_FIELD}=@path)`,
      { field: name },
    );
  }
  return new AppError(
    ErrorCode.BAD_USER_INPUT,
    `unexpected part ${shown}: send the file in one part named "${FILE_FIELD}"`,
    { field: name ?? '' },
  );
}

/** Reads the single file of a multipart request into memory, enforcing the size cap while streaming. */
function readMultipartFile(req: Request, maxBytes: number): Promise<ReceivedFile> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      // File names arrive as UTF-8 from browsers and curl; busboy's default (latin1) garbled every non-ASCII name.
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: { files: 1, fileSize: maxBytes, fields: 20, parts: 25 },
      });
    } catch {
      reject(
        new AppError(
          ErrorCode.BAD_USER_INPUT,
          `send the file as multipart/form-data with one part named "${FILE_FIELD}"`,
        ),
      );
      return;
    }
    let file: Promise<ReceivedFile> | undefined;
    // The first problem wins and is answered once the body is drained: ignoring extra parts would hide a client's mistake.
    let problem: AppError | undefined;
    parser.on('file', (field, stream, info) => {
      if (field !== FILE_FIELD) problem ??= unexpectedPart(field, true);
      if (problem) {
        stream.resume();
        return;
      }
      file = new Promise((resolveFile, rejectFile) => {
        const parts: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => parts.push(chunk));
        stream.on('limit', () =>
          rejectFile(
            new AppError(
              ErrorCode.IMPORT_TOO_LARGE,
              `the file is larger than ${maxBytes} bytes (CAIRN_UPLOAD_MAX_BYTES)`,
              { limit: maxBytes },
            ),
          ),
        );
        stream.on('error', rejectFile);
        stream.on('close', () => {
          const fileName = (info.filename ?? '').split(/[\\/]/).pop()?.trim().slice(0, MAX_FILE_NAME) ?? '';
          const type =
            info.mimeType && info.mimeType !== 'application/octet-stream' ? info.mimeType.toLowerCase() : null;
          resolveFile({ fileName: fileName || 'upload', contentType: type, bytes: Buffer.concat(parts) });
        });
      });
      file.catch(() => undefined); // handled below; the stream must still be drained
    });
    parser.on('field', (field) => {
      problem ??= unexpectedPart(field, false);
    });
    // busboy skips files beyond `limits.files` and only signals it here.
    parser.on('filesLimit', () => {
      problem ??= new AppError(
        ErrorCode.BAD_USER_INPUT,
        'one file per request: send each file in its own POST /v1/uploads',
      );
    });
    parser.on('error', () => reject(new AppError(ErrorCode.BAD_USER_INPUT, 'the multipart body is malformed')));
    parser.on('close', () => {
      if (problem) reject(problem);
      else if (!file)
        reject(
          new AppError(
            ErrorCode.BAD_USER_INPUT,
            `no file in the request: send multipart/form-data with one part named "${FILE_FIELD}"`,
          ),
        );
      else file.then(resolve, reject);
    });
    req.pipe(parser);
  });
}

/** POST /v1/uploads: stores one file and answers 201 with its id, to pass to `importUpload` (behind the editor guard; needs a preflight header). */
export function uploadHandler(services: Services) {
  return async (req: Request, res: Response): Promise<void> => {
    // Checked before anything is read or stored, whether auth is on or off: a cross-site form post cannot carry the header.
    if (!isPreflighted(req)) {
      sendError(
        res,
        400,
        new AppError(
          ErrorCode.BAD_REQUEST,
          'This upload has been blocked as a potential Cross-Site Request Forgery (CSRF): add the header "apollo-require-preflight: true" (or a non-empty "x-apollo-operation-name").',
        ),
      );
      req.resume();
      return;
    }
    const cap = services.config.import.uploadMaxBytes;
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > cap + 64 * 1024) {
      sendError(
        res,
        413,
        new AppError(
          ErrorCode.IMPORT_TOO_LARGE,
          `the request is ${declared} bytes; files may be at most ${cap} bytes (CAIRN_UPLOAD_MAX_BYTES)`,
          { limit: cap },
        ),
      );
      req.resume();
      return;
    }
    try {
      const file = await readMultipartFile(req, cap);
      if (file.bytes.length === 0) throw new AppError(ErrorCode.BAD_USER_INPUT, 'the file is empty');
      // Stored in the request's space: only keys working there can import it (set here, after the stream was read,
      // whose callbacks would not carry the scope).
      const space = requestSpaceOf(res);
      if (space === undefined) throw new Error('the upload route runs behind the guard');
      const upload = await runInSpace(space, () =>
        services.imports.saveUpload(file.fileName, file.contentType, file.bytes),
      );
      res
        .status(201)
        .json({ ...upload, createdAt: upload.createdAt.toISOString(), expiresAt: upload.expiresAt.toISOString() });
    } catch (err) {
      if (isAppError(err)) {
        sendError(res, err.code === ErrorCode.IMPORT_TOO_LARGE ? 413 : 400, err);
      } else {
        services.logger.error({ err }, 'upload failed');
        sendError(res, 500, new AppError(ErrorCode.INTERNAL_SERVER_ERROR, 'the upload could not be stored'));
      }
    }
  };
}
