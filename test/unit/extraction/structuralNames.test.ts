import { describe, expect, it } from '@jest/globals';
import { isSpecificName, splitDisambiguator } from '../../../src/extraction/structural/names.js';
import { pageCandidate, typeOfTitle } from '../../../src/extraction/structural/page.js';

describe('isSpecificName', () => {
  it.each([
    'Features',
    'Overview',
    'Getting Started',
    'Troubleshooting',
    'Introduction',
    'FAQ',
    'Guide',
    'Server Options',
    'Using Plugins',
    'Building for Production',
    'Deploying a Static Site',
    'Static Asset Handling',
    'Request',
    'Breaking Changes',
    'Meet the Team',
    'Dep Optimization Options',
    'Configuration',
    'API',
    'the Guide',
    'x',
    '',
  ])('"%s" is generic', (name) => {
    expect(isSpecificName(name)).toBe(false);
  });

  it.each([
    'Vite',
    'Hot Module Replacement',
    'Kiss and Tell',
    'Kiss and Tell (1945 film)',
    'Shirley Temple',
    'HMR',
    'HMR API',
    'Server-Side Rendering (SSR)',
    'JavaScript API',
    'WebAssembly',
    'server.port',
    'defineConfig()',
    'import.meta.glob',
    'transformIndexHtml',
    'VITE_API_URL',
    '@vitejs/plugin-react',
    '--force',
    'Announcing Vite 5',
    'Environment API',
    'Plugin API',
    "Cloudflare supports Vite's mission",
    'Kiss and tell',
  ])('"%s" is specific', (name) => {
    expect(isSpecificName(name)).toBe(true);
  });

  it('does not let a disambiguator make a generic heading specific', () => {
    expect(isSpecificName('Features (overview)')).toBe(false);
  });
});

describe('splitDisambiguator', () => {
  it('splits a trailing parenthesised note and keeps other names whole', () => {
    expect(splitDisambiguator('Kiss and Tell (1945 film)')).toEqual({ bare: 'Kiss and Tell', note: '1945 film' });
    expect(splitDisambiguator('Kiss and Tell')).toBeUndefined();
    expect(splitDisambiguator('(film)')).toBeUndefined();
  });
});

describe('typeOfTitle', () => {
  it.each([
    ['HMR API', 'Api'],
    ['Environment API for Plugins', 'Topic'],
    ['JavaScript API', 'Api'],
    ['Command Line Interface', 'Tool'],
    ['Vite CLI', 'Tool'],
    ['Kiss and Tell (1945 film)', 'Film'],
    ['Kiss and Tell (song)', 'Song'],
    ['Shirley Temple (actress)', 'Person'],
    ['Server-Side Rendering (SSR)', 'Topic'],
    ['`server.port`', 'ConfigOption'],
    ['@vitejs/plugin-react', 'Package'],
    ['Legacy Plugin', 'Plugin'],
    ['Features', 'Topic'],
  ])('%s → %s', (title, type) => {
    expect(typeOfTitle(title)).toBe(type);
  });
});

describe('pageCandidate', () => {
  it('keeps the disambiguator in the name and gives the bare form as an alias', () => {
    const page = pageCandidate('Kiss and Tell (1945 film)', 'Kiss and Tell is a 1945 American comedy film.');
    expect(page).toEqual({
      name: 'Kiss and Tell (1945 film)',
      type: 'Film',
      aliases: ['Kiss and Tell'],
      kind: 'page',
      quote: 'Kiss and Tell is a 1945 American comedy film.',
      confidence: 0.95,
    });
  });

  it('gives an acronym in parentheses as an alias too', () => {
    expect(pageCandidate('Server-Side Rendering (SSR)', '# Server-Side Rendering (SSR)\n\n...')?.aliases).toEqual([
      'Server-Side Rendering',
      'SSR',
    ]);
  });

  it('quotes the heading that names the title, else the first line', () => {
    expect(pageCandidate('Features', 'Intro line.\n# Features\nMore.')?.quote).toBe('# Features');
    expect(pageCandidate('Why Vite', '\n\nThe problems.\nMore.')?.quote).toBe('The problems.');
  });

  it('has no candidate for a title without letters or digits', () => {
    expect(pageCandidate(' -- ', 'text')).toBeUndefined();
  });
});
