import { validateSpaceId } from '../auth/SpaceService.js';
import type { Config } from '../config.js';
import { runInSpace } from '../db/spaceScope.js';
import { AppError, ErrorCode } from '../errors.js';
import type { Logger } from '../logger.js';
import { createServices } from '../services.js';
import { formatStats, graphPart } from './formatStats.js';

/**
 * `cairn stats` on the store itself: human-readable, or one JSON object with `--json`; the counts of one space with
 * `space`, else of every space.
 */
export async function statsCommand(config: Config, logger: Logger, json: boolean, space?: string): Promise<number> {
  const services = await createServices(config, logger);
  try {
    const read = async () => ({
      ...(await services.documents.stats()),
      embedder: services.embedder.info,
      extraction: await services.extraction.statusCounts(),
      database: services.db.kind,
      graph: graphPart(await services.graph.stats(0)),
    });
    let report: Awaited<ReturnType<typeof read>>;
    if (space === undefined) report = await read();
    else {
      const id = validateSpaceId(space, '--space');
      if ((await services.spaces.missing([id])).length > 0)
        throw new AppError(ErrorCode.NOT_FOUND, `space "${id}" does not exist (cairn spaces lists them)`, { id });
      // As a query through the server counts it: the space's own knowledge and the spaces it reads.
      report = await runInSpace(id, async () => {
        await services.spaceReads.widen();
        return read();
      });
    }
    process.stdout.write(json ? `${JSON.stringify(report)}\n` : formatStats(report));
    return 0;
  } finally {
    await services.close();
  }
}
