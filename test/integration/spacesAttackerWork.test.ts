import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { call, connectHttp } from '../helpers/mcp.js';
import { projectShare } from '../helpers/projects.js';
import { serverRuns } from '../helpers/serverRuns.js';
import { attackScene, SECRETS, subscribeAs, upload } from '../helpers/spacesAttack.js';

// An attacker holding an editor key of space `alpha` probes space `beta` through its imports, sources, uploads and
// jobs, subscriptions and MCP: each answers beta's ids as missing ones, and the attacker's own work lands in `alpha`.

const everyDatabaseRuns = projectShare(serverRuns({ everyDatabase: true }));

describe.each(everyDatabaseRuns)('spaces under attack: imports, jobs, subscriptions and MCP ($name)', (run) => {
  const s = attackScene(run);
  const { keys, as, attack, sameAsMissing } = s;

  it('import jobs, sources and uploads of another space answer as missing ones', async () => {
    type Job = { importUrl: { job: { id: string; status: string } } };
    const url = `${s.site.url}/lilac.html`;
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
    const betaUpload = await upload(s.t.server.url, keys.beta, 'lilac.md', '# Lilac\n\nLilac is the upload of beta.');

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
    await attack(`mutation { importUrl(input: { url: "${s.site.url}/lilac.html" }) { job { id } } }`);
    const fresh = await upload(
      s.t.server.url,
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
    s.site.routes.set('/peony.html', {
      body: '<html><head><title>Peony</title></head><body><p>Peony pages the on-call.</p></body></html>',
      type: 'text/html',
    });
    fs.mkdirSync(path.join(s.folderRoot, 'weekly'));
    fs.writeFileSync(path.join(s.folderRoot, 'weekly', 'peony.md'), '# Peony\n\nPeony syncs every hour.');
    const queued = await as(
      keys.beta,
      `mutation { importUrl(input: { url: "${s.site.url}/peony.html", async: true }) { job { id } } }`,
    );
    const jobId = (queued.body.data as unknown as { importUrl: { job: { id: string } } }).importUrl.job.id;
    const created = await as(
      keys.beta,
      'mutation { createSource(input: { name: "weekly", kind: FOLDER, path: "weekly", schedule: "@hourly" }) { id } }',
    );
    const sourceId = (created.body.data as unknown as { createSource: { id: string } }).createSource.id;
    // The schedule comes due; the scheduler (outside any request) starts the sync.
    await s.t.services.db.query(`UPDATE sources SET next_run_at = now() - interval '1 minute' WHERE id = $1`, [
      sourceId,
    ]);
    const started = await s.t.services.sources.tick();
    expect(started.map((j) => j.space)).toEqual(['beta']);
    for (const id of [jobId, ...started.map((j) => j.id)])
      expect((await s.t.services.imports.waitFor(id)).status).toBe('SUCCEEDED');
    const beta = await as(
      keys.beta,
      `{ importJob(id: "${jobId}") { documents { id } } documents(sourceId: "${sourceId}") { totalCount } }`,
    );
    expect(beta.body.data).toMatchObject({
      importJob: { documents: [expect.anything()] },
      documents: { totalCount: 1 },
    });
    const { rows } = await s.t.services.db.query<{ space_id: string; n: number }>(
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
      const theirs = await subscribeAs(s.t.server.url, keys.attacker, query(id), () => true);
      const missing = await subscribeAs(s.t.server.url, keys.attacker, query('ghost:1'), () => true);
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
      s.t.server.url,
      keys.attacker,
      'subscription { sourceUpdated { id } }',
      (e) => e.sourceUpdated.id === lastId,
    );
    expect(heard).toEqual(own.map((s) => ({ sourceUpdated: { id: s.id } })));
  });

  it('every MCP tool and resource answers another space’s ids as missing ones', async () => {
    const client = await connectHttp(s.t.server.url, keys.attacker);
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
});
