import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { codeOf, gqlAs, type GqlHttpResponse } from '../helpers/auth.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixtureSite.js';
import { countedCallHeaders, countStatements } from '../helpers/statementCounter.js';
import { call, connectHttp } from '../helpers/mcp.js';
import { projectShare } from '../helpers/projects.js';
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
const SECRETS = /doc:beta|ent:orchid|ent:tulip|ent:violet|Orchid|Tulip|quorum|Lilac|Violet/i;

/** POSTs a one-file upload with `key`; returns its id. */
async function upload(url: string, key: string, fileName: string, text: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'text/markdown' }), fileName);
  const res = await fetch(`${url}/v1/uploads`, {
    method: 'POST',
    body: form,
    headers: { 'apollo-require-preflight': 'true', authorization: `Bearer ${key}` },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** A subscription's events until `until` says stop, or its error (as JSON), with `key` over graphql-ws. */
function subscribeAs<T>(url: string, key: string, query: string, until: (value: T) => boolean): Promise<T[] | string> {
  const client = createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    connectionParams: { authorization: `Bearer ${key}` },
  });
  const seen: T[] = [];
  return new Promise<T[] | string>((resolve) => {
    const stop = client.subscribe<T>(
      { query },
      {
        next: (result) => {
          if (result.errors) return resolve(JSON.stringify(result.errors));
          seen.push(result.data as T);
          if (until(result.data as T)) {
            stop();
            resolve(seen);
          }
        },
        error: (err) => resolve(JSON.stringify(err)),
        complete: () => resolve(seen),
      },
    );
  }).finally(() => client.dispose());
}

const everyDatabaseRuns = projectShare(serverRuns({ everyDatabase: true }));

describe.each(everyDatabaseRuns)('spaces under attack ($name)', (run) => {
  let t: TestServer;
  let site: FixtureSite;
  let folderRoot: string;
  const keys = { admin: '', attacker: '', attackerAdmin: '', beta: '', betaAdmin: '' };
  const as = (key: string, query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) =>
    gqlAs<Record<string, never>>(t.server.url, key, query, variables, headers);
  const attack = (query: string, variables?: Record<string, unknown>) =>
    as(keys.attacker, query, variables, countedCallHeaders());
  /**
   * The attacker's answer about beta's `id` equals its answer about a missing id (both masked), and costs the same
   * statements: no path does more work for an id that exists elsewhere, so its time cannot tell the two apart.
   */
  const sameAsMissing = async (query: (id: string) => string, id: string) => {
    const probe = await countStatements(() => attack(query(id)));
    const missing = await countStatements(() => attack(query('ghost:1')));
    // The answer repeats the id the attacker sent, and nothing else of beta.
    expect(JSON.stringify(masked(probe.value, id))).not.toMatch(SECRETS);
    expect(masked(probe.value, id)).toEqual(masked(missing.value, 'ghost:1'));
    expect({ statements: probe.statements, neo4j: probe.neo4j }).toEqual({
      statements: missing.statements,
      neo4j: missing.neo4j,
    });
    return probe.value;
  };

  beforeAll(async () => {
    site = await startFixtureSite({
      '/lilac.html': {
        body: '<html><head><title>Lilac runbook</title></head><body><p>Lilac rotates at noon.</p></body></html>',
        type: 'text/html',
      },
    });
    folderRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-attacker-'));
    fs.mkdirSync(path.join(folderRoot, 'handbook'));
    fs.writeFileSync(path.join(folderRoot, 'handbook', 'lilac.md'), '# Lilac\n\nLilac keys rotate weekly.');
    t = await startRunServer(run, {
      CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      CAIRN_SOURCES_FOLDER_ROOT: folderRoot,
      CAIRN_SOURCES_CACHE_DIR: path.join(folderRoot, '.cache'),
    });
    keys.admin = (await t.services.apiKeys.create('ops', 'admin')).key;
    for (const id of ['alpha', 'beta']) await t.services.spaces.create({ id });
    keys.attacker = (await t.services.apiKeys.create('attacker', 'editor', { spaces: ['alpha'] })).key;
    keys.beta = (await t.services.apiKeys.create('beta-team', 'editor', { spaces: ['beta'] })).key;
    keys.attackerAdmin = (await t.services.apiKeys.create('attacker-admin', 'admin', { spaces: ['alpha'] })).key;
    keys.betaAdmin = (await t.services.apiKeys.create('beta-admin', 'admin', { spaces: ['beta'] })).key;
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
  afterAll(async () => {
    await t?.close();
    await site?.close();
    if (folderRoot) fs.rmSync(folderRoot, { recursive: true, force: true });
  });

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

  it('import jobs, sources and uploads of another space answer as missing ones', async () => {
    type Job = { importUrl: { job: { id: string; status: string } } };
    const url = `${site.url}/lilac.html`;
    const imported = await as(keys.beta, `mutation { importUrl(input: { url: "${url}" }) { job { id status } } }`);
    const betaJob = (imported.body.data as unknown as Job).importUrl.job;
    expect(betaJob.status).toBe('SUCCEEDED');
    const created = await as(
      keys.beta,
      'mutation { createSource(input: { name: "handbook", kind: FOLDER, path: "handbook" }) { id } }',
    );
    const betaSource = (created.body.data as unknown as { createSource: { id: string } }).createSource.id;
    const synced = await as(keys.beta, `mutation { syncSource(id: "${betaSource}", async: false) { status } }`);
    expect(synced.body.data).toEqual({ syncSource: { status: 'SUCCEEDED' } });
    const betaUpload = await upload(t.server.url, keys.beta, 'lilac.md', '# Lilac\n\nLilac is the upload of beta.');

    await sameAsMissing((id) => `{ importJob(id: "${id}") { id status documents { id } } }`, betaJob.id);
    await sameAsMissing((id) => `mutation { resumeImportJob(id: "${id}") { job { id } } }`, betaJob.id);
    await sameAsMissing((id) => `mutation { undoImportJob(id: "${id}") { undone } }`, betaJob.id);
    await sameAsMissing((id) => `{ source(id: "${id}") { id name } }`, betaSource);
    await sameAsMissing((id) => `{ source(id: "${id}") { id name } }`, 'handbook');
    await sameAsMissing((id) => `mutation { syncSource(id: "${id}") { id } }`, betaSource);
    await sameAsMissing((id) => `mutation { updateSource(id: "${id}", input: { tags: ["x"] }) { id } }`, betaSource);
    await sameAsMissing((id) => `{ documents(sourceId: "${id}") { totalCount } }`, betaSource);
    await sameAsMissing((id) => `mutation { importUpload(input: { uploadId: "${id}" }) { job { id } } }`, betaUpload);
    const lists = await attack('{ importJobs { totalCount nodes { id } } sources { id } }');
    expect(lists.body.data).toEqual({ importJobs: { totalCount: 0, nodes: [] }, sources: [] });

    // Beta's job, source and documents are as they were.
    const intact = await as(
      keys.beta,
      `{ importJobs { totalCount } source(id: "${betaSource}") { name documentCount } documents(sourceId: "${betaSource}") { totalCount } }`,
    );
    expect(intact.body.errors).toBeUndefined();
    expect(intact.body.data).toEqual({
      importJobs: { totalCount: 2 },
      source: { name: 'handbook', documentCount: 1 },
      documents: { totalCount: 1 },
    });
  });

  it('the attacker’s imports and syncs land in its own space, never in another', async () => {
    // The same name, the same folder and the same URL as beta's: the attacker's source is its own, and what its
    // sync or import would write over beta's documents is refused, not written there.
    const created = await attack(
      'mutation { createSource(input: { name: "handbook", kind: FOLDER, path: "handbook" }) { id } }',
    );
    expect(created.body.errors).toBeUndefined();
    const own = (created.body.data as unknown as { createSource: { id: string } }).createSource.id;
    await attack(`mutation { syncSource(id: "${own}", async: false) { status } }`);
    await attack(`mutation { importUrl(input: { url: "${site.url}/lilac.html" }) { job { id } } }`);
    const fresh = await upload(
      t.server.url,
      keys.attacker,
      'roses.md',
      '# Alpha upload\n\nThe alpha upload speaks of roses.',
    );
    const imported = await attack(
      `mutation { importUpload(input: { uploadId: "${fresh}" }) { job { status } documents { id } } }`,
    );
    expect(imported.body.data).toMatchObject({ importUpload: { job: { status: 'SUCCEEDED' } } });
    const uploaded = (imported.body.data as unknown as { importUpload: { documents: { id: string }[] } }).importUpload
      .documents;
    // The upload's document is in alpha only.
    const mine = await attack(`{ document(id: "${uploaded[0]?.id}") { id } }`);
    expect(mine.body.data).toEqual({ document: { id: uploaded[0]?.id } });
    const theirs = await as(keys.beta, `{ document(id: "${uploaded[0]?.id}") { id } documents { totalCount } }`);
    expect(theirs.body.data).toEqual({ document: null, documents: { totalCount: 3 } });
    const jobs = await attack('{ importJobs { totalCount nodes { kind } } }');
    expect(jobs.body.data).toMatchObject({ importJobs: { totalCount: 3 } });
    // Beta's folder and page, named by the attacker's source and import, were written in neither space.
    const docs = await attack('{ documents { nodes { id } } }');
    expect(docs.body.data).toEqual({ documents: { nodes: [{ id: 'file:roses.md' }, { id: 'doc:alpha' }] } });
  });

  it('queued jobs and scheduled syncs write in the space they were made in', async () => {
    site.routes.set('/peony.html', {
      body: '<html><head><title>Peony</title></head><body><p>Peony pages the on-call.</p></body></html>',
      type: 'text/html',
    });
    fs.mkdirSync(path.join(folderRoot, 'weekly'));
    fs.writeFileSync(path.join(folderRoot, 'weekly', 'peony.md'), '# Peony\n\nPeony syncs every hour.');
    const queued = await as(
      keys.beta,
      `mutation { importUrl(input: { url: "${site.url}/peony.html", async: true }) { job { id } } }`,
    );
    const jobId = (queued.body.data as unknown as { importUrl: { job: { id: string } } }).importUrl.job.id;
    const created = await as(
      keys.beta,
      'mutation { createSource(input: { name: "weekly", kind: FOLDER, path: "weekly", schedule: "@hourly" }) { id } }',
    );
    const sourceId = (created.body.data as unknown as { createSource: { id: string } }).createSource.id;
    // The schedule comes due; the scheduler (outside any request) starts the sync.
    await t.services.db.query(`UPDATE sources SET next_run_at = now() - interval '1 minute' WHERE id = $1`, [sourceId]);
    const started = await t.services.sources.tick();
    expect(started.map((j) => j.space)).toEqual(['beta']);
    for (const id of [jobId, ...started.map((j) => j.id)])
      expect((await t.services.imports.waitFor(id)).status).toBe('SUCCEEDED');
    const beta = await as(
      keys.beta,
      `{ importJob(id: "${jobId}") { documents { id } } documents(sourceId: "${sourceId}") { totalCount } }`,
    );
    expect(beta.body.data).toMatchObject({
      importJob: { documents: [expect.anything()] },
      documents: { totalCount: 1 },
    });
    const { rows } = await t.services.db.query<{ space_id: string; n: number }>(
      `SELECT space_id, count(*)::int AS n FROM documents WHERE content LIKE '%Peony%' GROUP BY space_id`,
    );
    expect(rows).toEqual([{ space_id: 'beta', n: 2 }]);
  });

  it('subscriptions follow the subscriber’s space only', async () => {
    type SourceEvent = { sourceUpdated: { id: string } };
    const betaSource = (
      (await as(keys.beta, '{ sources { id } }')).body.data as unknown as { sources: { id: string }[] }
    ).sources[0]?.id as string;
    const betaJob = (
      (await as(keys.beta, '{ importJobs(first: 1) { nodes { id } } }')).body.data as unknown as {
        importJobs: { nodes: { id: string }[] };
      }
    ).importJobs.nodes[0]?.id as string;
    const probe = async (query: (id: string) => string, id: string) => {
      const theirs = await subscribeAs(t.server.url, keys.attacker, query(id), () => true);
      const missing = await subscribeAs(t.server.url, keys.attacker, query('ghost:1'), () => true);
      expect(typeof theirs).toBe('string');
      expect((theirs as string).split(id).join('<id>')).toEqual((missing as string).split('ghost:1').join('<id>'));
    };
    await probe((id) => `subscription { importJobUpdated(id: "${id}") { id status } }`, betaJob);
    await probe((id) => `subscription { sourceUpdated(id: "${id}") { id name } }`, betaSource);
    // Every source the attacker hears of is its own: its last one by name comes after all the others.
    const last = await attack(
      'mutation { createSource(input: { name: "zz-last", kind: FOLDER, path: "handbook" }) { id } }',
    );
    const lastId = (last.body.data as unknown as { createSource: { id: string } }).createSource.id;
    const own = ((await attack('{ sources { id } }')).body.data as unknown as { sources: { id: string }[] }).sources;
    const heard = await subscribeAs<SourceEvent>(
      t.server.url,
      keys.attacker,
      'subscription { sourceUpdated { id } }',
      (e) => e.sourceUpdated.id === lastId,
    );
    expect(heard).toEqual(own.map((s) => ({ sourceUpdated: { id: s.id } })));
  });

  it('every MCP tool and resource answers another space’s ids as missing ones', async () => {
    const client = await connectHttp(t.server.url, keys.attacker);
    try {
      const tool = async (name: string, args: (id: string) => Record<string, unknown>, id: string) => {
        const theirs = JSON.stringify(await call(client, name, args(id)));
        expect(theirs.split(id).join('<id>')).not.toMatch(SECRETS);
        expect(theirs.split(id).join('<id>')).toEqual(
          JSON.stringify(await call(client, name, args('ghost:1')))
            .split('ghost:1')
            .join('<id>'),
        );
      };
      await tool('get_document', (id) => ({ id }), 'doc:beta');
      await tool('entity_neighbors', (id) => ({ id }), 'ent:orchid');
      await tool('shortest_path', (id) => ({ fromId: id, toId: 'ent:tulip' }), 'ent:orchid');
      await tool('create_relationship', (id) => ({ fromId: 'ent:alpha', toId: id, type: 'CALLS' }), 'ent:orchid');
      const reads = [
        await call(client, 'find_entities', { nameContains: 'orchid' }),
        await call(client, 'find_entities', {}),
        await call(client, 'search', { query: 'Orchid Gateway quorum Tulip Lilac' }),
        await call(client, 'knowledge_gaps', {}),
      ];
      for (const read of reads) expect(read.isError).toBeFalsy();
      // The attacker's own document names "the Orchid Gateway of nobody"; nothing else of beta's may show.
      expect(JSON.stringify(reads).replace(/Orchid Gateway of nobody/g, '')).not.toMatch(SECRETS);
      const enrich = await call(client, 'enrich_context', { query: 'What does the Orchid Gateway depend on?' });
      expect(JSON.stringify(enrich).replace(/Orchid Gateway of nobody/g, '')).not.toMatch(/doc:beta|ent:orchid|Tulip/);
      const listed = await client.listResources();
      expect(listed.resources.map((r) => r.uri)).toContain('cairn://documents/doc%3Aalpha');
      expect(JSON.stringify(listed).replace(/Orchid Gateway of nobody/g, '')).not.toMatch(SECRETS);
      const read = async (uri: string) =>
        client.readResource({ uri }).then(
          (r) => JSON.stringify(r),
          (err: Error) => err.message,
        );
      expect(await read('cairn://documents/doc%3Aalpha')).toContain('The Alpha Gateway serves');
      const mask = (text: string, id: string) => text.split(encodeURIComponent(id)).join('<id>').split(id).join('<id>');
      for (const [kind, id] of [
        ['documents', 'doc:beta'],
        ['entities', 'ent:orchid'],
      ] as const) {
        const theirs = mask(await read(`cairn://${kind}/${encodeURIComponent(id)}`), id);
        expect(theirs).toEqual(mask(await read(`cairn://${kind}/ghost%3A1`), 'ghost:1'));
        expect(theirs).not.toMatch(SECRETS);
      }
    } finally {
      await client.close();
    }
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
