import { realpath, stat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError, ErrorCode } from '../../src/errors.js';

/** The folder a spec read from disk may take `$ref` files from: its own folder and everything under it. */
export interface LocalRefRoot {
  /** The folder as given (lexical), to refuse `../` before touching the disk. */
  folder: string;
  /** The same folder with symlinks resolved, to refuse links that lead out of it. */
  realFolder: string;
}

/** The folder of a spec file, resolved once per load. */
export async function localRefRoot(specFile: string): Promise<LocalRefRoot> {
  const folder = path.dirname(path.resolve(specFile));
  // A folder gone since the spec was read (a resumed job) leaves every $ref "not found", named one by one.
  return { folder, realFolder: await realpath(folder).catch(() => folder) };
}

const inside = (folder: string, file: string): boolean => {
  const relative = path.relative(folder, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
};

/** A local `$ref` path as messages show it: relative to the spec's folder. */
export function localName(root: LocalRefRoot, fileUrl: string): string {
  try {
    return path.relative(root.folder, fileURLToPath(fileUrl)) || path.basename(fileURLToPath(fileUrl));
  } catch {
    return fileUrl;
  }
}

/**
 * Reads a `file:` `$ref` target under the spec's folder, at most `maxBytes`. Throws IMPORT_FETCH_BLOCKED for a path
 * outside the folder (by `../` or by a symlink), INVALID_OPENAPI for a missing file, IMPORT_TOO_LARGE past the cap.
 */
export async function readLocalRef(
  root: LocalRefRoot,
  fileUrl: string,
  ref: string,
  maxBytes: number,
): Promise<Buffer> {
  const file = fileURLToPath(fileUrl);
  const outside = () =>
    new AppError(
      ErrorCode.IMPORT_FETCH_BLOCKED,
      `${ref} leads outside the spec's folder ${root.folder}; only files in that folder and under it are read`,
      { ref: file },
    );
  if (!inside(root.folder, file)) throw outside();
  let real: string;
  try {
    real = await realpath(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new AppError(
      ErrorCode.INVALID_OPENAPI,
      `${ref} cannot be resolved: ${code === 'ENOENT' || code === 'ENOTDIR' ? `there is no file ${file}` : `${file} cannot be read (${code ?? 'error'})`}`,
      { ref: file },
    );
  }
  if (!inside(root.realFolder, real)) throw outside();
  const info = await stat(real);
  if (!info.isFile())
    throw new AppError(ErrorCode.INVALID_OPENAPI, `${ref} cannot be resolved: ${file} is not a file`, { ref: file });
  if (info.size > maxBytes)
    throw new AppError(ErrorCode.IMPORT_TOO_LARGE, `${ref} is ${info.size} bytes; the limit is ${maxBytes}`, {
      ref: file,
      bytes: info.size,
      maxBytes,
    });
  return readFile(real);
}
