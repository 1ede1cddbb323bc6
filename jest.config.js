/**
 * Jest runs the TypeScript sources as native ESM through SWC, in four projects:
 * - `parallel`: unit tests and integration suites whose databases are their own (a PGlite folder or a Postgres
 *   database each), run on every core;
 * - `neo4j`: suites sharing the one Neo4j server (Neo4j Community has one database, which they wipe, and faults.neo4j
 *   kills it), one at a time; nothing else touches that server, so this project runs beside `parallel`;
 * - `browser`: the admin pages in headless chromium, one at a time, after `neo4j` and beside `parallel`;
 * - `timed`: suites that measure time (the explorer's frame budget, pgliteFairness), one at a time, alone, after the
 *   others.
 * Split suites run against several stores, Neo4j among them: `parallel` runs their runs without Neo4j, `neo4j` their
 * Neo4j runs, chosen by test/helpers/projects.ts from the name each project gives itself in `globals`.
 * `npm test` starts them as separate Jest runs (scripts/jestRuns.mjs), since Jest's worker count is global.
 */
const neo4jSuites = [
  '/test/integration/faults\\.neo4j\\.test\\.ts$',
  '/test/integration/neo4j[A-Za-z]*\\.test\\.ts$',
  // Two Cairn servers on the shared Neo4j, which it wipes first (instancesJobs keeps its graph in Postgres: parallel).
  '/test/integration/multiInstance\\.test\\.ts$',
];
// Frame budgets and PGlite's fairness measure time: they run alone.
const timedSuites = ['/test/browser/explorerPerf\\.test\\.ts$', '/test/integration/pgliteFairness\\.test\\.ts$'];
// The admin pages in headless chromium: one browser at a time, after the neo4j project, beside the parallel one.
const browserSuites = ['/test/browser/[^/]+\\.test\\.ts$'];
export const splitSuites = [
  '/test/integration/audit\\.test\\.ts$',
  '/test/integration/auditCuration\\.test\\.ts$',
  '/test/integration/enrichment\\.test\\.ts$',
  '/test/integration/enrichmentExtractedGraph\\.test\\.ts$',
  '/test/integration/enrichmentGraphFloor\\.test\\.ts$',

  '/test/integration/enrichmentPassages\\.test\\.ts$',
  '/test/integration/enrichRoundTrips\\.test\\.ts$',
  '/test/integration/graphEvidence\\.test\\.ts$',
  '/test/integration/graphProvenance\\.test\\.ts$',
  '/test/integration/graph\\.test\\.ts$',
  '/test/integration/graphStore\\.contract\\.test\\.ts$',
  '/test/integration/openapiLinking\\.test\\.ts$',
  '/test/integration/spaces\\.test\\.ts$',
  '/test/integration/spacesAttacker\\.test\\.ts$',
  '/test/integration/spacesAttackerWork\\.test\\.ts$',
  '/test/integration/spacesDeletion\\.test\\.ts$',
  '/test/integration/spacesExtraction\\.test\\.ts$',
  '/test/integration/spacesProperty\\.test\\.ts$',
  '/test/integration/spacesReads\\.test\\.ts$',
];
// Without a Neo4j server the split suites have no `neo4j` share (test/helpers/graphStores.ts says so once).
const neo4jShare = process.env.CAIRN_TEST_NEO4J_URI ? splitSuites : [];

const shared = {
  roots: ['<rootDir>/test'],
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'es6' } },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};

export default {
  // A bound on a hang, not a measure of speed: a CLI spawn or a PGlite start-up takes a minute at load 20 on 2 cores.
  testTimeout: 120000,
  // A worker's heap grows with every suite it runs (Jest's ESM module registries are never all freed, jestjs/jest
  // #14605), and cheap suites late in a long-lived worker cost many times their CPU alone, collecting garbage: a worker
  // past this much heap after a suite is replaced by a fresh one, for a fraction of a second of CPU. Jest then runs
  // even a one-worker project in a worker process rather than in its own.
  workerIdleMemoryLimit: '512MB',
  // Builds the migrated template databases suites copy and the compiled CLI they run (see the file).
  globalSetup: '<rootDir>/test/globalSetup.mjs',
  // Slowest suites first, on a clean clone too (see the file).
  testSequencer: '<rootDir>/test/sequencer.mjs',
  projects: [
    {
      ...shared,
      displayName: 'parallel',
      globals: { CAIRN_TEST_PROJECT: 'parallel' },
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...neo4jSuites, ...timedSuites, ...browserSuites],
    },
    {
      ...shared,
      displayName: 'neo4j',
      globals: { CAIRN_TEST_PROJECT: 'neo4j' },
      testRegex: [...neo4jSuites, ...neo4jShare],
    },
    {
      ...shared,
      displayName: 'browser',
      globals: { CAIRN_TEST_PROJECT: 'browser' },
      testRegex: browserSuites,
      testPathIgnorePatterns: ['/node_modules/', ...timedSuites],
    },
    {
      ...shared,
      displayName: 'timed',
      globals: { CAIRN_TEST_PROJECT: 'timed' },
      testRegex: timedSuites,
    },
  ],
};
