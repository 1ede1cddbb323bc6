import { tsImport } from 'tsx/esm/api';

/** Builds the migrated template databases once, before any worker copies them (see helpers/templates.ts). */
export default async function globalSetup() {
  // Jest would compile this file to CommonJS, which the ESM sources cannot load: tsx imports them natively.
  const templates = await tsImport('./helpers/templates.ts', import.meta.url);
  await templates.ensurePgliteTemplate();
  const serverUrl = process.env.CAIRN_TEST_DATABASE_URL;
  if (serverUrl) await templates.ensurePostgresTemplate(serverUrl);
}
