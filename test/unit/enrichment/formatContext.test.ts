import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { runInSpace } from '../../../src/db/spaceScope.js';
import type { DocumentRecord } from '../../../src/documents/types.js';
import { documentUrl, formatContext } from '../../../src/enrichment/formatContext.js';
import type { EnrichedChunkRecord, EnrichedEntityRecord } from '../../../src/enrichment/types.js';
import type { EntityRecord, RelationshipRecord } from '../../../src/graph/types.js';

const now = new Date(0);
const doc = (id: string, title: string, metadata: Record<string, unknown> = {}): DocumentRecord => ({
  id,
  title,
  content: '',
  documentType: 'other',
  source: null,
  tags: [],
  metadata,
  contentHash: '',
  createdAt: now,
  updatedAt: now,
  expiresAt: null,
});
const chunk = (d: DocumentRecord, content: string, i: number): EnrichedChunkRecord => ({
  hit: {
    chunk: {
      id: String(i),
      documentId: d.id,
      ordinal: i,
      content,
      charStart: 0,
      charEnd: content.length,
      contentHash: '',
    },
    document: d,
    score: 0.5,
  },
  lane: 'DOCUMENTS',
  why: 'x',
  citation: null,
});
const entity = (id: string, name: string): EnrichedEntityRecord => ({
  entity: {
    id,
    type: 'Service',
    name,
    aliases: [],
    description: null,
    properties: {},
    origin: 'MANUAL',
    createdAt: now,
    updatedAt: now,
  } as EntityRecord,
  why: 'matched in the query',
  depth: 0,
  score: 1,
});
const rel = (fromId: string, type: string, toId: string): RelationshipRecord => ({
  id: `${fromId}-${toId}`,
  type,
  fromId,
  toId,
  properties: {},
  origin: 'MANUAL',
  createdAt: now,
});

/**
 * A chunk read alone, after its document's start: the end of a sentence it begins inside, then 80 characters of whole
 * sentence, which is what its passage shows.
 */
const sentence = (letter: string): string => `x. ${letter.repeat(79)}.`;

describe('formatContext', () => {
  it('numbers each document once and renders relationships as A -[TYPE]-> B', () => {
    const a = doc('a', 'Doc A', { url: 'https://x.test/a' });
    const chunks = [chunk(a, 'First.', 0), chunk(doc('b', 'Doc B'), 'b. Second.', 1), chunk(a, 'a. Third.', 2)];
    const out = formatContext(
      chunks,
      [entity('s', 'Svc'), entity('l', 'Ledger')],
      [rel('s', 'DEPENDS_ON', 'l')],
      10_000,
    );
    expect(out.context).toBe(
      '## Relevant knowledge\n[1] Doc A\nFirst.\n…\nThird.\n\n[2] Doc B\nSecond.\n\n## Related entities\n- Svc (Service)\n- Ledger (Service)\n- Svc -[DEPENDS_ON]-> Ledger',
    );
    expect(out.citations).toEqual([
      { number: 1, documentId: 'a', title: 'Doc A', source: null, url: 'https://x.test/a', space: 'default' },
      { number: 2, documentId: 'b', title: 'Doc B', source: null, url: null, space: 'default' },
    ]);
    expect(chunks.map((c) => c.citation)).toEqual([1, 2, 1]);
  });

  it('names the space of a cited document from a space the request only reads', async () => {
    const own = { ...doc('a', 'Doc A'), space: 'team' };
    const read = { ...doc('b', 'Doc B'), space: 'shared' };
    const out = await runInSpace('team', async () =>
      formatContext([chunk(own, 'First.', 0), chunk(read, 'b. Second.', 1)], [], [], 10_000),
    );
    expect(out.context).toBe('## Relevant knowledge\n[1] Doc A\nFirst.\n\n[2] Doc B (space: shared)\nSecond.');
    const related = await runInSpace('team', async () =>
      formatContext(
        [],
        [
          { ...entity('s', 'Svc'), space: 'shared' },
          { ...entity('t', 'Portal'), space: 'team' },
        ],
        [],
        10_000,
      ),
    );
    expect(related.context).toBe('## Related entities\n- Svc (Service, space: shared)\n- Portal (Service)');
    expect(out.citations.map((c) => c.space)).toEqual(['team', 'shared']);
  });

  it('never exceeds the budget and counts what it left out (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 300 }), { maxLength: 12 }),
        fc.array(fc.string({ minLength: 1, maxLength: 40 }), { maxLength: 8 }),
        fc.integer({ min: 0, max: 2000 }),
        (texts, names, max) => {
          const chunks = texts.map((t, i) => chunk(doc(`d${i % 3}`, `T${i % 3}`), t, i));
          const ents = names.map((n, i) => entity(`e${i}`, n));
          const out = formatContext(chunks, ents, [], max);
          expect(out.context.length).toBeLessThanOrEqual(max);
          const shown = chunks.filter((c) => c.citation !== null).length;
          expect(shown + out.omittedChunks).toBe(chunks.length);
          for (const c of out.citations) expect(out.context).toContain(`[${c.number}]`);
          // A heading only with an item under it.
          expect(out.context.includes('## Relevant knowledge')).toBe(shown > 0);
          expect(out.context.includes('## Related entities')).toBe(out.omittedEntities < ents.length);
        },
      ),
    );
  });

  it('writes no empty heading, and counts dropped relationship lines apart from entities', () => {
    const long = chunk(doc('a', 'Doc A'), 'x'.repeat(500), 0);
    const ents = [entity('s', 'Svc'), entity('l', 'Ledger')];
    const out = formatContext([long], ents, [rel('s', 'DEPENDS_ON', 'l')], 70);
    expect(out.context).toBe('## Related entities\n- Svc (Service)\n- Ledger (Service)');
    expect(out).toEqual(expect.objectContaining({ omittedChunks: 1, omittedEntities: 0, omittedRelationships: 1 }));
  });

  it('cites in the given order while the budget lasts: the documents lane, then graph evidence', () => {
    const lane = (
      c: EnrichedChunkRecord,
      l: 'DOCUMENTS' | 'GRAPH',
      via?: EnrichedChunkRecord,
    ): EnrichedChunkRecord => ({
      ...c,
      lane: l,
      ...(via ? { via: { chunk: via, rank: 1 } } : {}),
      why: l === 'GRAPH' ? 'via entity X, mentioned in {cite}' : 'x',
    });
    const docsLane = [0, 1].map((i) => lane(chunk(doc(`d${i}`, `D${i}`), sentence('D'), i + 3), 'DOCUMENTS'));
    const graph = [
      lane(chunk(doc('g0', 'G0'), sentence('G'), 10), 'GRAPH', docsLane[0]),
      lane(chunk(doc('g1', 'G1'), sentence('G'), 11), 'GRAPH', docsLane[0]),
    ];
    // Heading 22, each documents-lane entry 7 + 80 + 2, a graph entry 7 + 33 + 80 + 2: 322 (320 without the last blank
    // line); a second graph entry would reach 444.
    const out = formatContext([...docsLane, ...graph], [], [], 400);
    expect(out.context.length).toBe(320);
    expect(out.citations.map((c) => c.documentId)).toEqual(['d0', 'd1', 'g0']);
    expect(out.context).toContain('(via entity X, mentioned in [1])');
    expect(out.omittedChunks).toBe(1);
    // A documents-lane passage laid out after graph evidence (a weaker hit of another document) keeps its room: the
    // graph entry (122) no longer fits beside it (200 + 89 + 122 = 411), so the passage follows the first two.
    const after = lane(chunk(doc('d2', 'D2'), sentence('W'), 2), 'DOCUMENTS');
    const kept = formatContext(
      [...docsLane, ...graph.slice(0, 1), { ...after, text: after.hit.chunk.content.slice(3) }],
      [],
      [],
      400,
    );
    expect(kept.citations.map((c) => c.documentId)).toEqual(['d0', 'd1', 'd2']);
  });

  it('cites graph evidence that a later passage shows at that passage, without repeating it', () => {
    const head = chunk(doc('d', 'D'), 'Head text.', 0);
    const t = doc('t', 'T');
    const evidence: EnrichedChunkRecord = { ...chunk(t, 'Evidence text.', 5), lane: 'GRAPH', why: 'via entity X' };
    const passage: EnrichedChunkRecord = { ...chunk(t, 'Evidence text.', 4), text: 'Before. Evidence text. After.' };
    passage.shown = [[4, 6]];
    const out = formatContext([head, evidence, passage], [], [], 10_000);
    expect(out.context).toBe('## Relevant knowledge\n[1] D\nHead text.\n\n[2] T\nBefore. Evidence text. After.');
    expect([head, evidence, passage].map((c) => c.citation)).toEqual([1, 2, 2]);
    expect(out.omittedChunks).toBe(0);
  });

  it('joins adjacent chunks of one document under one heading, and never cites a chunk that scored 0', () => {
    const d = doc('m', 'Manual');
    const at = (i: number, start: number, text: string, score = 0.5): EnrichedChunkRecord => ({
      hit: {
        chunk: {
          id: `c${i}`,
          documentId: 'm',
          ordinal: i,
          content: text,
          charStart: start,
          charEnd: start + text.length,
          contentHash: '',
        },
        document: d,
        score,
      },
      lane: 'DOCUMENTS',
      why: 'x',
      citation: null,
    });
    const zero = chunk(doc('z', 'Unrelated'), 'nothing', 9);
    zero.hit.score = 0;
    const parts = [at(0, 0, 'Step one. Step two.'), zero, at(1, 10, 'Step two. Step three.')];
    const out = formatContext(parts, [], [], 10_000);
    expect(out.context).toBe('## Relevant knowledge\n[1] Manual\nStep one. Step two. Step three.');
    expect(parts.map((c) => c.citation)).toEqual([1, null, 1]);
    expect(out.omittedChunks).toBe(0);
  });

  it('takes urls from metadata or a URL-shaped source only', () => {
    expect(documentUrl({ url: 'https://a.test' }, null)).toBe('https://a.test');
    expect(documentUrl({}, 'http://b.test/x')).toBe('http://b.test/x');
    expect(documentUrl({ url: 'javascript:alert(1)' }, 'wiki')).toBeNull();
  });

  it('leaves out a chunk with no sentence or line edge rather than show a fragment', () => {
    // Read without its neighbours, from the middle of a flattened table: where it starts and ends is unknown.
    const table = chunk(doc('t', 'Cast'), 'as Edward Sheffield Michael Shannon as Bobby Andes Aaron', 3);
    const out = formatContext([table, chunk(doc('b', 'Doc B'), 'b. Second.', 1)], [], [], 10_000);
    expect(out.context).toBe('## Relevant knowledge\n[1] Doc B\nSecond.');
    expect(out.omittedChunks).toBe(1);
    expect(table.citation).toBeNull();
  });
});
