import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projectShare } from '../helpers/projects.js';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import type { TestServer } from '../helpers/testServer.js';

/**
 * Graph evidence for a query that names no entity specifically: abstracts where a generic term ("Cells") is an entity
 * with its own page and many mentions, and "Hydroxyurea", a drug two abstracts name.
 */
const ENRICH = `query($input: EnrichContextInput!) { enrichContext(input: $input) {
  warnings
  chunks { lane why document { id } }
} }`;
const SEARCH = `query($input: SearchInput!) { search(input: $input) { document { id } } }`;

type Enriched = {
  warnings: string[];
  chunks: { lane: 'DOCUMENTS' | 'GRAPH'; why: string; document: { id: string } }[];
};

const ABSTRACTS = [
  [
    'stem-heart',
    'Stem cell therapy after myocardial infarction',
    'Bone marrow stem cells injected after myocardial infarction improved heart function and left ventricular ejection fraction at six months.',
  ],
  [
    'remodeling',
    'Ventricular remodeling after myocardial infarction',
    'After myocardial infarction the left ventricle remodels; heart function and ejection fraction fall in the first months.',
  ],
  [
    'beta-blockers',
    'Beta blockers and heart function',
    'Beta blockers given after myocardial infarction preserved heart function and reduced mortality at six months.',
  ],
  [
    'rehab',
    'Cardiac rehabilitation after infarction',
    'Exercise training after myocardial infarction improved heart function and quality of life.',
  ],
  ['cells', 'Cells', 'Every organism is built of cells; the cell is the basic unit of life.'],
  ['t-cells', 'T cells in autoimmunity', 'Regulatory T cells suppress autoimmune responses in the gut.'],
  ['tumour', 'Tumour cells and hypoxia', 'Tumour cells adapt to hypoxia by switching to glycolysis.'],
  ['plant', 'Plant cells and light', 'Plant cells sense light through phytochromes in their nuclei.'],
  ['neurons', 'Glial cells and neurons', 'Glial cells support neurons and clear glutamate from synapses.'],
  [
    'hydroxyurea',
    'Hydroxyurea in sickle cell disease',
    'Hydroxyurea reduced painful crises in adults with sickle cell disease.',
  ],
].map(([id, title, content]) => ({ id: `sci:${id}`, title: title as string, content: content as string }));

describe.each(projectShare(serverRuns()))('graph evidence for a query that names nothing specific ($name)', (run) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startRunServer(run);
    const docs = await t.gql(
      `mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { changed } }`,
      {
        input: ABSTRACTS,
      },
    );
    expect(docs.errors).toBeUndefined();
    const graph = await t.gql(
      `mutation($input: UpsertGraphInput!) { upsertGraph(input: $input) { entities { id } } }`,
      {
        input: {
          entities: [
            { id: 'term:cells', type: 'Concept', name: 'Cells' },
            { id: 'term:heart', type: 'Concept', name: 'heart function' },
          ],
          relationships: [{ fromId: 'term:cells', toId: 'term:heart', type: 'RELATED_TO', properties: { weight: 2 } }],
        },
      },
    );
    expect(graph.errors).toBeUndefined();
    const linked = await t.gql(
      `mutation($input: LinkDocumentEntitiesInput!) { linkDocumentEntities(input: $input) { id } }`,
      { input: { documentId: 'sci:cells', entityIds: ['term:cells'] } },
    );
    expect(linked.errors).toBeUndefined();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('reads no evidence chunks of a name more chunks mention than the cap, only its count', async () => {
    const request = { filter: {}, queryVector: null, homeChunks: 3, perEntity: 4, scanPerEntity: 32, countCap: 1000 };
    const graph = t.services.graph;
    const all = await graph.mentionEvidence(['term:cells', 'term:heart'], request);
    const capped = await graph.mentionEvidence(['term:cells', 'term:heart'], { ...request, chunksUpToMentions: 4 });
    const cells = all.mentionCounts.get('term:cells') ?? 0;
    expect(cells).toBeGreaterThan(4);
    expect(all.rows.some((r) => r.entityId === 'term:cells')).toBe(true);
    expect(capped.rows.some((r) => r.entityId === 'term:cells')).toBe(false);
    expect(capped.mentionCounts.get('term:cells')).toBe(cells);
    expect(capped.rows.filter((r) => r.entityId === 'term:heart')).toEqual(
      all.rows.filter((r) => r.entityId === 'term:heart'),
    );
  });

  it('appends no graph evidence that search ranks below the documents it would return next', async () => {
    const query = 'Do stem cells improve heart function after myocardial infarction?';
    const res = await t.gql<{ enrichContext: Enriched }>(ENRICH, { input: { query, topK: 2, maxEntities: 5 } });
    expect(res.errors).toBeUndefined();
    const e = res.data!.enrichContext;
    expect(e.warnings).toEqual([]);
    const found = await t.gql<{ search: { document: { id: string } }[] }>(SEARCH, {
      input: { query, topK: 10, groupByDocument: true },
    });
    // The documents lane leads with search's first topK documents and carries at most 2·topK − 1 chunks; weaker
    // documents-lane hits that fill the budget do not count as the lane's.
    const ranked = found.data!.search.map((h) => h.document.id);
    const lane = new Set(ranked.slice(0, 2));
    const next = ranked.filter((d) => !lane.has(d));
    const graph = e.chunks.filter((c) => c.lane === 'GRAPH').map((c) => c.document.id);
    // The generic term's own page would come through its home link; search ranks the heart abstracts first.
    expect(graph).not.toContain('sci:cells');
    for (const d of graph) expect(next.slice(0, 2 * lane.size - 1).includes(d)).toBe(true);
  });
});
