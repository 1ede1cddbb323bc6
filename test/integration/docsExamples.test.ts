import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { edgeTarget } from '../helpers/databases.js';
import { DocExampleRunner, docBlocks, shuffled, type DocBlock } from '../helpers/docExamples.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

// Every GraphQL operation and curl command the docs show, sent as written to a real server. The blocks run in a
// shuffled order twice, on a fresh store and then on the used one, so no example may depend on another.
const root = path.resolve(import.meta.dirname, '../..');
/**
 * Pages whose examples their own suites run as written, against the servers they need: agents.md (MCP clients,
 * agentsDocs.test.ts) and sources.md (git, sites and subscriptions, the sources suites).
 */
const ownSuites = new Set(['docs/agents.md', 'docs/sources.md']);
const pages = [
  'README.md',
  'CONTRIBUTING.md',
  'bench/README.md',
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`)
    .filter((f) => !ownSuites.has(f)),
];

async function runAll(runner: DocExampleRunner, blocks: DocBlock[]): Promise<string[]> {
  const failures: string[] = [];
  for (const block of blocks) {
    for (const example of block.examples) {
      const failure = await runner.run(example);
      if (failure) failures.push(failure);
    }
  }
  return failures;
}

describe.each([edgeTarget()])('documentation examples on $name', (target) => {
  let server: TestServer;
  const blocks = docBlocks(root, pages);
  beforeAll(async () => {
    // Imports in the examples fetch example.com hosts, which fail fast here and leave their async jobs FAILED.
    // The examples run against the defaults users get, extraction included.
    server = await startTestServer(target, {
      CAIRN_RATE_LIMIT_PER_SECOND: '0',
      CAIRN_IMPORT_TIMEOUT_MS: '2000',
      CAIRN_EXTRACTION_EXTRACTORS: 'structural,offline',
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('finds the examples: GraphQL operations on every API page and the quick start curls', () => {
    const graphql = blocks.flatMap((b) => b.examples).filter((e) => e.kind === 'graphql');
    const curls = blocks.flatMap((b) => b.examples).filter((e) => e.kind === 'curl');
    expect(graphql.length).toBeGreaterThan(30);
    expect(new Set(graphql.map((e) => e.where.split(':')[0]))).toEqual(
      new Set([
        'docs/api.md',
        'docs/audit.md',
        'docs/graph.md',
        'docs/enrichment.md',
        'docs/importing.md',
        'docs/security.md',
      ]),
    );
    expect(curls.filter((e) => e.where.startsWith('README.md'))).toHaveLength(3);
  });

  it('reports an example the server refuses (before any example turns authentication on)', async () => {
    const runner = new DocExampleRunner(server.server.url, root);
    const failure = await runner.run({
      kind: 'graphql',
      where: 'docs/x.md:1',
      query: '{ document(id: "x") { nope } }',
    });
    expect(failure).toMatch(/^docs\/x\.md:1 .*GRAPHQL_VALIDATION_FAILED/);
    // A placeholder id may be unknown (NOT_FOUND), but the operation must still be valid.
    expect(
      await runner.run({
        kind: 'graphql',
        where: 'docs/x.md:2',
        query: 'mutation { resumeImportJob(id: "<job id>") { job { status } } }',
        placeholder: true,
      }),
    ).toBeUndefined();
    expect(
      await runner.run({
        kind: 'graphql',
        where: 'docs/x.md:3',
        query: '{ importJob(id: "<job id>") { nope } }',
        placeholder: true,
      }),
    ).toMatch(/GRAPHQL_VALIDATION_FAILED/);
  });

  it('runs every example without errors in any order, on a fresh and on a used store', async () => {
    const runner = new DocExampleRunner(server.server.url, root);
    expect(await runAll(runner, shuffled(blocks, 1))).toEqual([]);
    expect(await runAll(runner, shuffled(blocks, 2))).toEqual([]);
  });
});
