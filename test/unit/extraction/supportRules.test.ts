import { describe, expect, it } from '@jest/globals';
import { cooccurrenceRows, sentenceAwareChunks, type Found } from '../../../src/extraction/buildEvidence.js';
import { joinNewNamesOfOneThing, relationshipFact } from '../../../src/extraction/resolvedFacts.js';
import type { ExtractorRun } from '../../../src/extraction/runExtractors.js';
import type { Extractor } from '../../../src/extraction/types.js';
import { mostSpecificType, typeFamily } from '../../../src/extraction/entityTypes.js';
import type { EntityFact, FactSupport, RelationshipFact } from '../../../src/extraction/EvidenceRepository.js';
import { entitySupported, entityWrite, relationshipSupported } from '../../../src/extraction/FactReconciler.js';
import { nameKeys } from '../../../src/extraction/nameKey.js';
import { resolveCandidate, type Resolution } from '../../../src/extraction/resolveEntities.js';

const RULES = { termMinDocuments: 2, cooccurrenceMinChunks: 2 };

const entityFact = (name: string, kind: EntityFact['kind'], type = 'Concept'): EntityFact => ({
  id: 'x:concept:any',
  type,
  name,
  aliases: [],
  description: null,
  kind,
  tier: 'new',
});

const support = (
  facts: (EntityFact | RelationshipFact)[],
  counts: Partial<Pick<FactSupport, 'documents' | 'chunks' | 'quotes' | 'extractors'>>,
): FactSupport => ({
  factKey: 'k',
  documents: 1,
  chunks: 1,
  quotes: 1,
  extractors: ['offline'],
  facts,
  ...counts,
});

describe('entitySupported', () => {
  it('makes no entity of a page titled with a generic heading, but one of a specific title', () => {
    for (const title of ['Features', 'Getting Started', 'Troubleshooting'])
      expect(
        entitySupported(support([entityFact(title, 'page', 'Topic')], { extractors: ['structural'] }), RULES),
      ).toBe(false);
    expect(
      entitySupported(support([entityFact('Environment API', 'page', 'API')], { extractors: ['structural'] }), RULES),
    ).toBe(true);
  });

  it('keeps a generic word that is an identifier or a tag', () => {
    const features = support([entityFact('features', 'identifier', 'ConfigOption')], { extractors: ['structural'] });
    expect(entitySupported(features, RULES)).toBe(true);
  });

  it('wants a plain one-word name found by the offline NLP alone in several documents', () => {
    const dashboard = [entityFact('Dashboard', 'name')];
    expect(entitySupported(support(dashboard, { documents: 1, chunks: 3 }), RULES)).toBe(false);
    expect(entitySupported(support(dashboard, { documents: 2, chunks: 2 }), RULES)).toBe(true);
    // Found by another extractor, or a name that is specific by its shape: one chunk is enough.
    expect(entitySupported(support(dashboard, { extractors: ['llm', 'offline'] }), RULES)).toBe(true);
    for (const name of ['Evan Wallace', 'VoidZero', 'WSL2'])
      expect(entitySupported(support([entityFact(name, 'name')], {}), RULES)).toBe(true);
  });
});

describe('relationshipSupported', () => {
  const cooccurrence: RelationshipFact = {
    fromId: 'a',
    type: 'RELATED_TO',
    toId: 'b',
    description: null,
    cooccurrence: true,
  };

  it('wants a co-occurrence in several distinct passages, not one repeated by several chunks', () => {
    // Overlapping chunks (or a page's boilerplate copied across pages) repeat one sentence: one passage.
    expect(relationshipSupported(support([cooccurrence], { chunks: 3, documents: 2, quotes: 1 }), RULES)).toBe(false);
    expect(relationshipSupported(support([cooccurrence], { chunks: 1, quotes: 2 }), RULES)).toBe(false);
    expect(relationshipSupported(support([cooccurrence], { chunks: 2, quotes: 2 }), RULES)).toBe(true);
  });

  it('takes a stated relationship from one chunk', () => {
    const links: RelationshipFact = { fromId: 'a', type: 'LINKS_TO', toId: 'b', description: null };
    expect(relationshipSupported(support([links], { quotes: 1 }), RULES)).toBe(true);
  });
});

describe('relationshipFact', () => {
  it('makes a sentence co-occurrence of the offline NLP undirected co-occurrence evidence', () => {
    const ab = relationshipFact('offline', { type: 'RELATED_TO' }, 'x:concept:b', 'x:concept:a');
    const ba = relationshipFact('offline', { type: 'RELATED_TO' }, 'x:concept:a', 'x:concept:b');
    expect(ab).toEqual(ba);
    expect(ab).toMatchObject({ fromId: 'x:concept:a', toId: 'x:concept:b', cooccurrence: true });
  });

  it('keeps the direction of a stated relationship, the LLM’s RELATED_TO included', () => {
    expect(relationshipFact('llm', { type: 'RELATED_TO', description: 'uses' }, 'b', 'a')).toEqual({
      fromId: 'b',
      type: 'RELATED_TO',
      toId: 'a',
      description: 'uses',
    });
    expect(relationshipFact('structural', { type: 'DEFINES' }, 'b', 'a').cooccurrence).toBeUndefined();
  });
});

describe('one entity for one thing under compatible types', () => {
  const none = { known: [], rejectedKeys: new Set<string>(), fuzzyThreshold: 0.9 };

  it('gives a new identifier one id whichever compatible type finds it first', () => {
    const asFunction = resolveCandidate({ name: 'resolveConfig', type: 'Function' }, none);
    const asIdentifier = resolveCandidate({ name: 'resolveConfig', type: 'Identifier' }, none);
    expect(asFunction?.entityId).toBe(asIdentifier?.entityId);
    const asOption = resolveCandidate({ name: 'resolveConfig', type: 'ConfigOption' }, none);
    expect(asOption?.entityId).not.toBe(asFunction?.entityId);
    expect(typeFamily('Hook')).toBe(typeFamily('Identifier'));
    expect(typeFamily('Film')).toBe('Film');
  });

  it('takes code of unknown kind for an option or a function of the same name', () => {
    const option = {
      entityId: 'x:configoption:envprefix',
      type: 'ConfigOption',
      name: 'envPrefix',
      aliases: [],
      origin: 'EXTRACTED' as const,
      keys: nameKeys('envPrefix'),
    };
    const known = { ...none, known: [option] };
    expect(resolveCandidate({ name: 'envPrefix', type: 'Identifier' }, known)?.entityId).toBe(option.entityId);
    expect(resolveCandidate({ name: 'envPrefix', type: 'Command' }, known)?.entityId).not.toBe(option.entityId);
    const make = (type: string) => ({
      candidate: { name: 'cacheDir', type },
      resolution: resolveCandidate({ name: 'cacheDir', type }, none) as Resolution,
    });
    const found = [make('Identifier'), make('ConfigOption')];
    joinNewNamesOfOneThing(found);
    expect(found[0]?.resolution.entityId).toBe('x:configoption:cachedir');
  });

  it('names an entity by its page title, else by its most telling form', () => {
    const vite = [entityFact('VITE', 'term'), entityFact('Vite', 'name'), entityFact('vite', 'identifier')];
    expect(entityWrite('x:concept:vite', vite, undefined).name).toBe('Vite');
    const known = {
      entityId: 'x:concept:vite',
      type: 'Concept',
      name: 'VITE',
      aliases: [],
      origin: 'EXTRACTED' as const,
      keys: nameKeys('VITE'),
    };
    expect(entityWrite(known.entityId, [...vite, entityFact('Vite', 'page', 'Topic')], known).name).toBe('Vite');
  });

  it('never joins a common word of prose to code spelled alike', () => {
    const hook = {
      entityId: 'x:api:config',
      type: 'Hook',
      name: 'config',
      aliases: [],
      origin: 'EXTRACTED' as const,
      keys: nameKeys('config'),
    };
    const word = { name: 'config', type: 'Concept', kind: 'term' as const };
    expect(resolveCandidate(word, { ...none, known: [hook] })?.entityId).toBe('x:concept:config');
    const concept = { ...hook, entityId: 'x:concept:config', type: 'Concept' };
    const code = { name: 'config', type: 'Hook', kind: 'identifier' as const };
    expect(resolveCandidate(code, { ...none, known: [concept] })?.entityId).toBe('x:api:config');
    // A name (not a plain word) still joins: the page "HMR API" and the term "HMR API".
    const api = { ...hook, entityId: 'x:api:hmr-api', type: 'API', name: 'HMR API', keys: nameKeys('HMR API') };
    const term = { name: 'HMR API', type: 'Concept', kind: 'term' as const };
    expect(resolveCandidate(term, { ...none, known: [api] })?.entityId).toBe(api.entityId);
    const found = [
      { candidate: word, resolution: resolveCandidate(word, none) as Resolution },
      { candidate: code, resolution: resolveCandidate(code, none) as Resolution },
    ];
    joinNewNamesOfOneThing(found);
    expect(found[0]?.resolution.entityId).toBe('x:concept:config');
  });

  it('types the entity by the most telling type it was found with', () => {
    expect(mostSpecificType(['Identifier', 'Concept', 'Function'])).toBe('Function');
    const write = entityWrite(
      'x:api:resolveconfig',
      [entityFact('resolveConfig', 'identifier', 'Identifier'), entityFact('resolveConfig', 'identifier', 'Function')],
      undefined,
    );
    expect(write.type).toBe('Function');
    const known = {
      entityId: 'x:concept:hotchannel',
      type: 'Concept',
      name: 'HotChannel',
      aliases: [],
      origin: 'EXTRACTED' as const,
      keys: nameKeys('HotChannel'),
    };
    expect(entityWrite(known.entityId, [entityFact('HotChannel', 'identifier', 'Type')], known).type).toBe('Type');
  });

  it('joins a generic name of one document to the specific new entity of the same name', () => {
    const make = (name: string, type: string) => ({
      candidate: { name, type },
      resolution: resolveCandidate({ name, type }, none) as Resolution,
    });
    const found = [
      make('EnvironmentModuleNode', 'Concept'),
      make('EnvironmentModuleNode', 'Type'),
      make('Vite', 'Concept'),
    ];
    joinNewNamesOfOneThing(found);
    expect(found[0]?.resolution.entityId).toBe(found[1]?.resolution.entityId);
    expect(found[2]?.resolution.entityId).toBe('x:concept:vite');
    // Two specific types that cannot agree on one id leave the generic name alone.
    const two = [make('build', 'Concept'), make('build', 'Command'), make('build', 'ConfigOption')];
    joinNewNamesOfOneThing(two);
    expect(two[0]?.resolution.entityId).toBe('x:concept:build');
  });
});

describe('chunk co-occurrence', () => {
  const chunk = (id: string) => ({ id, ordinal: Number(id), content: 'Vite and Rollup.' });
  const [read, unread] = [chunk('1'), chunk('2')];
  const found = (c: ReturnType<typeof chunk>, name: string): Found => ({
    candidate: { name, type: 'Concept', kind: 'name', quote: name, confidence: 0.7 },
    chunk: c,
    extractor: 'structural',
    resolution: { entityId: `x:concept:${name.toLowerCase()}`, tier: 'new' },
  });
  const run = (name: string, results: ExtractorRun['results']): ExtractorRun => ({
    extractor: { name } as Extractor,
    results,
    warnings: [],
    failures: [],
    tokens: 0,
    budgetExhausted: false,
  });

  it('is no evidence in a chunk the offline NLP read sentence by sentence', () => {
    const empty = { entities: [], relationships: [], links: [], warnings: [] };
    const aware = sentenceAwareChunks(
      [read, unread],
      [run('offline', [empty, undefined]), run('structural', [empty, empty])],
    );
    expect([...aware]).toEqual(['1']);
    const rows = cooccurrenceRows(
      'doc',
      [found(read, 'Vite'), found(read, 'Rollup'), found(unread, 'Vite'), found(unread, 'Rollup')],
      aware,
    );
    expect(rows.map((r) => r.chunkId)).toEqual(['2']);
  });
});
