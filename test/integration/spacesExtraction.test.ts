import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { codeOf, gqlAs, type GqlHttpResponse } from '../helpers/auth.js';
import { projectShare } from '../helpers/projects.js';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import type { TestServer } from '../helpers/testServer.js';

// Graph extraction works in each document's space: the same page in two spaces makes two entities, one in each,
// names resolve and rejections apply within a space only, and extractGraph answers another space's document as a
// missing one; on the Postgres graph store and on Neo4j.

const PAGE = {
  title: 'Server Side Rendering',
  source: 'ssr.md',
  content: 'How the server renders pages before they reach the browser.',
};
const ENTITIES = '{ entities(filter: { nameContains: "Server Side" }) { nodes { id origin documents { id } } } }';

describe.each(projectShare(serverRuns()))('extraction in spaces ($name)', (run) => {
  let t: TestServer;
  const keys = { admin: '', beta: '' };
  const as = (key: string, query: string, variables?: Record<string, unknown>) =>
    gqlAs<Record<string, never>>(t.server.url, key, query, variables);
  const data = async (key: string, query: string, variables?: Record<string, unknown>) => {
    const res = await as(key, query, variables);
    expect(res.body.errors).toBeUndefined();
    return res.body.data as unknown;
  };
  const write = (key: string, id: string, content = PAGE.content, page = PAGE) =>
    data(key, 'mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { document { id } } }', {
      input: [{ ...page, id, content }],
    });

  beforeAll(async () => {
    t = await startRunServer(run, {
      CAIRN_EXTRACTION_EXTRACTORS: 'structural',
      CAIRN_EXTRACTION_POLL_MS: '0',
      CAIRN_EXTRACTION_CONCURRENCY: '1',
    });
    keys.admin = (await t.services.apiKeys.create('ops', 'admin')).key;
    await t.services.spaces.create({ id: 'beta' });
    keys.beta = (await t.services.apiKeys.create('beta-admin', 'admin', { spaces: ['beta'] })).key;
    await write(keys.admin, 'doc:ssr');
    await write(keys.beta, 'doc:ssr-beta');
    await t.services.extraction.drain();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('extracts each document’s entities into its own space', async () => {
    expect(await data(keys.admin, ENTITIES)).toEqual({
      entities: {
        nodes: [{ id: 'x:topic:server-side-rendering', origin: 'EXTRACTED', documents: [{ id: 'doc:ssr' }] }],
      },
    });
    expect(await data(keys.beta, ENTITIES)).toEqual({
      entities: {
        nodes: [{ id: 'x@beta:topic:server-side-rendering', origin: 'EXTRACTED', documents: [{ id: 'doc:ssr-beta' }] }],
      },
    });
    const counts = '{ knowledgeStats { extraction { pending running done failed } } }';
    const one = { knowledgeStats: { extraction: { pending: 0, running: 0, done: 1, failed: 0 } } };
    expect(await data(keys.beta, counts)).toEqual(one);
    expect(await data(keys.admin, counts)).toEqual(one);
  });

  it('rejects, accepts and undoes within the space only', async () => {
    const rejected = await data(
      keys.beta,
      'mutation { rejectEntity(id: "x@beta:topic:server-side-rendering") { deleted rejectedName } }',
    );
    expect(rejected).toEqual({ rejectEntity: { deleted: true, rejectedName: 'server side rendering' } });
    // Written again in both spaces: beta's rejection keeps the name out of beta only.
    await write(keys.beta, 'doc:ssr-beta', `${PAGE.content} Again.`);
    await write(keys.admin, 'doc:ssr', `${PAGE.content} Again.`);
    await t.services.extraction.drain();
    expect(await data(keys.beta, ENTITIES)).toEqual({ entities: { nodes: [] } });
    expect(await data(keys.admin, ENTITIES)).toMatchObject({
      entities: { nodes: [{ id: 'x:topic:server-side-rendering' }] },
    });
    const { rows } = await t.services.db.query<{ space_id: string; name_key: string }>(
      'SELECT space_id, name_key FROM extraction_rejections',
    );
    expect(rows).toEqual([{ space_id: 'beta', name_key: 'server side rendering' }]);

    // Beta's undo of its rejection brings its entity back, in beta.
    const log = (await data(keys.beta, '{ auditLog(filter: { operation: "rejectEntity" }) { nodes { id } } }')) as {
      auditLog: { nodes: { id: string }[] };
    };
    expect(log.auditLog.nodes).toHaveLength(1);
    await data(keys.beta, `mutation { undo(auditId: "${log.auditLog.nodes[0]?.id}") { id } }`);
    expect(await data(keys.beta, '{ entity(id: "x@beta:topic:server-side-rendering") { id } }')).toEqual({
      entity: { id: 'x@beta:topic:server-side-rendering' },
    });
    expect(
      await data(keys.admin, 'mutation { acceptEntity(id: "x:topic:server-side-rendering") { id origin } }'),
    ).toEqual({ acceptEntity: { id: 'x:topic:server-side-rendering', origin: 'MANUAL' } });
    expect(await data(keys.beta, ENTITIES)).toMatchObject({
      entities: { nodes: [{ id: 'x@beta:topic:server-side-rendering', origin: 'EXTRACTED' }] },
    });
  });

  it('extractGraph answers another space’s document as a missing one, and extracts its own', async () => {
    const extract = (id: string) =>
      as(keys.beta, `mutation { extractGraph(input: { documentIds: ["${id}"] }) { id } }`);
    const mask = (res: GqlHttpResponse, id: string) => JSON.stringify(res.body).split(id).join('<id>');
    const theirs = await extract('doc:ssr');
    expect(codeOf(theirs)).toBe('NOT_FOUND');
    expect(mask(theirs, 'doc:ssr')).toEqual(mask(await extract('doc:ghost'), 'doc:ghost'));
    await write(keys.beta, 'doc:csr-beta', 'Rendering in the browser.', { ...PAGE, title: 'Client Side Rendering' });
    await t.services.extraction.drain();
    const own = await extract('doc:csr-beta');
    expect(own.body.errors).toBeUndefined();
    const jobId = (own.body.data as unknown as { extractGraph: { id: string } }).extractGraph.id;
    expect((await t.services.imports.waitFor(jobId)).status).toBe('SUCCEEDED');
    const job = await data(keys.beta, `{ importJob(id: "${jobId}") { extraction { done entities } } }`);
    expect(job).toEqual({ importJob: { extraction: { done: 1, entities: 1 } } });
    expect(await data(keys.beta, '{ entity(id: "x@beta:topic:client-side-rendering") { documents { id } } }')).toEqual({
      entity: { documents: [{ id: 'doc:csr-beta' }] },
    });
  });

  it('cleans up after a document the expiry sweep deleted, in the document’s space', async () => {
    await write(keys.beta, 'doc:spa-beta', 'Pages that never reload.', { ...PAGE, title: 'Single Page Application' });
    await t.services.extraction.drain();
    const spa = '{ entity(id: "x@beta:topic:single-page-application") { id } }';
    expect(await data(keys.beta, spa)).toEqual({ entity: { id: 'x@beta:topic:single-page-application' } });
    await t.services.db.query(
      `UPDATE documents SET expires_at = now() - interval '1 minute' WHERE id = 'doc:spa-beta'`,
    );
    // The sweep runs outside any request; the facts the document alone supported go from its own space.
    expect(await t.services.documents.deleteExpired()).toBe(1);
    await t.services.extraction.drain();
    expect(await data(keys.beta, spa)).toEqual({ entity: null });
  });

  it('leaves nothing of extraction behind when the space is deleted', async () => {
    const ofBeta = async () =>
      (
        await t.services.db.query<{ n: number }>(
          `SELECT (SELECT count(*) FROM extraction_facts WHERE fact_key LIKE '%x@beta:%')
                + (SELECT count(*) FROM extraction_evidence WHERE fact_key LIKE '%x@beta:%') AS n`,
        )
      ).rows[0]?.n;
    expect(Number(await ofBeta())).toBeGreaterThan(0);
    await t.services.spaceDeletions.request('beta');
    expect((await t.services.spaceDeletions.waitFor('beta'))?.status).toBe('SUCCEEDED');
    expect(Number(await ofBeta())).toBe(0);
  });
});
