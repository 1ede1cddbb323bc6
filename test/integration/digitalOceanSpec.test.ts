import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SafeFetcher } from '../../importers/http/SafeFetcher.js';
import { createSafeFetcher } from '../../importers/http/safeFetch.js';
import { planOpenApi } from '../../importers/pipeline/planSources.js';
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { edgeTarget, type DbTarget } from '../helpers/databases.js';
import { startFixtureSite, startFolderSite, type FixtureSite } from '../helpers/fixtureSite.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

// DigitalOcean's public spec: 2,907 files joined by ~9,500 relative $refs, 659 operations, 22,000 chunks. Its imports are
// planned, not written: the store is not what is under test. The small spec's imports write to one database, the real
// Postgres server when there is one, else PGlite.
const SPEC_FOLDER = fileURLToPath(new URL('../../../shared/data/openapi/digitalocean/specification/', import.meta.url));
const SPEC_FILE = 'DigitalOcean-public.v2.yaml';
const OPERATIONS = 659;
// Small vectors: embeddings are not under test.
const DIMENSIONS = 64;

const IMPORT_OPENAPI = `mutation($input: ImportOpenApiInput!) {
  importOpenApi(input: $input) { warnings documents { id } job { status errors { item code message } } }
}`;
type ImportResult = {
  importOpenApi: {
    warnings: string[];
    documents: { id: string }[];
    job: { status: string; errors: { item: string; code: string; message: string }[] };
  };
};

const store: DbTarget = edgeTarget();

const operationIds = (ids: string[], specId: string) => ids.filter((id) => id.startsWith(`openapi:${specId}:`));

describe('a spec of thousands of files (DigitalOcean)', () => {
  let specs: FixtureSite;
  let small: FixtureSite;
  let t: TestServer;
  beforeAll(async () => {
    specs = await startFolderSite(SPEC_FOLDER);
    small = await startFixtureSite({
      '/api.yaml': {
        type: 'application/yaml',
        body: "openapi: 3.0.3\ninfo: {title: Partial, version: '1'}\npaths:\n  /ok:\n    get:\n      operationId: ok\n      responses: {'200': {description: ok}}\n  /gone:\n    get:\n      operationId: gone\n      responses:\n        '200': {$ref: 'responses/gone.yaml'}\n",
      },
    });
    // Each allow-list entry names its port: the servers' other ports stay blocked.
    t = await startTestServer(
      store,
      {
        CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: `${new URL(specs.url).host},${new URL(small.url).host}`,
        CAIRN_RATE_LIMIT_PER_SECOND: '0',
      },
      new HashingEmbeddingProvider({ dimensions: DIMENSIONS }),
    );
  });
  afterAll(async () => {
    await t?.close();
    await specs?.close();
    await small?.close();
  });

  // Fetching is what a spec of thousands of files strains: this plans a URL import with the fetcher the server builds
  // from its settings, at the default limits. Writing a plan is the same for any spec (the small import below and the
  // importer suites write them); 22,000 chunks' writes would prove nothing more here.
  it('plans a URL import within the default limits: every operation, every file fetched once', async () => {
    const started = Date.now();
    const config = loadConfig({ CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: new URL(specs.url).host }).import;
    const plan = await planOpenApi(
      { url: `${specs.url}/${SPEC_FILE}`, specId: 'do', tags: [] },
      { fetcher: createSafeFetcher(config), config },
    );
    expect(plan.spec?.operationDocumentIds).toHaveLength(OPERATIONS);
    expect(
      operationIds(
        plan.documents.map((d) => d.id),
        'do',
      ),
    ).toHaveLength(OPERATIONS);
    const fetched = [...specs.hits.keys()].filter((p) => p !== `/${SPEC_FILE}`);
    expect(fetched.length).toBeGreaterThan(2000);
    expect([...specs.hits.values()].every((n) => n === 1)).toBe(true);
    console.log(`DigitalOcean by URL (planned): ${fetched.length + 1} files, ${Date.now() - started} ms`);
  }, 300_000);

  // The CLI's `import openapi <file>` sends the file's text with its path, and the import plans it with planOpenApi,
  // whose $refs then read the files beside it (importCli's suite runs that CLI path end to end on a small folder).
  // Writing the plan is what the URL import above proves: this plans the disk import only, with the default limits.
  it('plans a disk import (cairn import openapi <file>): every $ref read from disk, every operation', async () => {
    const started = Date.now();
    const file = path.join(SPEC_FOLDER, SPEC_FILE);
    const fetcher: SafeFetcher = {
      fetch: (url: string) => Promise.reject(new Error(`a disk import fetched ${url}`)),
    };
    const plan = await planOpenApi(
      { content: readFileSync(file, 'utf8'), file, specId: 'do', tags: [], source: file },
      { fetcher, config: loadConfig({}).import },
    );
    expect(plan.spec?.operationDocumentIds).toHaveLength(OPERATIONS);
    expect(
      operationIds(
        plan.documents.map((d) => d.id),
        'do',
      ),
    ).toHaveLength(OPERATIONS);
    console.log(`DigitalOcean from disk (planned): ${Date.now() - started} ms`);
  }, 300_000);

  it('names an unresolvable $ref with its JSON pointer; skipUnresolvedRefs imports the rest with a warning', async () => {
    const refused = await t.gql<ImportResult>(IMPORT_OPENAPI, {
      input: { url: `${small.url}/api.yaml`, specId: 'partial' },
    });
    const message = refused.errors?.[0]?.message ?? refused.data?.importOpenApi.job.errors[0]?.message ?? '';
    expect(message).toContain('$ref "responses/gone.yaml" at');
    expect(message).toContain('#/paths/~1gone/get/responses/200');
    expect(message).toContain('HTTP 404');
    const res = await t.gql<ImportResult>(IMPORT_OPENAPI, {
      input: { url: `${small.url}/api.yaml`, specId: 'partial', skipUnresolvedRefs: true },
    });
    expect(res.errors).toBeUndefined();
    expect(
      operationIds(
        res.data!.importOpenApi.documents.map((d) => d.id),
        'partial',
      ).sort(),
    ).toEqual(['openapi:partial:GET%20/gone', 'openapi:partial:GET%20/ok']);
    expect(res.data!.importOpenApi.warnings).toEqual([
      expect.stringMatching(
        /^Skipped \$ref "responses\/gone.yaml" at http:\/\/127\.0\.0\.1:\d+\/api\.yaml#\/paths\/~1gone\/get\/responses\/200: fetch of .* failed: HTTP 404/,
      ),
    ]);
  });
});
