import { describe, expect, it } from '@jest/globals';
import type { DocumentRecord } from '../../../src/documents/types.js';
import { layOutLane, othersLaneLimit } from '../../../src/enrichment/documentsLane.js';
import { formatContext } from '../../../src/enrichment/formatContext.js';
import type { EnrichRequest, EnrichedChunkRecord } from '../../../src/enrichment/types.js';

const now = new Date(0);
const doc = (id: string): DocumentRecord => ({
  id,
  title: id,
  content: '',
  documentType: 'other',
  source: null,
  tags: [],
  metadata: {},
  contentHash: '',
  createdAt: now,
  updatedAt: now,
  expiresAt: null,
});
/** Chunk `ordinal` of document `id`: 120 characters of whole sentences (the chunks of a document do not touch). */
const hit = (id: string, ordinal: number, score: number, lane: 'DOCUMENTS' | 'GRAPH' = 'DOCUMENTS') => {
  const content = `${id.toUpperCase()} says ${ordinal}. `.repeat(12).slice(0, 119).replace(/.$/, '.');
  const record: EnrichedChunkRecord = {
    hit: {
      chunk: {
        id: `${id}${ordinal}`,
        documentId: id,
        ordinal,
        content,
        charStart: ordinal * 1000,
        charEnd: ordinal * 1000 + content.length,
        contentHash: '',
      },
      document: doc(id),
      score,
    },
    lane,
    why: lane === 'GRAPH' ? 'via entity X, mentioned in {cite}' : 'x',
    citation: null,
  };
  return record;
};
const request = (maxChars: number, graphShare: number): EnrichRequest => ({
  query: 'q',
  topK: 1,
  maxEntities: 5,
  graphDepth: 1,
  maxChars,
  filter: {},
  mode: undefined,
  graphShare,
});

/** The context of one selected hit (a0), two weaker hits (a5 of its document, then b0), and two graph chunks. */
function context(graphShare: number) {
  const a0 = hit('a', 0, 0.9);
  const graph = [hit('g', 0, 0.5, 'GRAPH'), hit('h', 0, 0.5, 'GRAPH')].map((g) => ({
    ...g,
    via: { chunk: a0, rank: 1 },
  }));
  const weaker = [hit('a', 5, 0.5), hit('b', 0, 0.4)];
  const chunks = [a0, ...(graphShare > 0 ? graph : [])];
  const laid = layOutLane(chunks, weaker, request(500, graphShare), 1);
  const out = formatContext(laid, [], [], 500);
  return { out, cited: laid.filter((c) => c.citation !== null).map((c) => c.hit.chunk.id) };
}

describe('the budget between the documents lane and graph evidence', () => {
  it('holds graph evidence its share against weaker hits of other documents only', () => {
    // Graph evidence needs 2 × (1 + 33 + 119 + 16) = 338, so it is held min(0.5 × 500, 338) = 250.
    expect(othersLaneLimit([hit('g', 0, 0.5, 'GRAPH'), hit('h', 0, 0.5, 'GRAPH')], 500, 0.5)).toBe(250);
    // Document a's passages (heading 22 + "[1] a\n" 6 + 119 + "\n…\n" 3 + 109 (a5 without its first sentence, which may
    // continue text before it) + 2 = 261) pass 250 but are the chosen document's: they stay. Document b's weaker hit
    // would take the section to 261 + 6 + 119 + 2 = 388, past 250: it yields to graph evidence, which gets what is left:
    // one entry of 6 + 33 + 119 + 2 = 160 (421, the last blank line trimmed: 419); a second would pass 500.
    const { out, cited } = context(0.5);
    expect(cited).toEqual(['a0', 'a5', 'g0']);
    expect(out.context).toContain('A says 5.');
    expect(out.context.length).toBe(419);
  });

  it('gives the documents lane the whole budget when graph evidence is off', () => {
    const { cited } = context(0);
    expect(cited).toEqual(['a0', 'a5', 'b0']);
  });

  it('gives weaker hits the room of graph evidence that the passages already show', () => {
    // Evidence a0 is the selected hit's own chunk: shown in its passage, it needs no reserve (169 held before), so
    // weaker hits of other documents may use all 500: a0 149, b0 127 (276), c0 127 (403); d0 would reach 530.
    const a0 = hit('a', 0, 0.9);
    const evidence = { ...hit('a', 0, 0.5, 'GRAPH'), via: { chunk: a0, rank: 1 } };
    const weaker = [hit('b', 0, 0.5), hit('c', 0, 0.4), hit('d', 0, 0.3)];
    const laid = layOutLane([a0, evidence], weaker, request(500, 0.5), 1);
    const out = formatContext(laid, [], [], 500);
    expect(out.citations.map((c) => c.documentId)).toEqual(['a', 'b', 'c']);
    expect(evidence.citation).toBe(1);
  });
});

describe('passages without an edge to align to', () => {
  it('leaves out a weaker hit cut from a flattened table rather than show a fragment', () => {
    const a0 = hit('a', 0, 0.9);
    const table = hit('t', 1, 0.5);
    table.hit.chunk.content = 'Jake Gyllenhaal as Edward Sheffield Michael Shannon as Bobby Andes Aaron Taylor-Johnson';
    const laid = layOutLane([a0], [table, hit('b', 0, 0.4)], request(2000, 0), 1);
    const out = formatContext(laid, [], [], 2000);
    expect(out.citations.map((c) => c.documentId)).toEqual(['a', 'b']);
    expect(out.context).not.toContain('Gyllenhaal');
  });

  it('fills the budget whole passages leave with the matching sentences of the next weaker hit', () => {
    const a0 = hit('a', 0, 0.9);
    const b0 = hit('b', 0, 0.5);
    b0.hit.chunk.content = `${'Filler words here. '.repeat(8)}Bobby Andes is played by Michael Shannon. ${'More filler. '.repeat(4)}`;
    const laid = layOutLane([a0], [b0], { ...request(300, 0), query: 'Who plays Bobby Andes?' }, 1);
    const out = formatContext(laid, [], [], 300);
    expect(out.citations.map((c) => c.documentId)).toEqual(['a', 'b']);
    // Its whole passage (245) would pass 300; the run of sentences that fits ends with the one that matches.
    expect(out.context).toContain('[2] b\nFiller words here.');
    expect(out.context.endsWith('Bobby Andes is played by Michael Shannon.')).toBe(true);
    expect(out.context).not.toContain('More filler.');
    expect(out.context.length).toBeLessThanOrEqual(300);
  });
});
