import { createHash } from 'node:crypto';
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError, ErrorCode } from '../../../src/errors.js';
import { documentIdForFile, planFile } from '../../pipeline/planSources.js';
import { scanDirectory } from '../../pipeline/walkDirectory.js';
import type { FolderConfig } from '../types.js';
import type { DriverContext, SourceDriver, SyncItem } from './driver.js';

/**
 * A folder on the server's machine, read as `cairn import dir` reads one (same file walk, same document ids), and only
 * under CAIRN_SOURCES_FOLDER_ROOT, checked again at each sync with links resolved.
 */
export function folderDriver(config: FolderConfig): SourceDriver {
  return {
    async *items(context: DriverContext): AsyncIterable<SyncItem> {
      const root = await checkedRoot(config.path, context.runtime.folderRoot);
      const { files, skipped } = await scanDirectory(root);
      context.skipFiles(skipped);
      context.setTotal(files.length);
      const cap = context.runtime.importConfig.uploadMaxBytes;
      for (const relative of files) {
        yield {
          key: relative,
          label: relative,
          async load(previous) {
            const file = path.join(root, relative);
            const info = await stat(file);
            if (info.size > cap)
              throw new AppError(
                ErrorCode.IMPORT_TOO_LARGE,
                `${relative} is ${info.size} bytes; the limit is ${cap} (CAIRN_UPLOAD_MAX_BYTES)`,
                { size: info.size, limit: cap },
              );
            const bytes = await readFile(file);
            const fingerprint = createHash('sha256').update(bytes).digest('hex');
            if (previous?.fingerprint === fingerprint) return { unchanged: true };
            const id = documentIdForFile(`${path.basename(root)}/${relative}`);
            const plan = await planFile(
              { fileName: path.basename(relative), bytes },
              id,
              context.defaults,
              context.planDeps,
              relative,
            );
            return { plan, fingerprint, state: { path: relative } };
          },
        };
      }
    },
  };
}

/** The folder with links resolved, refused unless it still lies inside the (resolved) root. */
async function checkedRoot(folder: string, root: string | undefined): Promise<string> {
  if (root === undefined)
    throw new AppError(
      ErrorCode.BAD_USER_INPUT,
      'folder sources are off on this server: set CAIRN_SOURCES_FOLDER_ROOT',
      { field: 'path' },
    );
  let real: string;
  let realRoot: string;
  try {
    [real, realRoot] = await Promise.all([realpath(folder), realpath(root)]);
  } catch {
    throw new AppError(
      ErrorCode.NOT_FOUND,
      `the folder ${folder} does not exist (or CAIRN_SOURCES_FOLDER_ROOT ${root} does not)`,
      { path: folder },
    );
  }
  const relative = path.relative(realRoot, real);
  if (relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new AppError(
      ErrorCode.BAD_USER_INPUT,
      `${folder} leads outside CAIRN_SOURCES_FOLDER_ROOT (${root}) through a link; only folders under it may be sources`,
      { path: folder },
    );
  }
  return real;
}
