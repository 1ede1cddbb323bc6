import { describe, expect, it } from '@jest/globals';
import { extractOffline } from '../../../src/extraction/offline/offlineExtractor.js';
import type { EntityCandidate } from '../../../src/extraction/types.js';

const found = (text: string, kind: EntityCandidate['kind']): string[] =>
  extractOffline(text)
    .entities.filter((e) => e.kind === kind)
    .map((e) => e.name);

describe('offline extraction: what reads like a name but is not one', () => {
  it('takes no sentence-initial common verb into a name', () => {
    expect(found('Forces ESM interop when importing these dependencies.', 'name')).toEqual([]);
    expect(found('Give Feedback on the new API.', 'name')).toEqual([]);
    // A title joined by "and" stays whole.
    expect(found('Kiss and Tell is a 1945 American comedy film.', 'name')).toContain('Kiss and Tell');
  });

  it('takes nothing from a link cut by the chunk boundary', () => {
    const text = 'Import Guide](/guide/features.html#glob-import):\n\nVite supports Rollup plugins.';
    expect(found(text, 'name')).not.toContain('Import Guide');
    expect(found(text, 'name')).toContain('Rollup');
  });

  it('takes no heading in capitals run into its sentence into a name', () => {
    const abstract =
      'Insulin resistance was measured in 40 patients. METHODS In this cohort, Adam Smith dosed the drug. ' +
      'CONCLUSIONS The Mayo Clinic confirmed it. AIMS AND OBJECTIVES Following the NASA Ames protocol, we went on.';
    const names = found(abstract, 'name');
    expect(names.filter((n) => /METHODS|CONCLUSIONS|AIMS/.test(n))).toEqual([]);
    expect(names).toEqual(expect.arrayContaining(['Adam Smith', 'Mayo Clinic', 'NASA Ames']));
  });

  it('takes no article into a name', () => {
    expect(found('It grew by 5 MB from Rolldown: The Rolldown binary is larger than esbuild.', 'name')).toEqual([
      'Rolldown',
    ]);
  });
});

describe('offline extraction: what reads like a term but is not one', () => {
  it('drops a common adjective before one noun, not inside a longer name', () => {
    const terms = found('We got valuable feedback and lower precedence for hot module replacement.', 'term');
    expect(terms).not.toContain('valuable feedback');
    expect(terms).not.toContain('lower precedence');
    expect(terms).toContain('hot module replacement');
  });

  it('takes no phrase headed by a generic noun for a term', () => {
    const terms = found(
      'On the plugin side, filter the affected module list; plugin authors reported compatibility issues with the module graph.',
      'term',
    );
    for (const generic of ['plugin side', 'affected module list', 'plugin authors', 'compatibility issues'])
      expect(terms).not.toContain(generic);
    expect(terms).toContain('module graph');
  });

  it('takes no two-letter acronym and no lone plural for a term', () => {
    const terms = found('The CI runs on every PR; frameworks use a monorepo and HMR.', 'term');
    for (const vague of ['CI', 'PR', 'frameworks']) expect(terms).not.toContain(vague);
    expect(terms).toEqual(expect.arrayContaining(['monorepo', 'HMR']));
  });

  it('ends no term on a common gerund', () => {
    const terms = found('This can be set via the CLI using `--host` and dependency pre-bundling.', 'term');
    expect(terms).not.toContain('CLI using');
    expect(terms).toContain('dependency pre-bundling');
  });
});
