import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { codeOf, gqlAs, type GqlHttpResponse } from '../helpers/auth.js';
import { call, connectHttp } from '../helpers/mcp.js';
import { projectShare } from '../helpers/projects.js';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import type { TestServer } from '../helpers/testServer.js';

// A space declared readable by another (allowSpaceRead): keys of `team` read `shared` in their queries, as read-only
// context, and never `secret`; nothing they write reaches `shared`; a revocation applies to the next request.

/** Secret's text and ids: never in an answer to team. */
const SECRET = /doc:secret|ent:vault|Vault|cobalt/i;
const SHARED_QUERY = 'What does the Beacon Router depend on?';

const masked = (res: GqlHttpResponse, id: string) =>
  JSON.parse(JSON.stringify({ status: res.status, body: res.body }).split(id).join('<id>')) as unknown;

const everyDatabaseRuns = projectShare(serverRuns({ everyDatabase: true }));

describe.each(everyDatabaseRuns)('spaces read by other spaces ($name)', (run) => {
  let t: TestServer;
  const keys = { admin: '', team: '', teamAdmin: '', shared: '', secret: '' };
  const as = (key: string, query: string, variables?: Record<string, unknown>) =>
    gqlAs<Record<string, unknown>>(t.server.url, key, query, variables);
  const write = async (key: string, query: string) => expect((await as(key, query)).body.errors).toBeUndefined();
  const allow = (key: string, space: string, reads: string) =>
    as(key, 'mutation($i: SpaceReadInput!) { allowSpaceRead(input: $i) { id reads } }', { i: { space, reads } });
  const revoke = (key: string, space: string, reads: string) =>
    as(key, 'mutation($i: SpaceReadInput!) { revokeSpaceRead(input: $i) { id reads } }', { i: { space, reads } });
  /** Team's search and enrichContext about shared's knowledge. */
  const teamReads = async () =>
    (
      await as(
        keys.team,
        `{ search(input: { query: "Beacon Router Harbor Cache", topK: 20 }) { document { id space } }
           enrichContext(input: { query: "${SHARED_QUERY}", graphDepth: 2 }) {
             context citations { documentId space } entities { entity { id } } relationships { type } } }`,
      )
    ).body;

  beforeAll(async () => {
    t = await startRunServer(run);
    keys.admin = (await t.services.apiKeys.create('ops', 'admin')).key;
    for (const id of ['team', 'shared', 'secret']) await t.services.spaces.create({ id });
    keys.team = (await t.services.apiKeys.create('team-bot', 'editor', { spaces: ['team'] })).key;
    keys.teamAdmin = (await t.services.apiKeys.create('team-admin', 'admin', { spaces: ['team'] })).key;
    keys.shared = (await t.services.apiKeys.create('shared-bot', 'editor', { spaces: ['shared'] })).key;
    keys.secret = (await t.services.apiKeys.create('secret-bot', 'editor', { spaces: ['secret'] })).key;
    await write(
      keys.shared,
      'mutation { upsertGraph(input: { entities: [{ id: "ent:beacon", type: "Service", name: "Beacon Router" }, { id: "ent:harbor", type: "Service", name: "Harbor Cache" }], relationships: [{ fromId: "ent:beacon", toId: "ent:harbor", type: "DEPENDS_ON" }] }) { entities { id } } }',
    );
    await write(
      keys.shared,
      'mutation { createDocument(input: { id: "doc:shared", title: "Beacon handbook", content: "The Beacon Router depends on the Harbor Cache for routes." }) { document { id } } }',
    );
    await write(
      keys.secret,
      'mutation { upsertGraph(input: { entities: [{ id: "ent:vault", type: "Service", name: "Beacon Vault" }] }) { entities { id } } }',
    );
    await write(
      keys.secret,
      'mutation { createDocument(input: { id: "doc:secret", title: "Vault keys", content: "The Beacon Router cobalt keys sit in the Beacon Vault." }) { document { id } } }',
    );
    await write(
      keys.team,
      'mutation { upsertGraph(input: { entities: [{ id: "ent:team", type: "Service", name: "Team Portal" }] }) { entities { id } } }',
    );
  });
  afterAll(() => t?.close());

  it('is declared by an admin bound to every space only, and listed with the spaces', async () => {
    expect(codeOf(await allow(keys.team, 'team', 'shared'))).toBe('FORBIDDEN');
    expect(codeOf(await allow(keys.teamAdmin, 'team', 'shared'))).toBe('FORBIDDEN');
    expect(codeOf(await allow(keys.admin, 'team', 'nowhere'))).toBe('NOT_FOUND');
    expect(codeOf(await allow(keys.admin, 'team', 'team'))).toBe('BAD_USER_INPUT');
    expect(codeOf(await revoke(keys.admin, 'team', 'shared'))).toBe('NOT_FOUND');
    // Before the declaration, team reads nothing of shared.
    expect(JSON.stringify(await teamReads())).not.toMatch(/doc:shared|ent:beacon/);
    expect((await allow(keys.admin, 'team', 'shared')).body.data).toEqual({
      allowSpaceRead: { id: 'team', reads: ['shared'] },
    });
    expect((await allow(keys.admin, 'team', 'shared')).body.errors).toBeUndefined(); // idempotent
    const { spaces } = (await as(keys.admin, '{ spaces { id reads } }')).body.data as {
      spaces: { id: string; reads: string[] }[];
    };
    expect(spaces.filter((s) => s.id !== 'default')).toEqual([
      { id: 'secret', reads: [] },
      { id: 'shared', reads: [] },
      { id: 'team', reads: ['shared'] },
    ]);
  });

  it('lets team’s queries read shared, cited with its space, and never secret', async () => {
    const body = await teamReads();
    expect(body.errors).toBeUndefined();
    const data = body.data as {
      search: { document: { id: string; space: string } }[];
      enrichContext: {
        context: string;
        citations: { documentId: string; space: string }[];
        entities: { entity: { id: string } }[];
        relationships: { type: string }[];
      };
    };
    expect(data.search).toEqual([{ document: { id: 'doc:shared', space: 'shared' } }]);
    expect(data.enrichContext.citations).toEqual([{ documentId: 'doc:shared', space: 'shared' }]);
    expect(data.enrichContext.context).toContain('Beacon handbook (space: shared)');
    expect(data.enrichContext.context).toContain('- Beacon Router (Service, space: shared)');
    expect(data.enrichContext.entities.map((e) => e.entity.id)).toEqual(
      expect.arrayContaining(['ent:beacon', 'ent:harbor']),
    );
    expect(data.enrichContext.relationships).toEqual([{ type: 'DEPENDS_ON' }]);
    expect(JSON.stringify(body)).not.toMatch(SECRET);
    const lookups = await as(
      keys.team,
      '{ document(id: "doc:shared") { space } entity(id: "ent:beacon") { space neighbors { entity { id } } documents { id } } own: entity(id: "ent:team") { space } entities { totalCount } secret: document(id: "doc:secret") { id } vault: entity(id: "ent:vault") { id } }',
    );
    expect(lookups.body.data).toEqual({
      document: { space: 'shared' },
      entity: { space: 'shared', neighbors: [{ entity: { id: 'ent:harbor' } }], documents: [{ id: 'doc:shared' }] },
      own: { space: 'team' },
      entities: { totalCount: 3 },
      secret: null,
      vault: null,
    });
    const client = await connectHttp(t.server.url, keys.team);
    try {
      const found = JSON.stringify(await call(client, 'search', { query: 'Beacon Router Harbor Cache' }));
      expect(found).toContain('doc:shared');
      const context = JSON.stringify(await call(client, 'enrich_context', { query: SHARED_QUERY }));
      expect(context).toContain('Beacon handbook (space: shared)');
      expect(`${found}${context}`).not.toMatch(SECRET);
    } finally {
      await client.close();
    }
  });

  it('widens MCP resources as it widens the reading tools, marking shared’s, never secret’s', async () => {
    const client = await connectHttp(t.server.url, keys.team);
    const read = (uri: string) =>
      client.readResource({ uri }).then(
        (r) => JSON.stringify(r),
        (err: Error) => err.message,
      );
    try {
      const pages = [await client.listResources()];
      for (let next = pages[0]?.nextCursor; next !== undefined; next = pages.at(-1)?.nextCursor)
        pages.push(await client.listResources({ cursor: next }));
      const listed = pages.flatMap((p) => p.resources.map((r) => [r.uri, r.description ?? '']));
      expect(listed).toEqual(
        expect.arrayContaining([
          ['cairn://documents/doc%3Ashared', expect.stringContaining('(space: shared)')],
          ['cairn://entities/ent%3Abeacon', expect.stringContaining('(space: shared)')],
          ['cairn://entities/ent%3Ateam', expect.not.stringContaining('space:')],
        ]),
      );
      expect(JSON.stringify(listed)).not.toMatch(SECRET);
      expect(await read('cairn://documents/doc%3Ashared')).toContain('depends on the Harbor Cache');
      const beacon = await read('cairn://entities/ent%3Abeacon');
      expect(beacon).toContain('DEPENDS_ON');
      expect(beacon).toContain('\\"space\\": \\"shared\\"');
      // Secret stays unreadable, exactly as a missing id.
      const mask = (text: string, id: string) => text.split(encodeURIComponent(id)).join('<id>').split(id).join('<id>');
      for (const [kind, id] of [
        ['documents', 'doc:secret'],
        ['entities', 'ent:vault'],
      ] as const)
        expect(mask(await read(`cairn://${kind}/${encodeURIComponent(id)}`), id)).toEqual(
          mask(await read(`cairn://${kind}/ghost%3A1`), 'ghost:1'),
        );
    } finally {
      await client.close();
    }
  });

  it('writes from team never reach shared: they answer as for missing ids and change nothing', async () => {
    const probes: [string, (id: string) => string, string][] = [
      [
        keys.team,
        (id) => `mutation { updateDocument(id: "${id}", input: { title: "x" }) { document { id } } }`,
        'doc:shared',
      ],
      [keys.team, (id) => `mutation { updateEntity(id: "${id}", input: { name: "x" }) { id } }`, 'ent:beacon'],
      [keys.teamAdmin, (id) => `mutation { deleteDocument(id: "${id}") { id } }`, 'doc:shared'],
      [keys.teamAdmin, (id) => `mutation { deleteEntity(id: "${id}") { id } }`, 'ent:beacon'],
      [keys.teamAdmin, (id) => `mutation { mergeEntities(keepId: "ent:team", mergeId: "${id}") { id } }`, 'ent:beacon'],
      [
        keys.team,
        (id) => `mutation { createRelationship(input: { fromId: "ent:team", toId: "${id}", type: "CALLS" }) { id } }`,
        'ent:harbor',
      ],
      [
        keys.team,
        (id) => `mutation { linkDocumentEntities(input: { documentId: "${id}", entityIds: ["ent:team"] }) { id } }`,
        'doc:shared',
      ],
    ];
    for (const [key, query, id] of probes)
      expect(masked(await as(key, query(id)), id)).toEqual(masked(await as(key, query('ghost:1')), 'ghost:1'));
    const taken = await as(
      keys.team,
      'mutation { createDocument(input: { id: "doc:shared", title: "x", content: "x" }) { document { id } } }',
    );
    expect(codeOf(taken)).toBe('CONFLICT');
    // A document of team naming shared's entities does not link them (mentions stay in their space).
    await write(
      keys.team,
      'mutation { createDocument(input: { id: "doc:team", title: "Portal", content: "The Team Portal calls the Beacon Router." }) { document { id } } }',
    );
    const linked = await as(keys.team, '{ document(id: "doc:team") { entities { id } } }');
    expect(linked.body.data).toEqual({ document: { entities: [{ id: 'ent:team' }] } });
    const intact = await as(
      keys.shared,
      '{ document(id: "doc:shared") { title } entity(id: "ent:beacon") { name relationships { type } documents { id } } graphStats { entityCount } }',
    );
    expect(intact.body.data).toEqual({
      document: { title: 'Beacon handbook' },
      entity: { name: 'Beacon Router', relationships: [{ type: 'DEPENDS_ON' }], documents: [{ id: 'doc:shared' }] },
      graphStats: { entityCount: 2 },
    });
  });

  it('stops at the next request once revoked, and shared never reads team', async () => {
    const fromShared = await as(keys.shared, '{ search(input: { query: "Team Portal" }) { document { id } } }');
    expect(fromShared.body.errors).toBeUndefined();
    expect(JSON.stringify(fromShared.body)).not.toContain('doc:team');
    expect((await revoke(keys.admin, 'team', 'shared')).body.data).toEqual({
      revokeSpaceRead: { id: 'team', reads: [] },
    });
    const after = await teamReads();
    expect(after.errors).toBeUndefined();
    expect(JSON.stringify(after)).not.toMatch(/doc:shared|ent:beacon|ent:harbor|space: shared/);
    const lookups = await as(keys.team, '{ document(id: "doc:shared") { id } entities { totalCount } }');
    expect(lookups.body.data).toEqual({ document: null, entities: { totalCount: 1 } });
  });

  it('forgets a space’s declarations as its deletion starts', async () => {
    expect((await allow(keys.admin, 'team', 'shared')).body.errors).toBeUndefined();
    expect(JSON.stringify(await teamReads())).toContain('doc:shared');
    await write(keys.admin, 'mutation { deleteSpace(id: "shared") { status } }');
    expect(JSON.stringify(await teamReads())).not.toMatch(/doc:shared|ent:beacon/);
    const { spaces } = (await as(keys.admin, '{ spaces { id reads } }')).body.data as {
      spaces: { id: string; reads: string[] }[];
    };
    expect(spaces.find((s) => s.id === 'team')).toEqual({ id: 'team', reads: [] });
    expect(codeOf(await allow(keys.admin, 'team', 'shared'))).toBe('NOT_FOUND');
  });
});
