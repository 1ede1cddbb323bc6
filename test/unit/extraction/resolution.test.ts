import { describe, expect, it } from '@jest/globals';
import { compatibleTypes } from '../../../src/extraction/entityTypes.js';
import { extractedEntityId, fuzzyMatches, isSpecificName, nameKey, nameKeys } from '../../../src/extraction/nameKey.js';
import { resolveCandidate, type ResolutionContext } from '../../../src/extraction/resolveEntities.js';
import type { NamedEntity } from '../../../src/graph/mentions/EntityNameLookup.js';
import { ENTITY_ID_PATTERN } from '../../../src/graph/types.js';

const entity = (
  entityId: string,
  type: string,
  name: string,
  aliases: string[] = [],
  origin: NamedEntity['origin'] = 'EXTRACTED',
): NamedEntity => ({
  entityId,
  type,
  name,
  aliases,
  origin,
  keys: nameKeys(name, aliases),
});

const context = (known: NamedEntity[], rejected: string[] = []): ResolutionContext => ({
  known,
  rejectedKeys: new Set(rejected),
  fuzzyThreshold: 0.8,
});

describe('nameKey', () => {
  it('folds case, accents, punctuation and the plural of the last word', () => {
    expect(nameKey('Hot-Module Replacements')).toBe('hot module replacement');
    expect(nameKey('  CAFÉ   Policies ')).toBe('cafe policy');
    expect(nameKey('ﬁle Boxes')).toBe('file box');
    expect(nameKey('Status')).toBe('status');
  });

  it('keeps identifiers whole, without a trailing ()', () => {
    expect(nameKey('server.port')).toBe('server.port');
    expect(nameKey('--force')).toBe('--force');
    expect(nameKey('defineConfig()')).toBe('defineconfig');
    expect(nameKey('--force')).not.toBe(nameKey('Force'));
  });

  it('makes ids that match the entity id pattern, hashed when long or not Latin', () => {
    expect(extractedEntityId('Technology', 'hot module replacement')).toBe('x:technology:hot-module-replacement');
    for (const key of ['東京', 'a'.repeat(600), '--force'])
      expect(extractedEntityId('Concept', key)).toMatch(ENTITY_ID_PATTERN);
    expect(extractedEntityId('Concept', '東京')).not.toBe(extractedEntityId('Concept', '大阪'));
  });

  it('tells specific names from generic single words', () => {
    expect(isSpecificName('Features')).toBe(false);
    expect(isSpecificName('Hot Module Replacement')).toBe(true);
    expect(isSpecificName('GraphQL')).toBe(true);
    expect(isSpecificName('HMR')).toBe(true);
    expect(isSpecificName('server.port')).toBe(true);
  });
});

describe('resolveCandidate', () => {
  it('joins an existing entity whatever the case and plural', () => {
    const known = [entity('x:technology:plugin-api', 'Technology', 'Plugin API')];
    expect(resolveCandidate({ name: 'plugin APIs', type: 'Technology' }, context(known))).toMatchObject({
      entityId: 'x:technology:plugin-api',
      tier: 'name',
    });
  });

  it('joins by a declared acronym, either way round', () => {
    const known = [entity('m:hmr', 'Technology', 'Hot Module Replacement', ['HMR'], 'MANUAL')];
    expect(resolveCandidate({ name: 'HMR', type: 'Concept' }, context(known))).toMatchObject({
      entityId: 'm:hmr',
      tier: 'alias',
    });
    const byName = [entity('m:ssr', 'Technology', 'SSR', [], 'MANUAL')];
    expect(
      resolveCandidate({ name: 'Server-Side Rendering', type: 'Technology', aliases: ['SSR'] }, context(byName)),
    ).toMatchObject({ entityId: 'm:ssr', tier: 'acronym' });
  });

  it('keeps two types of one name apart unless they are compatible', () => {
    const known = [entity('x:person:mercury', 'Person', 'Mercury')];
    const planet = resolveCandidate({ name: 'Mercury', type: 'Location' }, context(known));
    expect(planet).toEqual({ entityId: 'x:location:mercury', tier: 'new' });
    expect(resolveCandidate({ name: 'Mercury', type: 'Concept' }, context(known))?.entityId).toBe('x:person:mercury');
    expect(compatibleTypes('Film', 'Song')).toBe(false);
    expect(compatibleTypes('Library', 'Technology')).toBe(true);
  });

  it('joins a close misspelling, but never a near miss with other numbers or words', () => {
    const known = [entity('x:technology:hot-module-replacement', 'Technology', 'Hot Module Replacement')];
    expect(resolveCandidate({ name: 'Hot Module Replacment', type: 'Technology' }, context(known))).toMatchObject({
      entityId: 'x:technology:hot-module-replacement',
      tier: 'fuzzy',
    });
    const vue = [entity('x:technology:vue-2', 'Technology', 'Vue 2')];
    expect(resolveCandidate({ name: 'Vue 3', type: 'Technology' }, context(vue))?.tier).toBe('new');
    const react = [entity('x:technology:preact', 'Technology', 'Preact')];
    expect(resolveCandidate({ name: 'React', type: 'Technology' }, context(react))?.tier).toBe('new');
    expect(fuzzyMatches('kiss and tell', 'kiss and tell', 0.9)).toBe(true);
    const film = [entity('x:film:kiss-and-tell', 'Film', 'Kiss and Tell')];
    expect(resolveCandidate({ name: 'Kiss and Tel', type: 'Song' }, context(film))?.tier).toBe('new');
  });

  it('never chains fuzzy matches: a variant is no alias', () => {
    const known = [entity('x:technology:hot-module-replacement', 'Technology', 'Hot Module Replacement')];
    const variant = resolveCandidate({ name: 'Hot Module Replacment', type: 'Technology' }, context(known));
    expect(variant?.existing?.keys).toEqual(['hot module replacement']);
  });

  it('creates no rejected name, but links it to a person’s entity', () => {
    expect(resolveCandidate({ name: 'Features', type: 'Concept' }, context([], ['feature']))).toBeUndefined();
    const known = [entity('m:features', 'Concept', 'Features', [], 'MANUAL')];
    expect(resolveCandidate({ name: 'Features', type: 'Concept' }, context(known, ['feature']))?.entityId).toBe(
      'm:features',
    );
  });

  it('prefers a person’s entity to an extracted one of the same name', () => {
    const known = [entity('x:concept:vite', 'Concept', 'Vite'), entity('m:vite', 'Technology', 'Vite', [], 'MANUAL')];
    expect(resolveCandidate({ name: 'Vite', type: 'Concept' }, context(known))?.entityId).toBe('m:vite');
  });
});
