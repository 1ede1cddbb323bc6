import { describe, expect, it } from '@jest/globals';
import { extractOffline } from '../../../src/extraction/offline/offlineExtractor.js';
import { CODE_PLACEHOLDER, toProse } from '../../../src/extraction/offline/proseText.js';

const MARKDOWN = [
  '---',
  'title: Quantum Flux Capacitor',
  'tags: [Marble Arch]',
  '---',
  '# Configuring The Proxy Layer',
  '',
  'Set `Inline Banana Name` to enable module federation; see [the Edge Runtime guide](https://example.com/Hidden/Path)',
  'or https://example.com/Secret_Page for details.',
  '',
  '```ts',
  '// Fenced Walrus Name and hot module replacement',
  'export default defineConfig({ plugins: [GiantPanda()] })',
  '```',
  '',
  '- The **vite.config.ts** file sets the dependency optimizer.',
  '',
  '| Option | Meaning |',
  '| --- | --- |',
  '| `cacheDir` | where the esbuild cache is kept |',
  '',
  '<img class="Tip Box" alt="Hidden Element" src="panda.png">',
  '',
  '::: warning Caveat Emptor',
  'Chunk splitting needs the Rollup bundler.',
  ':::',
].join('\n');

describe('prose of a markdown chunk', () => {
  const prose = toProse(MARKDOWN);

  it('drops front matter, fenced code, URLs, HTML and container markers', () => {
    for (const hidden of ['Quantum', 'Marble', 'Walrus', 'GiantPanda', 'Secret_Page', 'Hidden', 'example.com', ':::']) {
      expect(prose.text).not.toContain(hidden);
    }
  });

  it('keeps link texts and puts every code span behind a placeholder, in order', () => {
    expect(prose.text).toContain('see the Edge Runtime guide');
    // The table cell holding only `cacheDir` has no prose: it is dropped with its code span.
    expect(prose.codes).toEqual(['`Inline Banana Name`', 'vite.config.ts']);
    expect(prose.text.split(CODE_PLACEHOLDER)).toHaveLength(3);
  });

  it('gives one line per heading, paragraph, list item and table cell', () => {
    expect(prose.text.split('\n')).toEqual([
      'configuring the proxy layer',
      `Set ${CODE_PLACEHOLDER} to enable module federation; see the Edge Runtime guide or for details.`,
      `The ${CODE_PLACEHOLDER} file sets the dependency optimizer.`,
      'Option',
      'Meaning',
      'where the esbuild cache is kept',
      'Chunk splitting needs the Rollup bundler.',
    ]);
  });
});

describe('prose of a chunk cut anywhere', () => {
  it('drops the end of front matter a chunk begins inside', () => {
    const chunk = 'escription\n  content: Announcing Quantum Vite\n- - meta\n---\n\nThe module runner starts.';
    expect(toProse(chunk).text).toBe('The module runner starts.');
  });

  it('drops a chunk that is the start of front matter', () => {
    expect(toProse('---\ntitle: Quantum Vite\nhead:\n  - - meta\n    - property: og:title').text).toBe('');
  });

  it('keeps prose before a thematic break', () => {
    expect(toProse('Some prose here.\n\n---\n\nMore prose.').text).toBe('Some prose here.\nMore prose.');
  });

  it('drops the end of a code block a chunk begins inside, and code lines outside fences', () => {
    const chunk = [
      '  server: { port: 3000 },',
      '})',
      '```',
      '',
      'The proxy layer forwards requests.',
      '',
      'const app = express()',
      '  watcher: FSWatcher /**',
      '```js',
      'Walrus Banana()',
    ].join('\n');
    expect(toProse(chunk).text).toBe('The proxy layer forwards requests.');
  });
});

describe('offline extraction of markdown', () => {
  const result = extractOffline(MARKDOWN);
  const found = new Map(result.entities.map((entity) => [entity.name, entity]));

  it('finds names and terms of the prose only', () => {
    expect([...found.keys()]).toEqual(
      expect.arrayContaining(['module federation', 'Edge Runtime', 'dependency optimizer', 'esbuild cache', 'Rollup']),
    );
    for (const name of found.keys()) {
      expect(name).not.toMatch(/Quantum|Marble|Walrus|Panda|Banana|Secret|Hidden|Tip Box|Caveat|config\.ts|hot module/);
    }
  });

  it('takes no title-cased heading as a name', () => {
    expect(found.has('Configuring The Proxy Layer')).toBe(false);
    expect(found.has('The Proxy Layer')).toBe(false);
    expect(found.get('proxy layer')?.kind).toBe('term');
  });

  it('quotes the sentence with its code spans put back', () => {
    expect(found.get('module federation')?.quote).toBe(
      'Set `Inline Banana Name` to enable module federation; see the Edge Runtime guide or for details.',
    );
    expect(found.get('dependency optimizer')?.quote).toBe('The vite.config.ts file sets the dependency optimizer.');
  });
});

describe('offline extraction of text without prose', () => {
  it('finds nothing in empty text, code alone or data', () => {
    for (const text of ['', '   ', '```ts\nconst Walrus = Banana()\n```', '`Walrus Banana`', 'a'.repeat(500)]) {
      expect(extractOffline(text)).toEqual({ entities: [], relationships: [], links: [], warnings: [] });
    }
  });
});
