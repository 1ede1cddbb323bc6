import { describe, expect, it } from '@jest/globals';
import { classifyCode } from '../../../src/extraction/structural/classifyCode.js';
import { configKeys } from '../../../src/extraction/structural/configKeys.js';
import { CandidateSet, extractIdentifiers } from '../../../src/extraction/structural/identifiers.js';
import { scanChunk } from '../../../src/extraction/structural/markdown.js';

/** name → type of the identifiers of a markdown text. */
function identifiers(markdown: string): Record<string, string> {
  const set = new CandidateSet();
  extractIdentifiers(scanChunk(markdown), set);
  return Object.fromEntries(set.values().map((c) => [c.name, c.type]));
}

describe('classifyCode: inline code by its shape', () => {
  it.each([
    ['defineConfig()', 'defineConfig', 'Function'],
    ['server.listen()', 'server.listen', 'Function'],
    ['import.meta.glob', 'import.meta.glob', 'Api'],
    ['server.port', 'server.port', 'ConfigOption'],
    ['build.rollupOptions.input', 'build.rollupOptions.input', 'ConfigOption'],
    ['--force', '--force', 'CliFlag'],
    ['VITE_API_URL', 'VITE_API_URL', 'EnvVariable'],
    ['NODE_ENV', 'NODE_ENV', 'EnvVariable'],
    ['import.meta.env.VITE_SOME_KEY', 'VITE_SOME_KEY', 'EnvVariable'],
    ['@vitejs/plugin-react', '@vitejs/plugin-react', 'Package'],
    ['vite-plugin-checker', 'vite-plugin-checker', 'Package'],
    ['vite build', 'vite build', 'Command'],
    ['npm run dev', 'npm run dev', 'Command'],
    ['ViteDevServer', 'ViteDevServer', 'Type'],
    ['isolatedModules', 'isolatedModules', 'Identifier'],
  ])('%s → %s (%s)', (code, name, type) => {
    expect(classifyCode(code)[0]).toMatchObject({ name, type });
  });

  it.each([
    'true',
    'false',
    '3000',
    "'localhost'",
    'string | boolean',
    'vite.config.js',
    'package.json',
    './src/main.ts',
    '/node_modules/.vite/deps/my-dep.js',
    'node_modules',
    'js',
    'import',
    'const',
    'example.com',
    'vite.dev',
    'host: true',
    'export default',
    'url()',
    'base',
    'Vite',
  ])('%s is no identifier', (code) => {
    expect(classifyCode(code)).toEqual([]);
  });

  it('gives a command its flags', () => {
    expect(classifyCode('vite build --watch --mode staging').map((c) => `${c.name}:${c.type}`)).toEqual([
      'vite build:Command',
      '--watch:CliFlag',
      '--mode:CliFlag',
    ]);
  });

  it('lets a context word type a plain identifier, but not against its shape', () => {
    expect(classifyCode('configureServer', 'Hook')[0]).toMatchObject({ type: 'Hook' });
    expect(classifyCode('base', 'ConfigOption')[0]).toMatchObject({ type: 'ConfigOption' });
    expect(classifyCode('prod', 'CliFlag')).toEqual([]);
    expect(classifyCode('vite', 'Type')).toEqual([]);
  });
});

describe('extractIdentifiers on Vite-style pages', () => {
  it('types inline code by the word after it, for a whole list', () => {
    const found = identifiers(
      'Vite plugins can also provide hooks that serve Vite-specific purposes. The `configureServer`, ' +
        '`transformIndexHtml` and `handleHotUpdate` hooks run in dev only; pass `--port 3000` or set the ' +
        '`server.port` option. The `base` option sets the public path.',
    );
    expect(found).toEqual({
      configureServer: 'Hook',
      transformIndexHtml: 'Hook',
      handleHotUpdate: 'Hook',
      '--port': 'CliFlag',
      'server.port': 'ConfigOption',
      base: 'ConfigOption',
    });
  });

  it('reads identifier headings, typed by their parent heading or their fields', () => {
    const found = identifiers(
      [
        '## Vite Specific Hooks',
        '',
        '### `configResolved`',
        '',
        '- **Type:** `(config: ResolvedConfig) => void | Promise<void>`',
        '- **Kind:** `async`, `sequential`',
        '',
        '# Server Options',
        '',
        '## server.host',
        '',
        '- **Type:** `string | boolean`',
        '',
        '## root',
        '',
        '- **Type:** `string`',
        '- **Default:** `process.cwd()`',
      ].join('\n'),
    );
    expect(found).toMatchObject({
      configResolved: 'Hook',
      'server.host': 'ConfigOption',
      root: 'ConfigOption',
      'process.cwd': 'Function',
    });
    expect(found).not.toHaveProperty('async');
  });

  it('takes from code blocks only imported packages, config keys, env variables and shell commands', () => {
    const found = identifiers(
      [
        'Install the plugin and add it to `plugins`:',
        '',
        '```bash',
        '$ npm add -D @vitejs/plugin-legacy',
        'npx vite build --emptyOutDir',
        '```',
        '',
        '```js [vite.config.js]',
        "import legacy from '@vitejs/plugin-legacy'",
        "import { defineConfig } from 'vite'",
        "import { helper } from './helper.js'",
        '',
        'export default defineConfig({',
        '  plugins: [legacy({ targets: ["defaults"] })],',
        '  server: { port: 3000, proxy: { api: "http://localhost:8080" } },',
        '  build: {',
        '    // rollupOptions: { nope: 1 }',
        '    rollupOptions: { input: { main: "index.html" } },',
        '  },',
        '  define: { __APP_VERSION__: JSON.stringify(process.env.npm_package_version) },',
        '})',
        'const url = import.meta.env.VITE_API_URL',
        '```',
        '',
        '```',
        'VITE_SOME_KEY=123',
        'DB_PASSWORD=foobar',
        '```',
      ].join('\n'),
    );
    expect(found).toEqual({
      plugins: 'ConfigOption',
      'npm add': 'Command',
      'npx vite': 'Command',
      '--emptyOutDir': 'CliFlag',
      '@vitejs/plugin-legacy': 'Package',
      vite: 'Package',
      'server.port': 'ConfigOption',
      'server.proxy': 'ConfigOption',
      'build.rollupOptions': 'ConfigOption',
      'build.rollupOptions.input': 'ConfigOption',
      VITE_API_URL: 'EnvVariable',
      VITE_SOME_KEY: 'EnvVariable',
      DB_PASSWORD: 'EnvVariable',
    });
  });

  it('types a heading followed by its signature as a function, and members of passed objects as properties', () => {
    const found = identifiers(
      [
        '## `createServer`',
        '',
        '**Type Signature:**',
        '',
        '```ts',
        'async function createServer(inlineConfig?: InlineConfig): Promise<ViteDevServer>',
        '```',
        '',
        'Read `environment.moduleGraph` or `req.url`, not `server.port`.',
      ].join('\n'),
    );
    expect(found).toEqual({
      createServer: 'Function',
      'environment.moduleGraph': 'Property',
      'req.url': 'Property',
      'server.port': 'ConfigOption',
    });
  });

  it('reads a VitePress fence titled [.env] as env lines', () => {
    expect(identifiers(['```[.env]', 'VITE_SOME_KEY=123', '```'].join('\n'))).toEqual({ VITE_SOME_KEY: 'EnvVariable' });
  });

  it('treats the text before an unmatched closing fence as code (a chunk starting inside a block)', () => {
    const found = identifiers(
      ['  server: { port: 3000 },', '  notAKey: someValue,', '```', '', 'Set `server.open`.'].join('\n'),
    );
    expect(found).toEqual({ 'server.open': 'ConfigOption' });
  });

  it('quotes the line of each identifier, at most 200 characters', () => {
    const set = new CandidateSet();
    const long = `${'word '.repeat(60)}the \`server.port\` option ${'more '.repeat(60)}`;
    extractIdentifiers(scanChunk(long), set);
    const [candidate] = set.values();
    expect(candidate?.quote.length).toBeLessThanOrEqual(200);
    expect(candidate?.quote).toContain('`server.port` option');
    expect(long).toContain(candidate?.quote ?? '-');
  });
});

describe('configKeys', () => {
  it('gives dotted paths of object keys, skipping calls, arrays, strings, comments and user maps', () => {
    const keys = configKeys(
      [
        'export default defineConfig(({ mode }) => ({',
        "  base: '/app/',",
        '  css: { modules: { localsConvention: "camelCase" } },',
        '  plugins: [react({ babel: { plugins: [] } })],',
        "  resolve: { alias: { '@': '/src', utils: '/src/utils' } },",
        '  /* server: { port: 1 } */',
        "  label: 'a: b',",
        '}))',
      ].join('\n'),
    ).map((k) => k.path);
    expect(keys).toEqual([
      'base',
      'css',
      'css.modules',
      'css.modules.localsConvention',
      'plugins',
      'resolve',
      'resolve.alias',
      'label',
    ]);
  });

  it('finds nothing outside a config object', () => {
    expect(configKeys('const options = { port: 3000 }\nfoo({ a: 1 })')).toEqual([]);
  });
});
