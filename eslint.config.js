// ESLint over every source tree (`npm run lint`, part of `npm test`); formatting is Prettier's, so
// eslint-config-prettier turns off the rules that would fight it.
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      'src/graphql/generated/**',
      'web/**/generated/**',
      '.cairn/**',
      'data/**',
      'coverage/**',
      'test-artifacts/**',
      'scratch/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // `_` marks a value kept on purpose; a rest sibling is how a field is left out of a copy.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      // One idea per module: a file past 300 lines of code holds more than one.
      'max-lines': ['error', { max: 300, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // A describe block holds a whole suite, so test files are exempt from the function length; a suite of one
    // component's behaviours is one idea however long, so tests are exempt from the file length too.
    files: ['test/**'],
    rules: { 'max-lines-per-function': 'off', 'max-lines': 'off' },
  },
  {
    // A table of settings, one entry per variable: long by nature, and split it would only be harder to scan.
    files: ['src/configSchema.ts'],
    rules: { 'max-lines': 'off' },
  },
  {
    // Benchmarks are measurement scripts run by hand, outside the product; their length is theirs to judge.
    files: ['bench/**'],
    rules: { 'max-lines': 'off' },
  },
  {
    // src/config.ts is the only reader of the environment; everything else receives a typed Config.
    files: ['src/**/*.ts', 'importers/**/*.ts', 'web/**/*.{ts,tsx}'],
    ignores: ['src/config.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        // Also catches `const { env } = process`.
        { object: 'process', property: 'env', message: 'Read settings through src/config.ts (loadConfig).' },
      ],
    },
  },
  {
    // A promise nobody awaits loses its error; one handed to a callback that expects void does too. Type-aware,
    // so scoped to the server code, where such a loss is an unhandled rejection in production.
    files: ['src/**/*.ts', 'importers/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: fileURLToPath(new URL('.', import.meta.url)) },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
