/**
 * Jest runs the TypeScript sources as native ESM through SWC, in two projects:
 * - `parallel`: unit tests and integration suites whose databases are their own (a PGlite folder or a Postgres
 *   database each), run on every core;
 * - `serial`: suites sharing one server's state (Neo4j has one database, which they wipe, and faults.neo4j kills it)
 *   or measuring time (the browser pages), run one at a time.
 * `npm test` runs them as two Jest runs (`--selectProjects`), since Jest's worker count is global.
 */
const serialSuites = [
  '<rootDir>/test/browser/**/*.test.ts',
  '<rootDir>/test/integration/enrichment.test.ts',
  '<rootDir>/test/integration/faults.*.test.ts',
  '<rootDir>/test/integration/graph.test.ts',
  '<rootDir>/test/integration/graphStore.contract.test.ts',
  '<rootDir>/test/integration/neo4j*.test.ts',
  '<rootDir>/test/integration/openapiLinking.test.ts',
  '<rootDir>/test/integration/pgliteFairness.test.ts',
];

const shared = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'es6' } }],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};

export default {
  testTimeout: 60000,
  // Migrated template databases, built once per schema and copied by each suite (test/helpers/templates.ts).
  globalSetup: '<rootDir>/test/globalSetup.mjs',
  projects: [
    { ...shared, displayName: 'parallel', testMatch: ['<rootDir>/test/**/*.test.ts', ...serialSuites.map((glob) => `!${glob}`)] },
    { ...shared, displayName: 'serial', testMatch: serialSuites },
  ],
};
