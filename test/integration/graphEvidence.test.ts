import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projectShare } from '../helpers/projects.js';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import type { TestServer } from '../helpers/testServer.js';

const ENRICH = `query($input: EnrichContextInput!) { enrichContext(input: $input) {
  context warnings
  chunks { lane score citation why document { id } }
  entities { why depth entity { id } }
  documents { id }
  citations { number documentId }
} }`;

type Enriched = {
  context: string;
  warnings: string[];
  chunks: {
    lane: 'DOCUMENTS' | 'GRAPH';
    score: number;
    citation: number | null;
    why: string;
    document: { id: string };
  }[];
  entities: { why: string; depth: number; entity: { id: string } }[];
  documents: { id: string }[];
  citations: { number: number; documentId: string }[];
};

const QUESTION = 'Who starred in the 1934 film Bright Eyes, and where was she born?';

/** A two-hop store: the film's page names its star, whose own page holds the answer; filler pages share query words. */
async function seed(t: TestServer): Promise<void> {
  await t.gql(`mutation($input: UpsertGraphInput!) { upsertGraph(input: $input) { entities { id } } }`, {
    input: {
      entities: [
        { id: 'film:bright-eyes', type: 'Film', name: 'Bright Eyes (1934 film)' },
        { id: 'person:temple', type: 'Person', name: 'Shirley Temple' },
        { id: 'place:ghana', type: 'Place', name: 'Ghana' },
      ],
      relationships: [],
    },
  });
  const docs = [
    {
      id: 'wiki:bright-eyes',
      source: 'films',
      title: 'Bright Eyes (1934 film)',
      content: 'Bright Eyes is a 1934 American comedy drama film. It stars Shirley Temple as an orphan.',
      entityIds: ['film:bright-eyes'],
    },
    {
      id: 'wiki:temple',
      title: 'Shirley Temple',
      content: 'The actress grew up in Santa Monica, California, and later served as ambassador to Ghana.',
      entityIds: ['person:temple'],
    },
    {
      id: 'wiki:other-1934',
      title: 'Other films of 1934',
      content: 'Many films were released in 1934; it was a busy year for the studios and their stars.',
    },
    {
      id: 'wiki:eyes',
      title: 'Eye colour',
      content: 'Bright eyes and eye colour are inherited; films often cast actors for their eyes.',
    },
    {
      id: 'wiki:born',
      title: 'Birth registries',
      content: 'Where someone was born is recorded in a birth registry of the town.',
    },
  ];
  const res = await t.gql(`mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { changed } }`, {
    input: docs,
  });
  expect(res.errors).toBeUndefined();
}

describe.each(projectShare(serverRuns()))('graph evidence in enrichContext ($name)', (run) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startRunServer(run);
    await seed(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('returns the second hop that search alone misses, cited and explained through the bridging entity', async () => {
    const search = await t.gql<{ search: { document: { id: string } }[] }>(
      `query($q: String!) { search(input: { query: $q, topK: 2 }) { document { id } } }`,
      { q: QUESTION },
    );
    expect(search.data!.search.map((h) => h.document.id)).not.toContain('wiki:temple');

    const res = await t.gql<{ enrichContext: Enriched }>(ENRICH, {
      input: { query: QUESTION, topK: 2, maxEntities: 5 },
    });
    expect(res.errors).toBeUndefined();
    const e = res.data!.enrichContext;
    expect(e.warnings).toEqual([]);
    expect(e.chunks.filter((c) => c.lane === 'DOCUMENTS')[0]?.document.id).toBe('wiki:bright-eyes');
    const evidence = e.chunks.find((c) => c.lane === 'GRAPH' && c.document.id === 'wiki:temple');
    expect(evidence).toBeDefined();
    const filmCitation = e.citations.find((c) => c.documentId === 'wiki:bright-eyes')!.number;
    expect(evidence!.why).toBe(`the document of entity Shirley Temple, mentioned in [${filmCitation}]`);
    expect(evidence!.citation).not.toBeNull();
    expect(e.documents.map((d) => d.id)).toContain('wiki:temple');
    expect(e.context).toContain(
      `(the document of entity Shirley Temple, mentioned in [${filmCitation}])\nThe actress grew up in Santa Monica`,
    );
    // The bridge entity is first-class: named by the top chunk, it is ranked, not demoted as a neighbour.
    expect(e.entities.find((x) => x.entity.id === 'person:temple')?.why).toMatch(/^mentioned by chunk 1/);
  });

  it('leaves graph evidence out with graphShare 0, and never repeats a document of the documents lane', async () => {
    const off = (
      await t.gql<{ enrichContext: Enriched }>(ENRICH, { input: { query: QUESTION, topK: 2, graphShare: 0 } })
    ).data!.enrichContext;
    expect(off.chunks.every((c) => c.lane === 'DOCUMENTS')).toBe(true);
    const on = (
      await t.gql<{ enrichContext: Enriched }>(ENRICH, { input: { query: QUESTION, topK: 5, graphShare: 0.5 } })
    ).data!.enrichContext;
    const laneDocs = new Set(on.chunks.filter((c) => c.lane === 'DOCUMENTS').map((c) => c.document.id));
    for (const c of on.chunks.filter((x) => x.lane === 'GRAPH')) expect(laneDocs.has(c.document.id)).toBe(false);
    const bad = await t.gql(ENRICH, { input: { query: QUESTION, graphShare: 1.5 } });
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(bad.errors?.[0]?.extensions?.field).toBe('input.graphShare');
  });

  it('brings the document of an entity the query names exactly, ahead of a name only partly in the query', async () => {
    const e = (
      await t.gql<{ enrichContext: Enriched }>(ENRICH, { input: { query: 'Shirley Temple', topK: 1, maxEntities: 5 } })
    ).data!.enrichContext;
    expect(e.entities[0]?.entity.id).toBe('person:temple');
    expect(e.entities[0]?.why).toBe('matched in the query');
    expect(e.documents[0]?.id).toBe('wiki:temple');
  });

  it('scopes graph evidence by the filter', async () => {
    const e = (
      await t.gql<{ enrichContext: Enriched }>(ENRICH, {
        input: { query: QUESTION, topK: 2, filter: { sources: ['films'] } },
      })
    ).data!.enrichContext;
    expect(e.documents.map((d) => d.id)).toEqual(['wiki:bright-eyes']);
    expect(e.chunks.filter((c) => c.lane === 'GRAPH')).toEqual([]);
  });
});
