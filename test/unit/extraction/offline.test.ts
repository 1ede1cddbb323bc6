import { describe, expect, it } from '@jest/globals';
import { extractOffline, OfflineExtractor } from '../../../src/extraction/offline/offlineExtractor.js';
import type { ChunkExtraction, DocumentForExtraction, EntityCandidate } from '../../../src/extraction/types.js';

const FILM_PARAGRAPH =
  'Kiss and Tell is a 1945 American comedy film directed by Richard Wallace for Columbia Pictures. ' +
  'The picture stars Shirley Temple as the teenage Corliss Archer, a role first written for the stage by Hugh Herbert. ' +
  'Years later, Shirley Temple Black studied at the University of California and served as the United States ' +
  'Ambassador to Ghana. She spent the summer of 1950 by Lake Geneva with friends.';

const DOCS_PARAGRAPH =
  'Vite improves the development experience with dependency pre-bundling, hot module replacement and server-side ' +
  'rendering. During production builds the code is bundled with Rollup, while the dev server relies on native ES ' +
  'modules in the browser.';

const COMMON_PARAGRAPH =
  'The new thing is in the same place as the other thing. People like good food and a long walk. ' +
  'We found a small house near the old road, and the children played in the water all day.';

function byName(result: ChunkExtraction): Map<string, EntityCandidate> {
  return new Map(result.entities.map((entity) => [entity.name, entity]));
}

function names(result: ChunkExtraction, kind: EntityCandidate['kind']): string[] {
  return result.entities.filter((entity) => entity.kind === kind).map((entity) => entity.name);
}

const DOCUMENT: DocumentForExtraction = {
  id: 'doc-1',
  title: 'Kiss and Tell',
  documentType: 'text',
  source: null,
  tags: [],
  metadata: {},
};

describe('offline extraction of a Wikipedia-like paragraph', () => {
  const result = extractOffline(FILM_PARAGRAPH);
  const found = byName(result);

  it('finds the people, organisations, places and the film title whole', () => {
    expect(names(result, 'name')).toEqual(
      expect.arrayContaining([
        'Kiss and Tell',
        'Richard Wallace',
        'Columbia Pictures',
        'Shirley Temple',
        'Corliss Archer',
        'Hugh Herbert',
        'Shirley Temple Black',
        'University of California',
        'Ghana',
        'Lake Geneva',
      ]),
    );
    expect(found.has('Kiss')).toBe(false);
    expect(found.has('Tell')).toBe(false);
  });

  it('types names by their cue words and gives names the higher confidence', () => {
    expect(found.get('Columbia Pictures')).toMatchObject({ type: 'Organization', kind: 'name', confidence: 0.7 });
    expect(found.get('University of California')?.type).toBe('Organization');
    expect(found.get('Lake Geneva')?.type).toBe('Location');
    expect(found.get('Richard Wallace')?.type).toBe('Concept');
    expect(found.get('Ghana')?.confidence).toBe(0.6);
  });

  it('takes no sentence-initial word as a name on its own', () => {
    for (const word of ['The', 'Years', 'She']) expect(found.has(word)).toBe(false);
  });

  it('quotes the sentence that names each candidate', () => {
    expect(found.get('Hugh Herbert')?.quote).toBe(
      'The picture stars Shirley Temple as the teenage Corliss Archer, a role first written for the stage by Hugh Herbert.',
    );
    for (const entity of result.entities) expect(entity.quote).toContain(entity.name);
  });

  it('relates names of one sentence, never names of different sentences', () => {
    const pairs = result.relationships.map((r) => `${r.from} | ${r.to}`);
    expect(pairs).toContain('Kiss and Tell | Richard Wallace');
    expect(pairs).toContain('Shirley Temple | Corliss Archer');
    expect(pairs.some((pair) => pair.includes('Kiss and Tell') && pair.includes('Ghana'))).toBe(false);
    expect(result.relationships.length).toBeLessThanOrEqual(10);
    for (const r of result.relationships) {
      expect(r).toMatchObject({ type: 'RELATED_TO', confidence: 0.5 });
      expect(found.has(r.from) && found.has(r.to)).toBe(true);
    }
  });
});

describe('offline extraction of a technical docs paragraph', () => {
  const result = extractOffline(DOCS_PARAGRAPH);

  it('finds the key terms whole and the product names', () => {
    expect(names(result, 'term')).toEqual(
      expect.arrayContaining([
        'dependency pre-bundling',
        'hot module replacement',
        'server-side rendering',
        'dev server',
      ]),
    );
    expect(names(result, 'name')).toContain('Rollup');
    expect(byName(result).get('hot module replacement')).toMatchObject({ type: 'Concept', confidence: 0.5 });
  });

  it('keeps a hyphenated title-case name whole and drops capitalised plurals', () => {
    const found = names(
      extractOffline('Vite supports Server-Side Rendering out of the box. Read the Releases page and the Nuxt docs.'),
      'name',
    );
    expect(found).toEqual(['Server-Side Rendering', 'Nuxt']);
  });

  it('takes no demonym or language for a name', () => {
    const sentence =
      'She sang in Swedish with a Canadian band for the European edition of the Journal of Music Theory.';
    expect(names(extractOffline(sentence), 'name')).toEqual(['Journal of Music Theory']);
  });

  it('keeps verbs and common words out of terms', () => {
    const terms = names(result, 'term');
    for (const bad of ['development experience', 'production builds', 'code', 'experience', 'builds']) {
      expect(terms).not.toContain(bad);
    }
  });
});

describe('offline extraction of common English', () => {
  it('finds no term and no name in everyday sentences', () => {
    expect(extractOffline(COMMON_PARAGRAPH).entities).toEqual([]);
  });

  it('drops a phrase of common words but keeps one with a rare word', () => {
    const terms = names(extractOffline('We open the new file and the module bundler at the same time.'), 'term');
    expect(terms).toEqual(['module bundler']);
  });
});

describe('the offline extractor', () => {
  it('is deterministic', () => {
    expect(extractOffline(FILM_PARAGRAPH + '\n\n' + DOCS_PARAGRAPH)).toEqual(
      extractOffline(FILM_PARAGRAPH + '\n\n' + DOCS_PARAGRAPH),
    );
  });

  it('names its version and the library versions in its fingerprint', () => {
    const extractor = new OfflineExtractor();
    expect(extractor.name).toBe('offline');
    expect(extractor.fingerprint).toMatch(/^offline\/\d+ wink-nlp@\d+\.\d+\.\d+ wink-eng-lite-web-model@\d+\.\d+\.\d+/);
    expect(extractor.contextKey()).toBe('');
  });

  it('returns one result per chunk, in order, and stops when aborted', async () => {
    const extractor = new OfflineExtractor();
    const chunks = [
      { id: 'a', ordinal: 0, content: DOCS_PARAGRAPH },
      { id: 'b', ordinal: 1, content: FILM_PARAGRAPH },
    ];
    const results = await extractor.extract(DOCUMENT, chunks);
    expect(results.map((result) => result.entities[0]?.name)).toEqual(['dependency pre-bundling', 'Kiss and Tell']);
    const controller = new AbortController();
    controller.abort();
    await expect(extractor.extract(DOCUMENT, chunks, controller.signal)).rejects.toThrow();
  });

  it('relates at most 10 pairs a chunk, names before terms', () => {
    const sentence =
      'The meeting brought together Alice Walker, Bruno Mars, Carla Bruni, Daniel Craig, Emma Stone and Frank Ocean ' +
      'to discuss module federation and edge rendering.';
    const result = extractOffline(sentence);
    expect(result.relationships).toHaveLength(10);
    const termNames = new Set(names(result, 'term'));
    expect(termNames.size).toBeGreaterThan(0);
    for (const r of result.relationships) expect(termNames.has(r.from) || termNames.has(r.to)).toBe(false);
  });

  it('cuts long quotes to 200 characters around the mention', () => {
    const filler = 'and then the story went on for a long while '.repeat(8);
    const result = extractOffline(`The tale began ${filler}until Margaret Atwood arrived ${filler}at the end.`);
    const quote = byName(result).get('Margaret Atwood')?.quote ?? '';
    expect(quote.length).toBeLessThanOrEqual(200);
    expect(quote).toContain('Margaret Atwood');
  });
});
