import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { codeOf, gqlAs, type GqlHttpResponse } from '../helpers/auth.js';
import { laneShare } from '../helpers/lanes.js';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import type { TestServer } from '../helpers/testServer.js';

// An attacker holding an editor key of space `alpha` probes space `beta`: every id, count, cursor, total, error,
// citation, relationship line and entity document it can reach answers exactly as for a thing that does not exist.

/** The response with every listed id replaced by one placeholder, so answers about two ids compare. */
const masked = (res: GqlHttpResponse, ...ids: string[]) => {
  let text = JSON.stringify({ status: res.status, body: res.body });
  for (const id of ids) text = text.split(id).join('<id>');
  return JSON.parse(text) as unknown;
};

/** Beta's secrets: none of these may ever appear in an answer to the attacker. */
const SECRETS = /doc:beta|ent:orchid|ent:tulip|Orchid|Tulip|quorum/i;

const everyDatabaseRuns = laneShare(serverRuns({ everyDatabase: true }));

describe.each(everyDatabaseRuns)('spaces under attack ($name)', (run) => {
  let t: TestServer;
  const keys = { admin: '', attacker: '', beta: '' };
  const as = (key: string, query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) =>
    gqlAs<Record<string, never>>(t.server.url, key, query, variables, headers);
  const attack = (query: string, variables?: Record<string, unknown>) => as(keys.attacker, query, variables);
  /** The attacker's answer about beta's `id` equals its answer about a missing id (both masked). */
  const sameAsMissing = async (query: (id: string) => string, id: string) => {
    const probe = await attack(query(id));
    // The answer repeats the id the attacker sent, and nothing else of beta.
    expect(JSON.stringify(masked(probe, id))).not.toMatch(SECRETS);
    expect(masked(probe, id)).toEqual(masked(await attack(query('ghost:1')), 'ghost:1'));
    return probe;
  };

  beforeAll(async () => {
    t = await startRunServer(run);
    keys.admin = (await t.services.apiKeys.create('ops', 'admin')).key;
    for (const id of ['alpha', 'beta']) await t.services.spaces.create({ id });
    keys.attacker = (await t.services.apiKeys.create('attacker', 'editor', { spaces: ['alpha'] })).key;
    keys.beta = (await t.services.apiKeys.create('beta-team', 'editor', { spaces: ['beta'] })).key;
    const write = async (key: string, query: string) => expect((await as(key, query)).body.errors).toBeUndefined();
    await write(
      keys.beta,
      'mutation { upsertGraph(input: { entities: [{ id: "ent:orchid", type: "Service", name: "Orchid Gateway" }, { id: "ent:tulip", type: "Service", name: "Tulip Store" }], relationships: [{ fromId: "ent:orchid", toId: "ent:tulip", type: "DEPENDS_ON" }] }) { entities { id } } }',
    );
    await write(
      keys.beta,
      'mutation { createDocument(input: { id: "doc:beta", title: "Orchid quorum", content: "The Orchid Gateway needs a quorum of three Tulip Store replicas." }) { document { id } } }',
    );
    await write(
      keys.attacker,
      'mutation { upsertGraph(input: { entities: [{ id: "ent:alpha", type: "Service", name: "Alpha Gateway" }] }) { entities { id } } }',
    );
    await write(
      keys.attacker,
      'mutation { createDocument(input: { id: "doc:alpha", title: "Alpha notes", content: "The Alpha Gateway serves the Orchid Gateway of nobody." }) { document { id } } }',
    );
  });
  afterAll(() => t?.close());

  it('reads of another space’s ids answer as missing ones', async () => {
    await sameAsMissing((id) => `{ document(id: "${id}") { id title } }`, 'doc:beta');
    await sameAsMissing((id) => `{ entity(id: "${id}") { id name documents { id } } }`, 'ent:orchid');
    await sameAsMissing(
      (id) => `{ subgraph(input: { entityIds: ["${id}"], depth: 2 }) { entities { id } relationships { id } } }`,
      'ent:orchid',
    );
    await sameAsMissing(
      (id) => `{ shortestPath(input: { fromId: "${id}", toId: "ent:tulip" }) { entities { id } } }`,
      'ent:orchid',
    );
  });

  it('writes naming another space’s ids fail as for missing ones and change nothing', async () => {
    const probes: [(id: string) => string, string][] = [
      [(id) => `mutation { updateDocument(id: "${id}", input: { title: "x" }) { document { id } } }`, 'doc:beta'],
      [(id) => `mutation { deleteDocument(id: "${id}") { id } }`, 'doc:beta'],
      [(id) => `mutation { updateEntity(id: "${id}", input: { name: "x" }) { id } }`, 'ent:orchid'],
      [(id) => `mutation { deleteEntity(id: "${id}") { id } }`, 'ent:orchid'],
      [
        (id) => `mutation { createRelationship(input: { fromId: "ent:alpha", toId: "${id}", type: "CALLS" }) { id } }`,
        'ent:orchid',
      ],
      [
        (id) => `mutation { linkDocumentEntities(input: { documentId: "doc:alpha", entityIds: ["${id}"] }) { id } }`,
        'ent:orchid',
      ],
      [
        (id) => `mutation { linkDocumentEntities(input: { documentId: "${id}", entityIds: ["ent:alpha"] }) { id } }`,
        'doc:beta',
      ],
    ];
    for (const [query, id] of probes) await sameAsMissing(query, id);
    const rel = (await as(keys.beta, '{ entity(id: "ent:orchid") { relationships { id } } }')).body.data as unknown as {
      entity: { relationships: { id: string }[] };
    };
    const relId = rel.entity.relationships[0]?.id as string;
    await sameAsMissing((id) => `mutation { deleteRelationship(id: "${id}") { id } }`, relId);
    const intact = await as(
      keys.beta,
      '{ document(id: "doc:beta") { title } entity(id: "ent:orchid") { name relationships { id } documents { id } } }',
    );
    expect(intact.body.data).toEqual({
      document: { title: 'Orchid quorum' },
      entity: { name: 'Orchid Gateway', relationships: [{ id: relId }], documents: [{ id: 'doc:beta' }] },
    });
  });

  it('counts, totals, lists and cursors cover the attacker’s space only', async () => {
    const lists = await attack(
      '{ documents { totalCount edges { cursor } nodes { id } } entities { totalCount nodes { id } } knowledgeStats { documentCount chunkCount } graphStats { entityCount relationshipCount byType { key count } } }',
    );
    expect(lists.body.data).toEqual({
      documents: { totalCount: 1, edges: [expect.anything()], nodes: [{ id: 'doc:alpha' }] },
      entities: { totalCount: 1, nodes: [{ id: 'ent:alpha' }] },
      knowledgeStats: { documentCount: 1, chunkCount: 1 },
      graphStats: { entityCount: 1, relationshipCount: 0, byType: [{ key: 'Service', count: 1 }] },
    });
    // Beta's own cursors, replayed by the attacker, page the attacker's space.
    const betaPage = (
      await as(keys.beta, '{ documents(first: 1) { edges { cursor } } entities(first: 1) { edges { cursor } } }')
    ).body.data as unknown as { documents: { edges: { cursor: string }[] }; entities: { edges: { cursor: string }[] } };
    const replay = await attack(
      'query($d: String, $e: String) { documents(after: $d) { totalCount nodes { id } } entities(after: $e) { totalCount nodes { id } } }',
      { d: betaPage.documents.edges[0]?.cursor, e: betaPage.entities.edges[0]?.cursor },
    );
    expect(JSON.stringify(replay.body)).not.toMatch(SECRETS);
    const filtered = await attack('{ entities(filter: { nameContains: "orchid" }) { totalCount } }');
    expect(filtered.body.data).toEqual({ entities: { totalCount: 0 } });
  });

  it('retrieval cites, links and describes nothing of another space', async () => {
    const search = await attack(
      '{ search(input: { query: "Orchid Gateway quorum Tulip replicas", topK: 20 }) { document { id title } } }',
    );
    expect(JSON.stringify(search.body)).not.toMatch(SECRETS);
    const enrich = await attack(
      '{ enrichContext(input: { query: "What does the Orchid Gateway depend on?", graphDepth: 2 }) { context citations { documentId title } entities { entity { id name } } relationships { id type } documents { id } } }',
    );
    expect(enrich.body.errors).toBeUndefined();
    expect(JSON.stringify(enrich.body).replace(/Orchid Gateway of nobody/g, '')).not.toMatch(
      /doc:beta|ent:orchid|ent:tulip|Tulip|quorum|DEPENDS_ON/,
    );
    // The attacker's document names "Orchid Gateway": the name links nothing across spaces.
    const own = await attack('{ document(id: "doc:alpha") { entities { id } } }');
    expect(JSON.stringify(own.body)).not.toMatch(/ent:orchid/);
  });

  it('schema errors carry no suggestions, and no space-bound key widens itself', async () => {
    const typo = await attack('{ documnt(id: "doc:beta") { id } }');
    expect(codeOf(typo)).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(JSON.stringify(typo.body)).not.toMatch(/Did you mean/);
    const header = await attack('{ documents { totalCount } }', undefined);
    expect(codeOf(header)).toBeUndefined();
    const crossed = await as(keys.attacker, '{ documents { totalCount } }', undefined, { 'cairn-space': 'beta' });
    const nowhere = await as(keys.attacker, '{ documents { totalCount } }', undefined, { 'cairn-space': 'gamma' });
    expect(masked(crossed, 'beta')).toEqual(masked(nowhere, 'gamma'));
    expect(codeOf(crossed)).toBe('FORBIDDEN');
    const widen = await attack(
      'mutation { createApiKey(input: { name: "w", role: READER, spaces: ["beta"] }) { key } }',
    );
    expect(codeOf(widen)).toBe('FORBIDDEN');
  });
});
