import { describe, expect, it } from '@jest/globals';
import { rankGraph, type RankingInput } from '../../../src/enrichment/graphRanking.js';
import { leadsSpecifically } from '../../../src/enrichment/nameEvidence.js';
import { fused } from '../../helpers/fusedHit.js';

/**
 * One documents-lane chunk that mentions "Cells" (a generic term: one plain word, 30 mentions) and "Shirley Temple"
 * (a specific name), with evidence of both; search ranks `d-next` right after the lane's document.
 */
function input(): RankingInput {
  return {
    seeds: [{ id: 'cells', score: 0.3, depth: 0, exact: true, matched: { form: 'cells', sharedWith: 1 } }],
    hits: [{ chunkId: 'c-lane', documentId: 'd-lane', score: 1, similarity: 0.5, entityIds: ['cells', 'temple'] }],
    pool: [fused('c-lane', 'd-lane', 1), fused('c-next', 'd-next', 0.8), fused('c-later', 'd-later', 0.6)],
    relationships: [],
    evidence: [
      { entityId: 'cells', chunkId: 'c-cells-page', documentId: 'd-cells-page', home: true, similarity: 0.1 },
      { entityId: 'cells', chunkId: 'c-close', documentId: 'd-close', home: false, similarity: 0.9 },
      { entityId: 'cells', chunkId: 'c-next', documentId: 'd-next', home: false, similarity: 0.3 },
      { entityId: 'temple', chunkId: 'c-temple', documentId: 'd-temple', home: true, similarity: 0.2 },
    ],
    mentionCounts: new Map([
      ['cells', 30],
      ['temple', 3],
    ]),
    known: new Set(['cells', 'temple']),
    names: new Map([
      ['cells', { name: 'Cells', aliases: [] }],
      ['temple', { name: 'Shirley Temple', aliases: [] }],
    ]),
  };
}

describe('graph evidence against what search ranks next', () => {
  it('takes what a generic term reaches only from the documents search ranks right after the lane', () => {
    const docs = rankGraph(input()).chunks.map((c) => c.documentId);
    expect(docs).toContain('d-next');
    expect(docs).not.toContain('d-cells-page');
    expect(docs).not.toContain('d-close');
  });

  it('still takes the home of a specific name that a top chunk mentions', () => {
    expect(rankGraph(input()).chunks.map((c) => c.documentId)).toContain('d-temple');
  });

  it('takes the evidence of a generic term the query names when it is the documents lane next', () => {
    const ranked = rankGraph({ ...input(), pool: [fused('c-lane', 'd-lane', 1), fused('c-close', 'd-close', 0.9)] });
    expect(ranked.chunks.map((c) => c.documentId)).toContain('d-close');
  });
});

describe('graph evidence through a neighbour', () => {
  /** The query names `seed`; a paper that defines it is its neighbour, and the paper's page is the paper's home. */
  function neighbourInput(seed: { name: string; mentions: number; exact: boolean }): RankingInput {
    const defines = {
      id: 'r',
      type: 'DEFINES',
      fromId: 'paper',
      toId: 'seed',
      properties: {},
      origin: 'EXTRACTED' as const,
      createdAt: new Date(0),
    };
    const form = seed.name.toLowerCase();
    return {
      seeds: [
        { id: 'seed', score: 0.3, depth: 0, exact: seed.exact, matched: { form, sharedWith: 1 } },
        { id: 'paper', score: 0, depth: 1, exact: false, seedId: 'seed', via: defines },
      ],
      hits: [{ chunkId: 'c-lane', documentId: 'd-lane', score: 1, similarity: 0.5, entityIds: [] }],
      pool: [fused('c-lane', 'd-lane', 1), fused('c-next', 'd-next', 0.8)],
      relationships: [defines],
      evidence: [{ entityId: 'paper', chunkId: 'c-paper', documentId: 'd-paper', home: true, similarity: 0.2 }],
      mentionCounts: new Map([
        ['seed', seed.mentions],
        ['paper', 1],
      ]),
      known: new Set(['seed', 'paper']),
      names: new Map([
        ['seed', { name: seed.name, aliases: [] }],
        ['paper', { name: 'Thrombopoietin signaling regulates stem cell quiescence', aliases: [] }],
      ]),
    };
  }
  const documents = (i: RankingInput) => rankGraph(i).chunks.map((c) => c.documentId);

  it('takes the home of a neighbour of a query entity named specifically', () => {
    expect(documents(neighbourInput({ name: 'Thrombopoietin', mentions: 3, exact: true }))).toContain('d-paper');
  });

  it('takes no home of a neighbour of a generic query entity, or of one the query names only in part', () => {
    expect(documents(neighbourInput({ name: 'long-term', mentions: 80, exact: true }))).not.toContain('d-paper');
    expect(documents(neighbourInput({ name: 'Thrombopoietin', mentions: 3, exact: false }))).not.toContain('d-paper');
  });
});

describe('leadsSpecifically', () => {
  const names = (name: string) => ({ name, aliases: [] });

  it('judges a query entity by the span the query wrote, and only an exact match', () => {
    const exact = { exact: true, matched: { form: 'cells', sharedWith: 1 } };
    expect(leadsSpecifically(names('Cells'), 30, exact)).toBe(false);
    expect(leadsSpecifically(names('Cells'), 3, exact)).toBe(true);
    expect(leadsSpecifically(names('Shirley Temple'), 3, { ...exact, exact: false })).toBe(false);
  });

  it('judges an entity the query does not name by its own name', () => {
    expect(leadsSpecifically(names('Shirley Temple'), 30)).toBe(true);
    expect(leadsSpecifically(names('Patients'), 30)).toBe(false);
    expect(leadsSpecifically(undefined, 1)).toBe(false);
  });
});
