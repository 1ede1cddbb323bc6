import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError, ErrorCode } from '../../src/errors.js';
import { FileError } from '../files/fileErrors.js';
import type { ImportJobItemRecord, ImportRequest } from '../jobs/types.js';
import type { SpecImportPlan } from '../openapi/specOrigin.js';
import type { UploadRepository } from '../uploads/UploadRepository.js';
import { fitPlanToDocumentLimits } from './fitPlan.js';
import { documentIdForFile, planFile, planOpenApi, planUrl, type PlanDeps } from './planSources.js';

/** Turns one item of an import job (a URL, a spec, an upload, a file of a folder) into a plan to write. */
export class ItemPlanner {
  constructor(
    private readonly planDeps: PlanDeps,
    private readonly uploads: UploadRepository,
    /** CAIRN_UPLOAD_MAX_BYTES: the largest local file read. */
    private readonly uploadMaxBytes: number,
  ) {}

  async plan(
    request: Exclude<ImportRequest, { kind: 'source' | 'extract' }>,
    item: ImportJobItemRecord,
  ): Promise<SpecImportPlan> {
    if (request.kind === 'openapi') return this.planSource(request, item);
    // For URL items the label is the URL.
    const source: Record<string, string> = request.kind === 'url' ? { url: item.label } : { fileName: item.label };
    try {
      return fitPlanToDocumentLimits(await this.planSource(request, item), request.defaults, item.label, source);
    } catch (err) {
      throw request.kind === 'url' ? namedByUrl(err, item.label) : err;
    }
  }

  private async planSource(
    request: Exclude<ImportRequest, { kind: 'source' | 'extract' }>,
    item: ImportJobItemRecord,
  ): Promise<SpecImportPlan> {
    switch (request.kind) {
      case 'url':
        return planUrl(request.urls[item.ordinal] as string, request.defaults, this.planDeps);
      case 'openapi':
        return planOpenApi(request, this.planDeps);
      case 'upload': {
        const upload = await this.uploads.load(request.uploadId);
        const file = {
          fileName: upload.fileName,
          bytes: upload.bytes,
          ...(upload.contentType ? { contentType: upload.contentType } : {}),
        };
        return planFile(file, request.documentId, request.defaults, this.planDeps, undefined, {
          ...(request.specId ? { specId: request.specId } : {}),
          ...(request.idGiven ? { idGiven: true } : {}),
        });
      }
      case 'directory': {
        const relative = request.files[item.ordinal] as string;
        const localPath = path.join(request.root, relative);
        const bytes = await this.readLocalFile(localPath);
        const id = documentIdForFile(`${path.basename(request.root)}/${relative}`);
        return planFile(
          { fileName: path.basename(relative), bytes, localPath },
          id,
          request.defaults,
          this.planDeps,
          relative,
        );
      }
    }
  }

  private async readLocalFile(file: string): Promise<Buffer> {
    const info = await stat(file);
    const cap = this.uploadMaxBytes;
    if (info.size > cap) {
      throw new AppError(
        ErrorCode.IMPORT_TOO_LARGE,
        `${file} is ${info.size} bytes; the limit is ${cap} (CAIRN_UPLOAD_MAX_BYTES)`,
        { size: info.size, limit: cap },
      );
    }
    return readFile(file);
  }
}

/** A file error from a fetched URL names the URL, not the last segment of its path (`"204" contains no text`). */
function namedByUrl(err: unknown, url: string): unknown {
  return err instanceof FileError ? err.about(url, { url }) : err;
}
