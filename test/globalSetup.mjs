import { build } from 'esbuild';
import { tsImport } from 'tsx/esm/api';

/**
 * Once per Jest run: builds the migrated template databases that suites copy (helpers/templates.ts), and compiles the
 * CLI's sources to JavaScript (one file per source, as `npm run build` does) so the suites' CLI processes start
 * without compiling TypeScript each time (helpers/cli.ts).
 */
export default async function globalSetup(globalConfig) {
  // scripts/jestRuns.mjs prepares once for its concurrent Jest runs: a second build would rewrite files in use.
  if (process.env.CAIRN_TEST_PREPARED === '1') return;
  await build({
    absWorkingDir: globalConfig.rootDir,
    entryPoints: ['src/**/*.ts', 'importers/**/*.ts'],
    outdir: '.cairn/test-cli',
    outbase: '.',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  // Jest would compile this file to CommonJS, which the ESM sources cannot load: tsx imports them natively.
  const templates = await tsImport('./helpers/templates.ts', import.meta.url);
  await templates.ensurePgliteTemplate();
  const serverUrl = process.env.CAIRN_TEST_DATABASE_URL;
  if (serverUrl) await templates.ensurePostgresTemplate(serverUrl);
}
