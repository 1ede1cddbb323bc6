import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { walkDirectory } from '../../importers/index.js';
import { validateDocumentDefaults } from '../../src/documents/validateInput.js';
import { projectPath } from '../../src/paths.js';
import { dbTargets } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

// The default extractors (structural and offline) on a small docs site imported with the folder importer, as a user
// would: no entity, link or relationship is written by hand. Through the real HTTP server, on both databases.

const SITE = projectPath('test/fixtures/imports/docsite');

interface EntityNode {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  origin: string;
  evidence: { totalCount: number; nodes: { quote: string; document: { id: string } }[] };
  relationships: { type: string; origin: string; from: { name: string }; to: { name: string } }[];
}

const ENTITIES = `query($first: Int) { entities(filter: { origin: [EXTRACTED] }, first: $first) { totalCount nodes {
  id name type aliases origin evidence(first: 5) { totalCount nodes { quote document { id } } }
  relationships(direction: OUT) { type origin from { name } to { name } } } } }`;

describe.each(dbTargets())('the graph builds itself from an imported docs site ($name)', (target) => {
  let t: TestServer;
  const byName = async () => {
    const res = await t.gql<{ entities: { nodes: EntityNode[] } }>(ENTITIES, { first: 40 });
    expect(res.errors).toBeUndefined();
    return new Map((res.data?.entities.nodes ?? []).map((e) => [e.name, e]));
  };

  beforeAll(async () => {
    t = await startTestServer(target, {
      CAIRN_EXTRACTION_EXTRACTORS: 'structural,offline',
      // A model no request can reach: a dry run must estimate without sending anything.
      CAIRN_EXTRACTION_LLM_MODEL: 'unreachable-model',
      CAIRN_EXTRACTION_LLM_BASE_URL: 'http://127.0.0.1:9/v1',
      CAIRN_EXTRACTION_LLM_API_KEY: 'sk-never-sent',
      CAIRN_EXTRACTION_LLM_PRICE_INPUT: '1',
    });
    const files = await walkDirectory(SITE);
    const job = await t.services.imports.submit({
      kind: 'directory',
      root: SITE,
      files,
      defaults: validateDocumentDefaults({}, 'import dir'),
    });
    expect(job.status).toBe('SUCCEEDED');
    await t.services.extraction.drain();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts every imported document as extracted', async () => {
    const res = await t.gql<{ knowledgeStats: { extraction: Record<string, number> } }>(
      '{ knowledgeStats { extraction { pending running done failed } } }',
    );
    expect(res.data?.knowledgeStats.extraction).toEqual({ pending: 0, running: 0, done: 4, failed: 0 });
    const doc = await t.gql<{ document: { extraction: Record<string, unknown> } }>(
      '{ document(id: "file:docsite/guide/caching.md") { extraction { status error entities relationships extractedAt } } }',
    );
    expect(doc.errors).toBeUndefined();
    expect(doc.data?.document.extraction).toMatchObject({ status: 'DONE', error: null });
    expect(doc.data?.document.extraction.entities).toBeGreaterThan(3);
    expect(doc.data?.document.extraction.extractedAt).toEqual(expect.any(String));
  });

  it('makes pages, code identifiers and defined terms entities, each with quoted evidence', async () => {
    const entities = await byName();
    expect(entities.get('Response Caching')).toMatchObject({ origin: 'EXTRACTED' });
    expect(entities.get('cache.ttl')).toMatchObject({ type: 'ConfigOption' });
    expect(entities.get('Time To Live')?.aliases).toContain('TTL');
    expect(entities.get('Edge Cache')).toBeDefined();
    for (const e of entities.values()) {
      expect(e.evidence.totalCount).toBeGreaterThan(0);
      expect(e.evidence.nodes[0]?.quote.length).toBeGreaterThan(0);
    }
    const ttl = entities.get('cache.ttl') as EntityNode;
    expect(ttl.evidence.nodes.map((n) => n.document.id)).toContain('file:docsite/config/cache-options.md');
  });

  it('turns links between the imported pages into LINKS_TO between their entities, both ways here', async () => {
    const links = [...(await byName()).values()]
      .flatMap((e) => e.relationships)
      .filter((r) => r.type === 'LINKS_TO')
      .map((r) => `${r.from.name} -> ${r.to.name}`);
    expect(links).toEqual(
      expect.arrayContaining([
        'Response Caching -> Cache Options',
        'Response Caching -> Deploying',
        'Deploying -> Response Caching',
      ]),
    );
  });

  it('gives enrichContext entities and graph evidence for a question naming them', async () => {
    const res = await t.gql<{
      enrichContext: { entities: { entity: { name: string } }[]; citations: { documentId: string }[] };
    }>(
      '{ enrichContext(input: { query: "How long does an entry of the Edge Cache live?" }) { entities { entity { name } } citations { documentId } } }',
    );
    expect(res.errors).toBeUndefined();
    expect(res.data?.enrichContext.entities.map((e) => e.entity.name)).toContain('Edge Cache');
    expect(res.data?.enrichContext.citations.map((c) => c.documentId)).toContain(
      'file:docsite/config/cache-options.md',
    );
  });

  it('estimates what the LLM would be sent for the chosen documents, sending nothing', async () => {
    const res = await t.gql<{
      extractGraph: { status: string; extractionEstimate: Record<string, number | null> };
    }>(
      'mutation { extractGraph(input: { filter: {}, extractors: [LLM], dryRun: true }) { status extractionEstimate { documents chunks cachedChunks estimatedInputTokens estimatedCostUsd } } }',
    );
    expect(res.errors).toBeUndefined();
    expect(res.data?.extractGraph.status).toBe('SUCCEEDED');
    const estimate = res.data?.extractGraph.extractionEstimate ?? {};
    expect(estimate).toMatchObject({ documents: 4, cachedChunks: 0 });
    expect(estimate.chunks).toBeGreaterThanOrEqual(4);
    expect(estimate.estimatedInputTokens).toBeGreaterThan(0);
    expect(estimate.estimatedCostUsd).toBeGreaterThan(0);
  });

  it('removes what a changed page alone supported, and keeps what a person wrote', async () => {
    await t.gql('mutation { createEntity(input: { id: "team:edge", type: "Team", name: "Edge Team" }) { id } }');
    const page = path.join(SITE, 'guide/deploying.md');
    expect((await byName()).has('lattice build')).toBe(true);
    const changed = fs.readFileSync(page, 'utf8').replace('Run `lattice build`', 'Build the site');
    const updated = await t.gql(
      'mutation($c: String!) { updateDocument(id: "file:docsite/guide/deploying.md", input: { content: $c }) { changed } }',
      { c: changed },
    );
    expect(updated.errors).toBeUndefined();
    await t.services.extraction.drain();
    const after = await byName();
    expect(after.has('lattice build')).toBe(false); // only the deploying page named it
    expect(after.has('Deploying')).toBe(true);
    await t.gql('mutation { deleteDocument(id: "file:docsite/glossary.md") { deleted } }');
    await t.services.extraction.drain();
    const gone = await byName();
    expect(gone.has('Glossary')).toBe(false);
    expect(gone.has('Purge')).toBe(false);
    expect(gone.has('Edge Cache')).toBe(true); // the caching page still names it
    const manual = await t.gql<{ entity: { origin: string } | null }>('{ entity(id: "team:edge") { origin } }');
    expect(manual.data?.entity).toEqual({ origin: 'MANUAL' });
  });
});
