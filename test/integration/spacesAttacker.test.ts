import { describe, expect, it } from '@jest/globals';
import { codeOf } from '../helpers/auth.js';
import { countStatements } from '../helpers/statementCounter.js';
import { projectShare } from '../helpers/projects.js';
import { serverRuns } from '../helpers/serverRuns.js';
import { attackScene, masked, SECRETS } from '../helpers/spacesAttack.js';

// An attacker holding an editor key of space `alpha` probes space `beta` through the API's reads and writes: every
// id, count, cursor, total, error, citation, relationship line, entity document, merge and audit entry it can reach
// answers exactly as for a thing that does not exist. (Imports, jobs, subscriptions and MCP: spacesAttackerWork.)

const everyDatabaseRuns = projectShare(serverRuns({ everyDatabase: true }));

describe.each(everyDatabaseRuns)('spaces under attack: reads and writes ($name)', (run) => {
  const s = attackScene(run);
  const { keys, as, attack, sameAsMissing } = s;

  it('reads of another space’s ids answer as missing ones', async () => {
    // The probes' statements are counted (some answer from caches, sending none either way).
    const read = await countStatements(() => attack('{ document(id: "doc:beta") { id title } }'));
    expect(read.statements + read.neo4j).toBeGreaterThan(0);
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

  it('curation, merges, undo and the audit log see and touch their own space only', async () => {
    type Data = Record<string, unknown>;
    const data = async (key: string, query: string) => {
      const res = await as(key, query);
      expect(res.body.errors).toBeUndefined();
      return res.body.data as unknown as Data;
    };
    const admin = (query: string) => as(keys.attackerAdmin, query);
    /** The attacker admin's answer about beta's `id` equals its answer about `missing`. */
    const probe = async (query: (id: string) => string, id: string, missing = 'ghost:1') => {
      const theirs = await admin(query(id));
      expect(JSON.stringify(masked(theirs, id))).not.toMatch(SECRETS);
      expect(masked(theirs, id)).toEqual(masked(await admin(query(missing)), missing));
      expect(codeOf(theirs)).toBe('NOT_FOUND');
    };
    // Beta writes two entities, merges them and deletes a document: audit entries, a merge and an undo target.
    await data(
      keys.beta,
      'mutation { upsertGraph(input: { entities: [{ id: "ent:violet", type: "Service", name: "Violet Cache" }, { id: "ent:violet-2", type: "Service", name: "Violet cache node" }] }) { entities { id } } }',
    );
    const merge = (await data(
      keys.betaAdmin,
      'mutation { mergeEntities(keepId: "ent:violet", mergeId: "ent:violet-2") { id } }',
    )) as {
      mergeEntities: { id: string };
    };
    const betaLog = (await data(
      keys.betaAdmin,
      '{ auditLog(first: 100) { totalCount edges { cursor node { id operation targetIds } } } }',
    )) as {
      auditLog: {
        totalCount: number;
        edges: { cursor: string; node: { id: string; operation: string; targetIds: string[] } }[];
      };
    };
    const betaEntry = betaLog.auditLog.edges.find((e) => e.node.operation === 'upsertGraph')?.node.id as string;
    expect(betaEntry).toBeDefined();
    const relId = (
      (await data(keys.beta, '{ entity(id: "ent:orchid") { relationships { id } } }')) as {
        entity: { relationships: { id: string }[] };
      }
    ).entity.relationships[0]?.id as string;

    // Beta's ids, sent to every curation and undo field, answer as missing ones.
    await probe((id) => `mutation { undo(auditId: "${id}") { id } }`, betaEntry, '999999999');
    await probe((id) => `mutation { undoMerge(mergeId: "${id}") { id } }`, merge.mergeEntities.id, 'merge_ghost');
    await probe((id) => `mutation { mergeEntities(keepId: "ent:alpha", mergeId: "${id}") { id } }`, 'ent:violet');
    await probe((id) => `mutation { mergeEntities(keepId: "${id}", mergeId: "ent:alpha") { id } }`, 'ent:orchid');
    await probe((id) => `mutation { rejectEntity(id: "${id}") { deleted } }`, 'ent:orchid');
    await probe((id) => `mutation { acceptEntity(id: "${id}") { id } }`, 'ent:orchid');
    await probe((id) => `mutation { rejectRelationship(id: "${id}") { id } }`, relId, 'rel_ghost');
    await probe((id) => `mutation { acceptRelationship(id: "${id}") { id } }`, relId, 'rel_ghost');

    // The attacker's audit log holds its own space's entries only, by any filter and from beta's cursors.
    const own = (await data(keys.attackerAdmin, '{ auditLog(first: 100) { totalCount nodes { targetIds } } }')) as {
      auditLog: { totalCount: number; nodes: { targetIds: string[] }[] };
    };
    expect(own.auditLog.totalCount).toBe(own.auditLog.nodes.length);
    expect(own.auditLog.nodes.length).toBeGreaterThan(0);
    expect(JSON.stringify(own)).not.toMatch(SECRETS);
    const byTarget = await data(
      keys.attackerAdmin,
      '{ auditLog(filter: { targetId: "ent:orchid" }) { totalCount nodes { id } } }',
    );
    expect(byTarget).toEqual({ auditLog: { totalCount: 0, nodes: [] } });
    const replay = await as(
      keys.attackerAdmin,
      'query($a: String) { auditLog(after: $a) { nodes { targetIds before after } } }',
      {
        a: betaLog.auditLog.edges[0]?.cursor,
      },
    );
    expect(JSON.stringify(replay.body)).not.toMatch(SECRETS);

    // Within its own space the attacker curates and undoes as usual.
    await data(
      keys.attackerAdmin,
      'mutation { upsertGraph(input: { entities: [{ id: "ent:alpha-2", type: "Service", name: "Alpha gateway node" }] }) { entities { id } } }',
    );
    const ownMerge = (await data(
      keys.attackerAdmin,
      'mutation { mergeEntities(keepId: "ent:alpha", mergeId: "ent:alpha-2") { id mergedName } }',
    )) as {
      mergeEntities: { id: string; mergedName: string };
    };
    expect(ownMerge.mergeEntities.mergedName).toBe('Alpha gateway node');
    await data(keys.attackerAdmin, `mutation { undoMerge(mergeId: "${ownMerge.mergeEntities.id}") { undoneAt } }`);
    const created = (await data(
      keys.attackerAdmin,
      'mutation { createEntity(input: { id: "ent:alpha-3", type: "Service", name: "Alpha scratch" }) { id } }',
    )) as Data;
    expect(created).toEqual({ createEntity: { id: 'ent:alpha-3' } });
    const latest = (await data(keys.attackerAdmin, '{ auditLog(first: 1) { nodes { id operation } } }')) as {
      auditLog: { nodes: { id: string; operation: string }[] };
    };
    expect(latest.auditLog.nodes[0]?.operation).toBe('createEntity');
    await data(keys.attackerAdmin, `mutation { undo(auditId: "${latest.auditLog.nodes[0]?.id}") { operation } }`);
    expect(await data(keys.attackerAdmin, '{ entity(id: "ent:alpha-3") { id } entities { totalCount } }')).toEqual({
      entity: null,
      entities: { totalCount: 2 },
    });

    // Nor can a space-bound admin delete (or watch the deletion of) another space.
    for (const field of ['mutation { deleteSpace', '{ spaceDeletion']) {
      const theirs = await admin(`${field}(id: "beta") { status } }`);
      expect(codeOf(theirs)).toBe('FORBIDDEN');
      expect(masked(theirs, 'beta')).toEqual(masked(await admin(`${field}(id: "gamma") { status } }`), 'gamma'));
    }

    // Beta's graph, merge and log are as beta left them.
    const after = (await data(
      keys.betaAdmin,
      '{ auditLog(first: 100) { totalCount } entity(id: "ent:orchid") { origin relationships { id } } violet: entity(id: "ent:violet") { aliases } }',
    )) as Data;
    expect(after).toEqual({
      auditLog: { totalCount: betaLog.auditLog.totalCount },
      entity: { origin: 'MANUAL', relationships: [{ id: relId }] },
      violet: { aliases: ['Violet cache node'] },
    });
  });
});
