import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projectShare } from '../helpers/projects.js';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import type { TestServer } from '../helpers/testServer.js';

/**
 * The graph lane over a graph shaped like an extracted one: a page entity per document (named by its title, the bare
 * title as alias, linked explicitly to its page), proper names from prose, generic key terms and weighted RELATED_TO.
 */
const ENRICH = `query($input: EnrichContextInput!) { enrichContext(input: $input) {
  warnings
  chunks { lane score why document { id } }
  documents { id }
} }`;

type Enriched = {
  warnings: string[];
  chunks: { lane: 'DOCUMENTS' | 'GRAPH'; score: number; why: string; document: { id: string } }[];
  documents: { id: string }[];
};

interface Page {
  id: string;
  title: string;
  content: string;
}

/** Writes the documents, then the graph as extraction would: entities, relationships, explicit home links. */
async function extractedGraph(
  t: TestServer,
  pages: Page[],
  entities: { id: string; type: string; name: string; aliases?: string[]; home?: string }[],
  relationships: { fromId: string; toId: string; type: string; properties?: Record<string, unknown> }[] = [],
): Promise<void> {
  const docs = await t.gql(`mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { changed } }`, {
    input: pages,
  });
  expect(docs.errors).toBeUndefined();
  const graph = await t.gql(`mutation($input: UpsertGraphInput!) { upsertGraph(input: $input) { entities { id } } }`, {
    input: { entities: entities.map(({ home: _home, ...e }) => e), relationships },
  });
  expect(graph.errors).toBeUndefined();
  for (const e of entities.filter((x) => x.home !== undefined)) {
    const linked = await t.gql(
      `mutation($input: LinkDocumentEntitiesInput!) { linkDocumentEntities(input: $input) { id } }`,
      { input: { documentId: e.home, entityIds: [e.id] } },
    );
    expect(linked.errors).toBeUndefined();
  }
}

const FILM_PAGES: Page[] = [
  {
    id: 'wiki:kiss-film',
    title: 'Kiss and Tell (1945 film)',
    content:
      'Kiss and Tell is a 1945 American comedy film starring Shirley Temple as teenager Corliss Archer. The film ' +
      'was directed by Richard Wallace and based on the play by F. Hugh Herbert.',
  },
  {
    id: 'wiki:temple',
    title: 'Shirley Temple',
    content:
      'Shirley Temple Black was an American actress, singer and dancer. As an adult she entered politics and ' +
      'diplomacy: she served as United States Ambassador to Ghana and to Czechoslovakia, and as Chief of Protocol.',
  },
  {
    id: 'wiki:kiss-song',
    title: 'Kiss and Tell (Bryan Ferry song)',
    content:
      'Kiss and Tell is a song by Bryan Ferry, released in 1988 as a single from the album Bete Noire. The star ' +
      'of its music video held the position of lead dancer.',
  },
  {
    id: 'wiki:harbour',
    title: 'Port of Tema',
    content: 'The Port of Tema is the largest seaport of Ghana, built in 1962 east of Accra.',
  },
];

const FILM_ENTITIES = [
  {
    id: 'page:kiss-film',
    type: 'Page',
    name: 'Kiss and Tell (1945 film)',
    aliases: ['Kiss and Tell'],
    home: 'wiki:kiss-film',
  },
  { id: 'page:temple', type: 'Page', name: 'Shirley Temple', home: 'wiki:temple' },
  {
    id: 'page:kiss-song',
    type: 'Page',
    name: 'Kiss and Tell (Bryan Ferry song)',
    aliases: ['Kiss and Tell'],
    home: 'wiki:kiss-song',
  },
  { id: 'page:tema', type: 'Page', name: 'Port of Tema', home: 'wiki:harbour' },
  { id: 'name:archer', type: 'Person', name: 'Corliss Archer' },
  { id: 'name:ferry', type: 'Person', name: 'Bryan Ferry' },
  { id: 'name:ghana', type: 'Place', name: 'Ghana' },
];

const FILM_RELATIONSHIPS = [
  { fromId: 'page:kiss-film', toId: 'page:temple', type: 'RELATED_TO', properties: { weight: 1 } },
  { fromId: 'page:kiss-film', toId: 'name:archer', type: 'RELATED_TO', properties: { weight: 1 } },
  { fromId: 'page:kiss-song', toId: 'name:ferry', type: 'RELATED_TO', properties: { weight: 1 } },
  { fromId: 'page:temple', toId: 'name:ghana', type: 'RELATED_TO', properties: { weight: 1 } },
  { fromId: 'page:tema', toId: 'name:ghana', type: 'RELATED_TO', properties: { weight: 1 } },
];

/** These suites check what the lanes return, not how fast: a busy machine must not drop a lane (a timing test). */
const SCORED_NOT_TIMED = { CAIRN_ENRICH_LANE_TIMEOUT_MS: '120000' };

const QUESTION = 'Which government position did the star of Kiss and Tell (1945 film) hold?';

/** Framework docs where every page says "request": the key term "Request" names a page about something else. */
const DOCS_PAGES: Page[] = [
  {
    id: 'docs:request',
    title: 'Request',
    content:
      'Security note: never trust the X-Forwarded-For header unless the application runs behind a trusted proxy; ' +
      'enable trustProxy only then.',
  },
  {
    id: 'docs:body',
    title: 'Reading the body',
    content:
      'To read the request body in a route handler, await request.json() for JSON payloads or request.text() for ' +
      'plain text. The body can be read once per request.',
  },
  ...[
    ['routing', 'Routing', 'Each request is matched against the routes in the order they were added.'],
    ['headers', 'Headers', 'Read a request header with request.headers.get(); names are case-insensitive.'],
    ['cookies', 'Cookies', 'Cookies sent with a request are parsed lazily on first access.'],
    ['errors', 'Errors', 'An error thrown while handling a request becomes a 500 response unless caught.'],
    ['timeouts', 'Timeouts', 'A request that takes longer than the server timeout is aborted.'],
    ['hooks', 'Hooks', 'The onRequest hook runs before routing for every request the server receives.'],
    ['logging', 'Logging', 'Every request is logged with its method, path, status and duration.'],
  ].map(([id, title, content]) => ({ id: `docs:${id}`, title: title as string, content: content as string })),
];

describe.each(projectShare(serverRuns()))('enrichContext over an extracted graph ($name)', (run) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startRunServer(run, SCORED_NOT_TIMED);
    await extractedGraph(t, FILM_PAGES, FILM_ENTITIES, FILM_RELATIONSHIPS);
    await extractedGraph(t, DOCS_PAGES, [{ id: 'page:request', type: 'Page', name: 'Request', home: 'docs:request' }]);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('reaches the star through the bridge entity, not the song that shares the bare title', async () => {
    const res = await t.gql<{ enrichContext: Enriched }>(ENRICH, {
      input: { query: QUESTION, topK: 1, maxEntities: 5 },
    });
    expect(res.errors).toBeUndefined();
    const e = res.data!.enrichContext;
    expect(e.warnings).toEqual([]);
    const order = e.chunks.map((c) => c.document.id);
    expect(order).toContain('wiki:temple');
    const song = order.indexOf('wiki:kiss-song');
    if (song >= 0) expect(order.indexOf('wiki:temple')).toBeLessThan(song);
    expect(e.chunks.find((c) => c.document.id === 'wiki:temple')?.why).toMatch(/Shirley Temple/);
  });

  it('does not put the page of a generic term that many documents mention first', async () => {
    const res = await t.gql<{ enrichContext: Enriched }>(ENRICH, {
      input: { query: 'How do I read the request body in a route handler?', topK: 3, maxEntities: 5 },
    });
    expect(res.errors).toBeUndefined();
    const e = res.data!.enrichContext;
    expect(e.chunks[0]?.document.id).toBe('docs:body');
    expect(e.chunks[0]?.lane).toBe('DOCUMENTS');
  });

  it('still puts the page of a specific name the query names first', async () => {
    const res = await t.gql<{ enrichContext: Enriched }>(ENRICH, {
      input: { query: 'In which 1945 comedy film did Shirley Temple play Corliss Archer?', topK: 1, maxEntities: 5 },
    });
    expect(res.errors).toBeUndefined();
    const e = res.data!.enrichContext;
    expect(e.documents[0]?.id).toBe('wiki:temple');
    // The documents lane alone ranks the film first: the named entity's page leads because its name is specific.
    expect(e.chunks.find((c) => c.lane === 'DOCUMENTS')?.document.id).toBe('wiki:kiss-film');
  });
});

/**
 * A second hop through a bridge that has no page of its own: the film's paragraph names its director, and the only
 * other paragraph naming him holds the answer while sharing almost no word with the question. Papers about company
 * directors and spouses are what search ranks next.
 */
const BRIDGE_PAGES: Page[] = [
  {
    id: 'wiki:big-eyes',
    title: 'Big Eyes',
    content:
      'Big Eyes is a 2014 American biographical drama film directed by Tim Burton, about the painter Margaret Keane ' +
      'and her husband.',
  },
  {
    id: 'wiki:apes',
    title: 'Planet of the Apes (2001 film)',
    content:
      'Planet of the Apes is a 2001 science fiction film made by Tim Burton. While shooting it, Burton met Helena ' +
      'Bonham Carter, who became his partner for thirteen years.',
  },
  ...[
    ['spouse-law', 'Spouse of a director', 'The spouse of a main director of a company may not sit on its board.'],
    ['director-duties', 'Duties of a director', 'A main director answers to the board; a spouse is no director.'],
    ['main-director', 'Main director', 'Who is the main director of a company is set in its articles of association.'],
    ['spouse-tax', 'Spouse allowance', 'A spouse of a director may claim the marriage allowance once a year.'],
  ].map(([id, title, content]) => ({ id: `law:${id}`, title: title as string, content: content as string })),
];

const BRIDGE_ENTITIES = [
  { id: 'page:big-eyes', type: 'Page', name: 'Big Eyes', home: 'wiki:big-eyes' },
  { id: 'page:apes', type: 'Page', name: 'Planet of the Apes (2001 film)', home: 'wiki:apes' },
  { id: 'name:burton', type: 'Person', name: 'Tim Burton' },
];

describe.each(projectShare(serverRuns()))('enrichContext over a bridge named in a retrieved chunk ($name)', (run) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startRunServer(run, SCORED_NOT_TIMED);
    await extractedGraph(t, BRIDGE_PAGES, BRIDGE_ENTITIES);
  });
  afterAll(async () => {
    await t?.close();
  });

  const ask = async (graph: boolean) => {
    const res = await t.gql<{ enrichContext: Enriched & { context: string } }>(
      `query($input: EnrichContextInput!) { enrichContext(input: $input) {
        warnings context chunks { lane score why document { id } } documents { id } } }`,
      {
        input: {
          query: "Who is the spouse of Big Eyes's main director?",
          topK: 1,
          maxChars: 1000,
          ...(graph ? { maxEntities: 5 } : { maxEntities: 0, graphShare: 0 }),
        },
      },
    );
    expect(res.errors).toBeUndefined();
    return res.data!.enrichContext;
  };

  it("reaches the answer through the director the top chunk names, where search's next pages do not", async () => {
    const off = await ask(false);
    expect(off.documents.map((d) => d.id)).not.toContain('wiki:apes');
    const on = await ask(true);
    expect(on.warnings).toEqual([]);
    const evidence = on.chunks.find((c) => c.document.id === 'wiki:apes');
    expect(evidence?.lane).toBe('GRAPH');
    expect(evidence?.why).toMatch(/Tim Burton/);
    expect(on.context).toContain('Helena Bonham Carter');
  });
});
