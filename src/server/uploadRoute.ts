import busboy from 'busboy';
import type { Request, Response } from 'express';
import { AppError, ErrorCode, isAppError } from '../errors.js';
import type { Services } from '../services.js';
import { sendError } from './httpErrors.js';

const MAX_FILE_NAME = 255;

/** Reads the single file of a multipart request into memory, enforcing the size cap while streaming. */
function readMultipartFile(req: Request, maxBytes: number): Promise<{ fileName: string; contentType: string | null; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxBytes, fields: 20, parts: 25 } });
    } catch {
      reject(new AppError(ErrorCode.BAD_USER_INPUT, 'send the file as multipart/form-data with one part named "file"'));
      return;
    }
    let file: Promise<{ fileName: string; contentType: string | null; bytes: Buffer }> | undefined;
    parser.on('file', (_field, stream, info) => {
      file = new Promise((resolveFile, rejectFile) => {
        const parts: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => parts.push(chunk));
        stream.on('limit', () =>
          rejectFile(new AppError(ErrorCode.IMPORT_TOO_LARGE, `the file is larger than ${maxBytes} bytes (CAIRN_UPLOAD_MAX_BYTES)`, { limit: maxBytes })),
        );
        stream.on('error', rejectFile);
        stream.on('close', () => {
          const fileName = (info.filename ?? '').split(/[\\/]/).pop()?.trim().slice(0, MAX_FILE_NAME) ?? '';
          const type = info.mimeType && info.mimeType !== 'application/octet-stream' ? info.mimeType.toLowerCase() : null;
          resolveFile({ fileName: fileName || 'upload', contentType: type, bytes: Buffer.concat(parts) });
        });
      });
      file.catch(() => undefined); // handled below; the stream must still be drained
    });
    parser.on('error', () => reject(new AppError(ErrorCode.BAD_USER_INPUT, 'the multipart body is malformed')));
    parser.on('close', () => {
      if (!file) reject(new AppError(ErrorCode.BAD_USER_INPUT, 'no file in the request: send multipart/form-data with one part named "file"'));
      else file.then(resolve, reject);
    });
    req.pipe(parser);
  });
}

/** POST /v1/uploads: stores one file and answers 201 with its id, to pass to `importUpload` (behind the editor guard). */
export function uploadHandler(services: Services) {
  return async (req: Request, res: Response): Promise<void> => {
    const cap = services.config.import.uploadMaxBytes;
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > cap + 64 * 1024) {
      sendError(res, 413, new AppError(ErrorCode.IMPORT_TOO_LARGE, `the request is ${declared} bytes; files may be at most ${cap} bytes (CAIRN_UPLOAD_MAX_BYTES)`, { limit: cap }));
      req.resume();
      return;
    }
    try {
      const file = await readMultipartFile(req, cap);
      if (file.bytes.length === 0) throw new AppError(ErrorCode.BAD_USER_INPUT, 'the file is empty');
      const upload = await services.imports.uploads.save(file.fileName, file.contentType, file.bytes);
      res.status(201).json({ ...upload, createdAt: upload.createdAt.toISOString(), expiresAt: upload.expiresAt.toISOString() });
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
