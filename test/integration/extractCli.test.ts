import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { extractWith, parseExtractRequest, type ExtractCommandOptions } from '../../src/cli/extractCommand.js';
import { extractInSpaces } from '../../src/cli/extractSpaces.js';
import { recordServerUrl } from '../../src/db/dataDirLock.js';
import { runInSpace } from '../../src/db/spaceScope.js';
import { runCliInProcess } from '../helpers/cli.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { dbTargets, edgeTarget, type ScratchDatabase } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';
import { WordExtractor } from '../helpers/wordExtractor.js';

// `cairn extract`: usage errors, the job through a running server's API (the server of this test holds the PGlite
// folder and recorded its URL, as `cairn serve` does), and the same job run in process on services given to it.

const options = (given: Partial<ExtractCommandOptions>): ExtractCommandOptions => ({
  all: false,
  documents: [],
  type: undefined,
  tags: [],
  extractors: undefined,
  dryRun: false,
  json: false,
  ...given,
});

describe('cairn extract', () => {
  let t: TestServer;
  let extractor: WordExtractor | undefined;
  let env: Record<string, string>;
  beforeAll(async () => {
    const [pglite] = dbTargets();
    t = await startTestServer(pglite!, { CAIRN_EXTRACTION_LLM_MODEL: 'stub-model' }, undefined, undefined, undefined, {
      documentExtractor: ({ documents }) => (extractor = new WordExtractor(documents)),
    });
    recordServerUrl(path.join(t.config.dataDir, 'pglite'), t.server.url);
    env = { CAIRN_DATA_DIR: t.config.dataDir, CAIRN_EMBEDDING_PROVIDER: 'hashing' };
    const docs = [
      { id: 'c-1', title: 'One', content: 'Alice met Bob.', tags: ['guide'], documentType: 'TUTORIAL' },
      { id: 'c-2', title: 'Two', content: 'Carol met Dan.\n\nDan met Erin.', tags: ['ref'] },
    ];
    const res = await t.gql('mutation($d: [CreateDocumentInput!]!) { upsertDocuments(input: $d) { chunkCount } }', {
      d: docs,
    });
    expect(res.errors).toBeUndefined();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('reports usage errors in the style of the other commands', async () => {
    const cases: [string[], RegExp][] = [
      [['extract'], /give exactly one of --all, --document <id>… and --type\/--tag/],
      [['extract', '--all', '--document', 'c-1'], /give exactly one of/],
      [['extract', '--all', '--extractors', 'structural,magic'], /--extractors: unknown extractor "magic"/],
      [['extract', '--type', 'novel'], /--type: must be one of manual, tutorial/],
      [['extract', 'c-1'], /extract takes no arguments/],
    ];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-extract-usage-'));
    try {
      for (const [args, message] of cases) {
        const res = await runCliInProcess(args, { CAIRN_DATA_DIR: dir });
        expect({ args, code: res.code }).toEqual({ args, code: 2 });
        expect(res.stderr).toMatch(message);
        expect(res.stderr).toMatch(/Run `cairn --help` for usage\./);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs through the running server with a progress line and a summary', async () => {
    const res = await runCliInProcess(['extract', '--all', '--extractors', 'structural,offline'], env);
    expect(res.stderr).toContain('working through its API');
    expect(res.stderr).toMatch(/2\/2 documents \(100%\)/);
    // Capitalised words of the contents: c-1 Alice, Bob (1 pair); c-2 Carol, Dan, Erin (2 pairs).
    expect(res.stderr).toMatch(/SUCCEEDED: 2 documents, 5 entities, 3 relationships, 0 failed, 0 tokens \(job /);
    expect(res.code).toBe(0);

    const dry = await runCliInProcess(['extract', '--tag', 'ref', '--extractors', 'llm', '--dry-run', '--json'], env);
    expect(dry.code).toBe(0);
    const summary = JSON.parse(dry.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(summary).toMatchObject({
      event: 'summary',
      status: 'SUCCEEDED',
      documents: 1,
      tokens: 0,
      estimate: { documents: 1, chunks: 2, estimatedCostUsd: null },
    });
    expect(extractor!.requests).toBe(0);
  });

  it('runs in the space --space names, through the server too', async () => {
    await t.services.spaces.create({ id: 'gamma' });
    await runInSpace('gamma', () =>
      t.services.documents.create({ id: 'g-1', title: 'Gamma', content: 'Frank met Grace.' }),
    );
    const res = await runCliInProcess(['extract', '--all', '--space', 'gamma', '--extractors', 'offline'], env);
    expect(res.stderr).toMatch(/SUCCEEDED: 1 documents, 2 entities, 1 relationships/);
    expect(res.code).toBe(0);
    const wrong = await runCliInProcess(['extract', '--all', '--space', 'nowhere'], env);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/nowhere/);
  });

  it('gives a source its extractors with sources add --extractors', async () => {
    const args = ['sources', 'add', 'spec', '--kind', 'openapi', '--url', 'https://example.com/openapi.json'];
    const added = await runCliInProcess([...args, '--extractors', 'structural,offline'], env);
    expect(added.code).toBe(0);
    const read = await t.gql<{ source: { extractors: string[] | null } }>('{ source(id: "spec") { extractors } }');
    expect(read.data!.source.extractors).toEqual(['STRUCTURAL', 'OFFLINE']);
    const bad = await runCliInProcess(['sources', 'add', 'spec-2', ...args.slice(3), '--extractors', 'nlp'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--extractors: unknown extractor "nlp"/);
  });

  it('runs in process on the services it is given', async () => {
    const report = await extractWith(
      t.services,
      parseExtractRequest([], options({ documents: ['c-2'], extractors: 'llm' })),
      true,
    );
    expect(report).toMatchObject({ status: 'SUCCEEDED', documents: 1, failed: 0, summary: { done: 1, entities: 3 } });
    expect(report.tokens).toBeGreaterThan(0);
    expect(extractor!.requests).toBe(2);
  });
});

// The job on the product's own extractors, with the documents queued by their writes and no worker running (as after
// `cairn import dir`): what it extracted is each document's recorded state, which its summary and `cairn stats` read.
describe('cairn extract with the default extractors', () => {
  let scratch: ScratchDatabase;
  let s: Services;
  beforeAll(async () => {
    scratch = await edgeTarget().createDatabase();
    const config = loadConfig({
      ...scratch.env,
      CAIRN_EMBEDDING_PROVIDER: 'hashing',
      CAIRN_EXTRACTION_EXTRACTORS: 'structural,offline',
    });
    s = await createServices(config, silentLogger(), { importQueue: false });
    await s.documents.create({
      id: 'vite-config',
      title: 'Vite config',
      content: 'Use `server.port` to set the port. The `build.outDir` option sets the output folder.',
    });
    await s.documents.create({
      id: 'vite-plugins',
      title: 'Plugins',
      content: 'A plugin uses the `configResolved` hook. Rollup plugins work in Vite.',
    });
  });
  afterAll(async () => {
    await s?.close();
    await scratch?.drop();
  });

  it('records every document as extracted, with the entities and relationships it supports', async () => {
    expect((await s.extraction.summary(['vite-config', 'vite-plugins'])).pending).toBe(2);
    const report = await extractWith(s, parseExtractRequest([], options({ all: true })), true);
    expect(report).toMatchObject({ status: 'SUCCEEDED', documents: 2, failed: 0 });
    expect(report.summary).toMatchObject({ pending: 0, running: 0, done: 2, failed: 0 });
    expect(report.summary!.entities).toBeGreaterThan(0);
    const again = await extractWith(s, parseExtractRequest([], options({ all: true })), true);
    expect(again.summary).toEqual(report.summary);
  });

  it('extracts every space’s documents into their own spaces, or one space’s with --space', async () => {
    await s.spaces.create({ id: 'beta' });
    const page = { title: 'Server Side Rendering', content: 'Pages rendered on the server.' };
    await runInSpace('beta', () => s.documents.create({ id: 'beta-ssr', ...page }));
    const all = await extractInSpaces(s, parseExtractRequest([], options({ all: true })), true);
    expect(all.map((r) => [r.space, r.report.status, r.report.documents])).toEqual([
      ['beta', 'SUCCEEDED', 1],
      ['default', 'SUCCEEDED', 2],
    ]);
    const inBeta = (await runInSpace('beta', () => s.graph.entitiesByIds(['x@beta:topic:server-side-rendering'])))[0];
    expect(inBeta?.name).toBe('Server Side Rendering');
    expect(await s.graph.entitiesByIds(['x:topic:server-side-rendering'])).toEqual([]);

    // By id, each document in its own space; --space keeps to one; ids no space holds change nothing.
    const byId = parseExtractRequest([], options({ documents: ['beta-ssr', 'vite-config'] }));
    expect((await extractInSpaces(s, byId, true)).map((r) => [r.space, r.report.documents])).toEqual([
      ['beta', 1],
      ['default', 1],
    ]);
    const one = await extractInSpaces(s, parseExtractRequest([], options({ all: true })), true, 'beta');
    expect(one.map((r) => [r.space, r.report.documents])).toEqual([['beta', 1]]);
    const missing = parseExtractRequest([], options({ documents: ['beta-ssr', 'nowhere'] }));
    await expect(extractInSpaces(s, missing, true)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(extractInSpaces(s, byId, true, 'gamma')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
