import { describe, expect, it } from '@jest/globals';
import { rejectionKey } from '../../../src/extraction/EvidenceCuration.js';
import { mergedAliases } from '../../../src/graph/curation/CurationService.js';
import type { EntityRecord } from '../../../src/graph/types.js';

const entity = (name: string, aliases: string[]): EntityRecord => ({
  id: name,
  type: 'Concept',
  name,
  aliases,
  description: null,
  properties: {},
  origin: 'EXTRACTED',
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

describe('curation helpers', () => {
  it('gives the kept entity the merged names once each, case-insensitively, without its own name', () => {
    expect(mergedAliases(entity('Vite', ['vitejs']), entity('vite', ['ViteJS', 'Vite.js', 'VITE']))).toEqual([
      'vitejs',
      'Vite.js',
    ]);
    expect(mergedAliases(entity('HMR', []), entity('Hot Module Replacement', ['hmr']))).toEqual([
      'Hot Module Replacement',
    ]);
  });

  it('keeps at most 50 aliases, its own first', () => {
    const own = Array.from({ length: 45 }, (_, i) => `own ${i}`);
    const merged = Array.from({ length: 10 }, (_, i) => `merged ${i}`);
    const out = mergedAliases(entity('Kept', own), entity('Merged', merged));
    expect(out).toHaveLength(50);
    expect(out.slice(0, 46)).toEqual([...own, 'Merged']);
  });

  it('keys rejected names without case, accents or punctuation', () => {
    expect(rejectionKey('  Zürich—Straße!  ')).toBe('zurich straße');
    expect(rejectionKey('server.port')).toBe('server port');
    expect(rejectionKey('ＨＭＲ')).toBe('hmr');
    expect(rejectionKey('Crème Brûlée')).toBe(rejectionKey('creme brulee'));
  });
});
