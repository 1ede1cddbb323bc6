import { describe, expect, it } from '@jest/globals';
import { rankGraph, type RankingInput } from '../../../src/enrichment/graphRanking.js';
import {
  identifierShaped,
  mentionFactors,
  namesSpecifically,
  relationshipWeight,
} from '../../../src/enrichment/nameEvidence.js';
import type { RelationshipRecord } from '../../../src/graph/types.js';

const relationship = (fromId: string, toId: string, properties: Record<string, number> = {}): RelationshipRecord => ({
  id: `${fromId}-${toId}`,
  type: 'RELATED_TO',
  origin: 'MANUAL',
  fromId,
  toId,
  properties,
  createdAt: new Date(0),
});

describe('namesSpecifically', () => {
  const names = (name: string, aliases: string[] = []) => ({ name, aliases });

  it('takes a single plain word for specific only while few chunks mention it', () => {
    expect(namesSpecifically({ form: 'request', sharedWith: 1 }, names('Request'), 3)).toBe(true);
    expect(namesSpecifically({ form: 'request', sharedWith: 1 }, names('Request'), 40)).toBe(false);
  });

  it('takes several words, identifiers and acronyms for specific until the name is everywhere', () => {
    expect(namesSpecifically({ form: 'shirley temple', sharedWith: 1 }, names('Shirley Temple'), 40)).toBe(true);
    expect(namesSpecifically({ form: 'listpets', sharedWith: 1 }, names('listPets'), 40)).toBe(true);
    expect(namesSpecifically({ form: 'ach', sharedWith: 1 }, names('ACH Processing', ['ACH']), 40)).toBe(true);
    expect(namesSpecifically({ form: 'shirley temple', sharedWith: 1 }, names('Shirley Temple'), 400)).toBe(false);
  });

  it('never takes a span that names several entities for specific', () => {
    expect(namesSpecifically({ form: 'kiss and tell', sharedWith: 2 }, names('Kiss and Tell (1945 film)'), 1)).toBe(
      false,
    );
  });

  it('tells identifiers from words', () => {
    expect(['server.port', '--force', 'listPets', 'HTTP2', 'ACH'].map(identifierShaped)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['Request', 'plugin', 'Ghana'].map(identifierShaped)).toEqual([false, false, false]);
  });
});

describe('relationshipWeight', () => {
  it('is 1 without a weight and grows slowly with the supporting chunks', () => {
    expect(relationshipWeight(relationship('a', 'b'))).toBe(1);
    expect(relationshipWeight(relationship('a', 'b', { weight: 1 }))).toBe(1);
    expect(relationshipWeight(relationship('a', 'b', { weight: 10 }))).toBeCloseTo(1 + Math.log(10));
  });
});

describe('mentionFactors', () => {
  const names = new Map([
    ['film', { name: 'Kiss and Tell (1945 film)', aliases: ['Kiss and Tell'] }],
    ['song', { name: 'Kiss and Tell (Bryan Ferry song)', aliases: ['Kiss and Tell'] }],
    ['star', { name: 'Shirley Temple', aliases: [] }],
  ]);
  const homes = new Map([
    ['film', new Set(['d:film'])],
    ['song', new Set(['d:song'])],
  ]);

  it('gives a shared form to the entity whose home the chunk is, and splits it elsewhere', () => {
    const f = mentionFactors(
      [
        { entityId: 'film', chunkId: 'c1', documentId: 'd:film' },
        { entityId: 'song', chunkId: 'c1', documentId: 'd:film' },
        { entityId: 'star', chunkId: 'c1', documentId: 'd:film' },
        { entityId: 'film', chunkId: 'c2', documentId: 'd:song' },
        { entityId: 'song', chunkId: 'c2', documentId: 'd:song' },
        { entityId: 'film', chunkId: 'c3', documentId: 'd:other' },
        { entityId: 'song', chunkId: 'c3', documentId: 'd:other' },
      ],
      names,
      homes,
    );
    expect(Object.fromEntries(f)).toEqual({
      'song\u0000c1': 0,
      'film\u0000c2': 0,
      'film\u0000c3': 0.5,
      'song\u0000c3': 0.5,
    });
  });
});

describe('rankGraph with weighted relationships', () => {
  const base = (relationships: RelationshipRecord[]): RankingInput => ({
    seeds: [
      { id: 'seed', score: 1, depth: 0, exact: true },
      ...relationships.map((r) => ({ id: r.toId, score: 0, depth: 1, exact: false, seedId: 'seed', via: r })),
    ],
    hits: [],
    pool: [],
    relationships,
    evidence: [
      { entityId: 'weak', chunkId: 'c-a', documentId: 'd-weak', home: true, similarity: 0.5 },
      { entityId: 'strong', chunkId: 'c-b', documentId: 'd-strong', home: true, similarity: 0.5 },
    ],
    mentionCounts: new Map(),
    known: new Set(['seed', 'weak', 'strong']),
    names: new Map([
      ['seed', { name: 'Seed', aliases: [] }],
      ['weak', { name: 'Weak', aliases: [] }],
      ['strong', { name: 'Strong', aliases: [] }],
    ]),
  });

  it('ranks the home of an often co-occurring entity above a once co-occurring one', () => {
    const ranked = rankGraph(
      base([relationship('seed', 'weak', { weight: 1 }), relationship('seed', 'strong', { weight: 12 })]),
    );
    expect(ranked.chunks.map((c) => c.documentId)).toEqual(['d-strong', 'd-weak']);
  });
});
