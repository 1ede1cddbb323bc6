import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../../src/config.js';
import type { FactSupport } from '../../../src/extraction/EvidenceRepository.js';
import { relationshipSupported } from '../../../src/extraction/FactReconciler.js';
import { extractOffline } from '../../../src/extraction/offline/offlineExtractor.js';
import { relationshipFact } from '../../../src/extraction/resolvedFacts.js';
import type { RelationshipCandidate } from '../../../src/extraction/types.js';

const DEFAULTS = loadConfig({}).extraction;
const RULES = { termMinDocuments: DEFAULTS.termMinDocuments, cooccurrenceMinChunks: DEFAULTS.cooccurrenceMinChunks };

function pairs(text: string): { pair: string; stated: boolean }[] {
  return extractOffline(text).relationships.map((r) => ({ pair: `${r.from} | ${r.to}`, stated: r.stated === true }));
}

/** Whether one passage of one chunk, as the offline extractor found it, puts the relationship in the graph. */
function supportedByOnePassage(r: RelationshipCandidate): boolean {
  const fact = relationshipFact('offline', r, `x:concept:${r.from}`, `x:concept:${r.to}`);
  const support: FactSupport = {
    factKey: 'r:any',
    documents: 1,
    chunks: 1,
    quotes: 1,
    extractors: ['offline'],
    facts: [fact],
  };
  return relationshipSupported(support, RULES);
}

function relatedInOneSentence(text: string): string[] {
  return extractOffline(text)
    .relationships.filter(supportedByOnePassage)
    .map((r) => `${r.from} | ${r.to}`);
}

describe('a co-occurrence the sentence states', () => {
  it('is enough alone at the defaults: names linked by a verb or a preposition', () => {
    expect(DEFAULTS.cooccurrenceMinChunks).toBeGreaterThan(1);
    expect(relatedInOneSentence('Kiss and Tell is a 1945 film starring Shirley Temple.')).toEqual([
      'Kiss and Tell | Shirley Temple',
    ]);
    expect(relatedInOneSentence('The vaccine was developed by Albert Sabin at the University of Cincinnati.')).toEqual([
      'Albert Sabin | University of Cincinnati',
    ]);
  });

  it('is not a co-listing: names joined by commas, "and", "or" need more passages', () => {
    const listed = 'Frameworks like Storybook, SvelteKit and Astro support Vite out of the box.';
    expect(pairs(listed).length).toBeGreaterThan(0);
    expect(pairs(listed).filter((p) => p.stated)).toEqual([]);
    expect(relatedInOneSentence(listed)).toEqual([]);
    // A listed name stands for its list, even when a verb links it to the next name.
    expect(relatedInOneSentence('Both SvelteKit and Astro support Vite.')).toEqual([]);
    expect(relatedInOneSentence('Follow us on Bluesky, X, or Mastodon to hear about Vite releases.')).toEqual([]);
  });

  it('is not a sentence that names many things', () => {
    const few = 'In 2020 Evan You built Vite in Singapore with Anthony Fu.';
    expect(relatedInOneSentence(few)).toContain('Evan You | Vite');
    const many = 'In 2020 Evan You built Vite in Singapore for Rolldown with Anthony Fu at VoidZero near Shanghai.';
    expect(pairs(many).length).toBeGreaterThan(0);
    expect(relatedInOneSentence(many)).toEqual([]);
  });

  it('is an apposition of names joined by commas alone', () => {
    expect(relatedInOneSentence('Snow moved to Nashville, Tennessee in 1949.')).toEqual(['Nashville | Tennessee']);
  });

  it('is not in a list item, a table cell or a heading', () => {
    const sentence = 'Kiss and Tell is a 1945 film starring Shirley Temple.';
    for (const markup of [`- ${sentence}`, `| ${sentence} | yes |`, `## ${sentence}`])
      expect(relatedInOneSentence(markup)).toEqual([]);
  });

  it('is not two clauses joined by a comma and a conjunction', () => {
    expect(
      relatedInOneSentence('The server runs on Deno Deploy by default, and the client is built with Rolldown Vite.'),
    ).toEqual([]);
  });

  it('is kept over a co-listing of the same pair in one chunk', () => {
    const text = 'See Shirley Temple, Kiss and Tell and more. Kiss and Tell is a 1945 film starring Shirley Temple.';
    const found = pairs(text).find((p) => p.pair.includes('Kiss and Tell') && p.pair.includes('Shirley Temple'));
    expect(found?.stated).toBe(true);
  });
});
