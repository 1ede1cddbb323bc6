import { describe, expect, it } from '@jest/globals';
import { rejectionKey } from '../../../src/extraction/EvidenceCuration.js';
import { nameKey } from '../../../src/extraction/nameKey.js';
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

  it('keys rejected names as extraction resolves them: no case, accents, punctuation or plural', () => {
    expect(rejectionKey('  Zürich—Straße!  ')).toBe('zurich straße');
    // An identifier keeps its punctuation and a prose name loses its plural, as nameKey has them.
    expect(rejectionKey('server.port')).toBe(nameKey('server.port'));
    expect(rejectionKey('Ledger Services')).toBe(nameKey('ledger service'));
    expect(rejectionKey('ＨＭＲ')).toBe('hmr');
    expect(rejectionKey('Crème Brûlée')).toBe(rejectionKey('creme brulee'));
  });
});
