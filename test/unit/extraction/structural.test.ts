import { describe, expect, it } from '@jest/globals';
import { ENTITY_TYPE_PATTERN, RELATIONSHIP_TYPE_PATTERN } from '../../../src/graph/types.js';
import { StructuralExtractor } from '../../../src/extraction/structural/index.js';
import type { ChunkExtraction, ChunkForExtraction, DocumentForExtraction } from '../../../src/extraction/types.js';

const extractor = new StructuralExtractor();

function doc(title: string, tags: string[] = [], source: string | null = 'guide/features.md'): DocumentForExtraction {
  return { id: 'file:guide/features.md', title, documentType: 'guide', source, tags, metadata: {} };
}

function chunks(...contents: string[]): ChunkForExtraction[] {
  return contents.map((content, ordinal) => ({ id: `c${ordinal}`, ordinal, content }));
}

const FEATURES_0 = [
  '# Features',
  '',
  'At the very basic level, developing using Vite is not that different from using a static file server.',
  '',
  '## Hot Module Replacement',
  '',
  'Vite provides an [HMR API](./api-hmr) over native ESM. Hot Module Replacement (HMR) keeps application state.',
  'See [`server.hmr`](/config/server-options#server-hmr) to configure it.',
].join('\n');

const FEATURES_1 = [
  '**Dependencies are Strongly Cached**',
  '',
  '**Pre-bundling**: converting CommonJS and UMD dependencies into ESM before the dev server starts.',
  '- **Type:** `string | boolean`',
  '- **Default:** `false`',
  '**Recommended**: Use WSL2 applications to edit your files.',
  '',
  '```ts',
  "import { defineConfig } from 'vite'",
  'export default defineConfig({ optimizeDeps: { include: ["linked-dep"] } })',
  '```',
].join('\n');

async function extract(document: DocumentForExtraction, input: ChunkForExtraction[]): Promise<ChunkExtraction[]> {
  return extractor.extract(document, input);
}

describe('StructuralExtractor', () => {
  it('is the structural extractor with a versioned fingerprint', () => {
    expect(extractor.name).toBe('structural');
    expect(extractor.fingerprint).toMatch(/^structural@\d+$/);
  });

  it('gives the page, its tags and HAS_TAG in the first chunk only', async () => {
    const [first, second] = await extract(doc('Features', ['guide', 'hmr']), chunks(FEATURES_0, 'Plain prose.'));
    expect(first?.entities.filter((e) => e.kind === 'page')).toEqual([
      { name: 'Features', type: 'Topic', kind: 'page', quote: '# Features', confidence: 0.95 },
    ]);
    expect(first?.entities.filter((e) => e.kind === 'tag').map((e) => [e.name, e.type])).toEqual([
      ['guide', 'Tag'],
      ['hmr', 'Tag'],
    ]);
    expect(first?.relationships.filter((r) => r.type === 'HAS_TAG').map((r) => [r.from, r.to])).toEqual([
      ['Features', 'guide'],
      ['Features', 'hmr'],
    ]);
    expect(second).toEqual({ entities: [], relationships: [], links: [], warnings: [] });
  });

  it('finds links, acronyms and identifiers in the first chunk', async () => {
    const [first] = await extract(doc('Features'), chunks(FEATURES_0));
    expect(first?.links).toEqual([
      { href: './api-hmr', text: 'HMR API' },
      { href: '/config/server-options#server-hmr', text: 'server.hmr' },
    ]);
    const hmr = first?.entities.find((e) => e.name === 'Hot Module Replacement');
    expect(hmr).toMatchObject({ type: 'Concept', kind: 'name', aliases: ['HMR'], confidence: 0.85 });
    expect(first?.entities.find((e) => e.name === 'server.hmr')).toMatchObject({
      type: 'ConfigOption',
      kind: 'identifier',
    });
    // A term defined in the page: the page DEFINES it.
    expect(first?.relationships.filter((r) => r.type === 'DEFINES').map((r) => [r.from, r.to])).toEqual([
      ['Features', 'Hot Module Replacement'],
    ]);
  });

  it('reads bold definitions but not field labels, and names the page in a later chunk that defines terms', async () => {
    const [, second] = await extract(doc('Dependency Pre-Bundling'), chunks('# Dependency Pre-Bundling', FEATURES_1));
    const terms = second?.entities.filter((e) => e.kind === 'name').map((e) => e.name);
    expect(terms).toEqual(['Pre-bundling']);
    expect(second?.entities.find((e) => e.name === 'Pre-bundling')?.description).toBe(
      'converting CommonJS and UMD dependencies into ESM before the dev server starts.',
    );
    expect(second?.entities.find((e) => e.kind === 'page')).toMatchObject({ name: 'Dependency Pre-Bundling' });
    expect(second?.relationships).toEqual([
      expect.objectContaining({ from: 'Dependency Pre-Bundling', to: 'Pre-bundling', type: 'DEFINES' }),
    ]);
    // From a code block: the imported package and the dotted config key; a top-level key only if inline code names it.
    expect(second?.entities.filter((e) => e.kind === 'identifier').map((e) => e.name)).toEqual([
      'vite',
      'optimizeDeps.include',
    ]);
  });

  it('reads definition lists and, on a glossary page, its headings as terms', async () => {
    const [first] = await extract(
      doc('Glossary'),
      chunks(
        [
          '# Glossary',
          '',
          '## Module Graph',
          'The graph of imported modules.',
          '',
          'Dev Server',
          ': The server that serves source files on demand during development.',
          '',
          '- **Module Runner** — executes transformed modules in any JavaScript runtime.',
          '- **Environment Instance** - one environment of the app, e.g. client or ssr.',
        ].join('\n'),
      ),
    );
    const defined = first?.relationships.filter((r) => r.type === 'DEFINES').map((r) => r.to);
    expect(defined?.sort()).toEqual(['Dev Server', 'Environment Instance', 'Module Graph', 'Module Runner']);
  });

  it('reads "ACR (Full Name)" and skips parentheses whose letters do not match', async () => {
    const [first] = await extract(
      doc('SSR'),
      chunks('Use SSR (Server-Side Rendering) for this. The CLI (see below) and ESM (modules) differ.'),
    );
    const names = first?.entities.filter((e) => e.kind === 'name').map((e) => [e.name, e.aliases]);
    expect(names).toEqual([['Server-Side Rendering', ['SSR']]]);
  });

  it('gives a trailing disambiguator as an alias of the page entity', async () => {
    const [first] = await extract(
      doc('Kiss and Tell (1945 film)', [], null),
      chunks('Kiss and Tell is a 1945 American comedy film starring Shirley Temple as Corliss Archer.'),
    );
    expect(first?.entities).toEqual([
      {
        name: 'Kiss and Tell (1945 film)',
        type: 'Film',
        aliases: ['Kiss and Tell'],
        kind: 'page',
        quote: 'Kiss and Tell is a 1945 American comedy film starring Shirley Temple as Corliss Archer.',
        confidence: 0.95,
      },
    ]);
  });

  it('keeps every quote a short slice of its chunk, every type valid, every relationship between candidates', async () => {
    const input = chunks(FEATURES_0, FEATURES_1, `${'long '.repeat(80)}**Long Term**: ${'defined '.repeat(60)}`);
    const results = await extract(doc('Features', ['guide']), input);
    results.forEach((result, i) => {
      const content = input[i]?.content ?? '';
      const names = new Set(result.entities.map((e) => e.name));
      for (const e of result.entities) {
        expect(e.quote.length).toBeLessThanOrEqual(200);
        expect(content).toContain(e.quote);
        expect(e.type).toMatch(ENTITY_TYPE_PATTERN);
        expect(e.confidence).toBeGreaterThan(0);
        expect(e.confidence).toBeLessThanOrEqual(1);
      }
      for (const r of result.relationships) {
        expect(r.type).toMatch(RELATIONSHIP_TYPE_PATTERN);
        expect(names.has(r.from) && names.has(r.to)).toBe(true);
        expect(r.quote.length).toBeLessThanOrEqual(200);
      }
      expect(new Set(result.entities.map((e) => e.name)).size).toBe(result.entities.length);
    });
  });

  it('is deterministic', async () => {
    const input = chunks(FEATURES_0, FEATURES_1);
    expect(await extract(doc('Features', ['a']), input)).toEqual(await extract(doc('Features', ['a']), input));
  });

  it('keys the first chunk on the title and tags, the others on the title', () => {
    const [first, second] = chunks('a', 'b');
    if (!first || !second) throw new Error('two chunks');
    const key = (d: DocumentForExtraction, c: ChunkForExtraction) => extractor.contextKey(d, c);
    expect(key(doc('Features', ['b', 'a']), first)).toBe(key(doc('Features', ['a', 'b']), first));
    expect(key(doc('Features', ['a']), first)).not.toBe(key(doc('Features', ['b']), first));
    expect(key(doc('Features'), first)).not.toBe(key(doc('Overview'), first));
    expect(key(doc('Features', ['a']), second)).toBe(key(doc('Features', ['b']), second));
    expect(key(doc('Features'), second)).not.toBe(key(doc('Overview'), second));
  });
});
