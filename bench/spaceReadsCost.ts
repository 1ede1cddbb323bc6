// `npx tsx bench/spaceReadsCost.ts` (PGlite in CAIRN_DATA_DIR, or the server of CAIRN_DATABASE_URL): what declaring a
// space readable by another costs a query. Every GraphQL query and reading MCP tool reads its space's declarations
// once (SpaceReads.readsOf) before it runs; this times that statement against enrichContext in the same run, in a
// space that reads another (200 documents each), with and without the widening. Figures go to bench/RESULTS.md by hand.
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { runInSpace } from '../src/db/spaceScope.js';
import { createLogger } from '../src/logger.js';
import { createServices } from '../src/services.js';

const DOCUMENTS = 200;
const config = loadConfig({ ...process.env, CAIRN_EMBEDDING_PROVIDER: 'hashing' });
const services = await createServices(config, createLogger('silent'), { importQueue: false });

/** Mean milliseconds of `fn` over `n` calls, after 20 to warm up. */
async function time(n: number, fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20; i++) await fn();
  const start = performance.now();
  for (let i = 0; i < n; i++) await fn();
  return (performance.now() - start) / n;
}

try {
  for (const id of ['team', 'shared'])
    if ((await services.spaces.missing([id])).length) await services.spaces.create({ id });
  await services.spaceReads.allow({ space: 'team', reads: 'shared' });
  for (const space of ['team', 'shared'])
    await runInSpace(space, async () => {
      for (let i = 0; i < DOCUMENTS; i++)
        await services.documents.create({
          title: `Doc ${space} ${i}`,
          content: `Service ${i} of ${space} depends on cache ${i % 17} and router ${i % 13}. It rotates keys weekly.`,
          documentType: 'other',
          source: null,
          tags: [],
          metadata: {},
          expiresAt: null,
        });
    });
  const enrich = (widen: boolean) => () =>
    runInSpace('team', async () => {
      if (widen) await services.spaceReads.widen();
      return services.enricher.enrich({ query: 'Which router does service 12 depend on?' });
    });
  const rows: string[] = [];
  for (let round = 1; round <= 3; round++) {
    const readsOf = await time(500, () => services.spaceReads.readsOf('team'));
    const own = await time(100, enrich(false));
    const widened = await time(100, enrich(true));
    rows.push(
      `round ${round}: readsOf ${readsOf.toFixed(3)} ms, enrichContext own ${own.toFixed(1)} ms, widened ${widened.toFixed(1)} ms`,
    );
  }
  process.stdout.write(`${config.databaseUrl ? 'postgres' : 'pglite'}\n${rows.join('\n')}\n`);
} finally {
  await services.close();
}
