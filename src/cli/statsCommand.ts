import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { createServices } from '../services.js';
import { formatStats, graphPart } from './formatStats.js';

/** `cairn stats` on the store itself: human-readable, or one JSON object with `--json`. */
export async function statsCommand(config: Config, logger: Logger, json: boolean): Promise<number> {
  const services = await createServices(config, logger);
  try {
    const report = {
      ...(await services.documents.stats()),
      embedder: services.embedder.info,
      extraction: await services.extraction.statusCounts(),
      database: services.db.kind,
      graph: graphPart(await services.graph.stats(0)),
    };
    process.stdout.write(json ? `${JSON.stringify(report)}\n` : formatStats(report));
    return 0;
  } finally {
    await services.close();
  }
}
