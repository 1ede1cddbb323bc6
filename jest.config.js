/** Jest runs the TypeScript sources as native ESM through SWC. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'es6' } }],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60000,
  // Migrated template databases, built once per schema and copied by each suite (test/helpers/templates.ts).
  globalSetup: '<rootDir>/test/globalSetup.mjs',
  // One worker: suites share one Neo4j server, and PGlite work is CPU-bound anyway.
  maxWorkers: 1,
};
