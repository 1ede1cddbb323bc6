import { validateSpaceId } from '../auth/SpaceService.js';
import { runInSpace } from '../db/spaceScope.js';
import { AppError, ErrorCode } from '../errors.js';
import type { Services } from '../services.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { createServices } from '../services.js';
import { extractWith, filterSpec, printReport, type ExtractCliRequest, type ExtractReport } from './extractCommand.js';

type ExtractServices = Pick<Services, 'extractGraph' | 'spaces' | 'documents'>;

/** One space's extraction job. */
export interface SpaceReport {
  space: string;
  report: ExtractReport;
}

/**
 * `cairn extract` on the store itself: in `space` alone, or in every space, each by a job of its own, since a job
 * runs in one space and extracts into it. Spaces the request selects nothing in get no job; a request that selects
 * nothing anywhere fails as a job would (unknown document ids: NOT_FOUND; an empty filter: BAD_USER_INPUT).
 */
export async function extractInSpaces(
  services: ExtractServices,
  request: ExtractCliRequest,
  json: boolean,
  space?: string,
): Promise<SpaceReport[]> {
  if (space !== undefined) {
    const id = validateSpaceId(space, '--space');
    if ((await services.spaces.missing([id])).length > 0)
      throw new AppError(ErrorCode.NOT_FOUND, `space "${id}" does not exist (cairn spaces lists them)`, { id });
    return [{ space: id, report: await runInSpace(id, () => extractWith(services, request, json)) }];
  }
  const selections: { space: string; selected: string[] }[] = [];
  for (const { id } of await services.spaces.list()) {
    const selected = await runInSpace(id, () => selectedIn(services, request));
    if (selected.length > 0) selections.push({ space: id, selected });
  }
  const found = new Set(selections.flatMap((s) => s.selected));
  if (selections.length === 0 || (request.documentIds ?? []).some((doc) => !found.has(doc))) {
    // Nothing selected anywhere, or ids no space holds: the job's own check refuses it, in its words, before any job.
    return [{ space: 'default', report: await extractWith(services, request, json) }];
  }
  const reports: SpaceReport[] = [];
  for (const { space: id, selected } of selections) {
    const inSpace = request.documentIds ? { ...request, documentIds: selected } : request;
    reports.push({ space: id, report: await runInSpace(id, () => extractWith(services, inSpace, json)) });
  }
  return reports;
}

/** The documents the request selects in the current space (for a filter: one, enough to know it selects some). */
async function selectedIn(services: ExtractServices, request: ExtractCliRequest): Promise<string[]> {
  if (request.documentIds) return services.documents.liveIds(request.documentIds);
  const page = await services.documents.scan(filterSpec(request.filter ?? {}), 1, undefined);
  return page.rows.map((r) => r.document.id);
}

/** `cairn extract` on the store itself, in `space` or in every space; exit 0 when every job SUCCEEDED. */
export async function extractCommand(
  config: Config,
  logger: Logger,
  request: ExtractCliRequest,
  json: boolean,
  space?: string,
): Promise<number> {
  const services = await createServices(config, logger, { importQueue: false });
  try {
    const reports = await extractInSpaces(services, request, json, space);
    let code = 0;
    for (const { space: id, report } of reports)
      code = Math.max(code, printReport(report, json, reports.length > 1 ? id : undefined));
    return code;
  } finally {
    await services.close();
  }
}
