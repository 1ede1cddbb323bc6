import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openPgliteDb } from '../../src/db/pgliteDb.js';
import { projectPath } from '../../src/paths.js';
import { runCli, runCliInProcess, startCliServer } from '../helpers/cli.js';
import { scratchPglite, type ScratchDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixtureSite.js';

interface ItemLine {
  event: 'item';
  label: string;
  status: string;
  documentIds: string[];
  embeddedChunkCount: number;
  errorCode?: string;
}

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

// The `cairn import` commands on a data folder of their own (a copy of the migrated template): the first as the program
// itself, the others run in this process (runCliInProcess) to spare a process start each.
describe('cairn import (embedded default)', () => {
  let data: ScratchDatabase;
  let dataDir: string;
  let folder: string;
  let site: FixtureSite;
  const env = () => ({
    CAIRN_DATA_DIR: dataDir,
    CAIRN_EMBEDDING_PROVIDER: 'hashing',
    CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
  });

  /** A document's tags, read from the data folder while no CLI process holds it. */
  const tagsOf = async (id: string): Promise<string[]> => {
    const db = await openPgliteDb(path.join(dataDir, 'pglite'));
    try {
      return (await db.query<{ tags: string[] }>('SELECT tags FROM documents WHERE id = $1', [id])).rows[0]?.tags ?? [];
    } finally {
      await db.close();
    }
  };

  beforeAll(async () => {
    data = await scratchPglite();
    dataDir = data.env.CAIRN_DATA_DIR!;
    folder = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-dir-')), 'handbook');
    fs.cpSync(projectPath('test', 'fixtures', 'imports', 'handbook'), folder, { recursive: true });
    // Hidden folders and node_modules must be skipped (they cannot live in the repository's fixture).
    fs.mkdirSync(path.join(folder, '.git'));
    fs.writeFileSync(path.join(folder, '.git', 'notes.md'), '# hidden\n\nnever imported');
    fs.mkdirSync(path.join(folder, 'node_modules', 'pkg'), { recursive: true });
    fs.writeFileSync(path.join(folder, 'node_modules', 'pkg', 'readme.md'), '# vendored\n\nnever imported');
    site = await startFixtureSite({
      '/faq': {
        body: '<html><head><title>FAQ</title></head><body><main><h1>FAQ</h1><p>Refunds take five business days to reach the card.</p></main></body></html>',
        type: 'text/html',
      },
      '/spec.yaml': {
        body: 'openapi: 3.0.0\ninfo: { title: Tiny, version: "1" }\npaths:\n  /ping:\n    get:\n      operationId: ping\n      responses: { "200": { description: pong } }\n',
        type: 'application/yaml',
      },
      '/slow-a': { body: '# A\n\nfirst slow page', type: 'text/markdown', delayMs: 1500 },
    });
  });
  afterAll(async () => {
    await site?.close();
    await data?.drop();
    fs.rmSync(path.dirname(folder), { recursive: true, force: true });
  });

  it('imports a folder, skipping hidden folders, node_modules and unsupported files; a re-run re-embeds nothing and says so', async () => {
    const first = await runCli(['import', 'dir', folder, '--json', '--tag', 'handbook'], env());
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const events = lines(first.stdout);
    const items = events.filter((e) => e.event === 'item') as unknown as ItemLine[];
    expect(items.map((i) => i.label).sort()).toEqual([
      'README.md',
      'policies/leave.txt',
      'runbooks/cache.html',
      'runbooks/database-failover.md',
    ]);
    expect(items.every((i) => i.status === 'SUCCEEDED' && i.embeddedChunkCount > 0)).toBe(true);
    expect(items.find((i) => i.label === 'runbooks/database-failover.md')!.documentIds).toEqual([
      'file:handbook/runbooks/database-failover.md',
    ]);
    expect(events.at(-1)).toMatchObject({ event: 'summary', status: 'SUCCEEDED', items: 4 });

    const again = await runCliInProcess(['import', 'dir', folder, '--tag', 'handbook'], env());
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('0 embedded');
    expect(again.stderr).toContain('no chunk was re-embedded');
  });

  it('imports URLs and an OpenAPI spec, and exits 1 when an item fails', async () => {
    const ok = await runCliInProcess(['import', 'url', `${site.url}/faq`, '--json', '--tag', 'support'], env());
    expect(ok.code).toBe(0);
    expect(lines(ok.stdout)[0]).toMatchObject({ event: 'item', status: 'SUCCEEDED', documentIds: [`${site.url}/faq`] });
    // A re-import with no --tag keeps the page's tags; --tag replaces them.
    expect((await runCliInProcess(['import', 'url', `${site.url}/faq`], env())).code).toBe(0);
    expect(await tagsOf(`${site.url}/faq`)).toEqual(['support']);
    expect((await runCliInProcess(['import', 'url', `${site.url}/faq`, '--tag', 'billing'], env())).code).toBe(0);
    expect(await tagsOf(`${site.url}/faq`)).toEqual(['billing']);

    const spec = await runCliInProcess(['import', 'openapi', `${site.url}/spec.yaml`, '--json'], env());
    expect(spec.code).toBe(0);
    expect((lines(spec.stdout)[0] as unknown as ItemLine).documentIds.length).toBe(2);

    const mixed = await runCliInProcess(
      ['import', 'url', `${site.url}/faq`, 'http://169.254.169.254/latest/meta-data/', '--json'],
      env(),
    );
    expect(mixed.code).toBe(1);
    const [good, blocked, summary] = lines(mixed.stdout);
    expect(good).toMatchObject({ status: 'SUCCEEDED' });
    expect(blocked).toMatchObject({ status: 'FAILED', errorCode: 'IMPORT_FETCH_BLOCKED' });
    expect(summary).toMatchObject({ event: 'summary', status: 'PARTIAL' });
  });

  it('labels a spec file that fails with its path, not "inline spec"', async () => {
    const file = path.join(path.dirname(folder), 'broken.yaml');
    fs.writeFileSync(
      file,
      'openapi: 3.0.0\ninfo: { title: Broken, version: "1" }\npaths:\n  /x:\n    get:\n      summary: no responses\n',
    );
    const res = await runCliInProcess(['import', 'openapi', file], env());
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`✗ ${file}: [INVALID_OPENAPI] The spec does not validate`);
    expect(res.stderr).not.toContain('inline spec');
  });

  it("resolves a spec file's $refs to files beside it; --skip-unresolved-refs imports the rest with a warning", async () => {
    const dir = path.join(path.dirname(folder), 'backend');
    fs.mkdirSync(path.join(dir, 'openapi', 'consumed'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'openapi', 'consumed', 'user.yaml'),
      'type: object\nproperties:\n  id: { type: string }\n',
    );
    const file = path.join(dir, 'api_backend.yaml');
    const schema = (ref: string) =>
      `      responses:\n        "200":\n          description: ok\n          content:\n            application/json:\n              schema: { $ref: "${ref}" }\n`;
    fs.writeFileSync(
      file,
      `openapi: 3.0.0\ninfo: { title: Backend, version: "1" }\npaths:\n  /users:\n    get:\n${schema('openapi/consumed/user.yaml')}  /orders:\n    get:\n${schema('openapi/consumed/order.yaml')}`,
    );
    const refused = await runCliInProcess(['import', 'openapi', file], env());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      '$ref "openapi/consumed/order.yaml" at api_backend.yaml#/paths/~1orders/get/responses/200/content/application~1json/schema cannot be resolved',
    );
    expect(refused.stderr).not.toContain('uploaded');
    const partial = await runCliInProcess(
      ['import', 'openapi', file, '--skip-unresolved-refs', '--spec-id', 'backend'],
      env(),
    );
    expect(partial.code).toBe(0);
    expect(partial.stderr).toContain(
      'warning: Skipped $ref "openapi/consumed/order.yaml" at api_backend.yaml#/paths/~1orders/get/responses/200/content/application~1json/schema',
    );
    expect((await runCliInProcess(['import', 'dir', dir, '--skip-unresolved-refs'], env())).stderr).toContain(
      '--skip-unresolved-refs applies to import openapi only',
    );
    // A spec found by import dir resolves its $refs the same way.
    fs.writeFileSync(
      path.join(dir, 'openapi', 'consumed', 'order.yaml'),
      'type: object\nproperties:\n  total: { type: number }\n',
    );
    const folderImport = await runCliInProcess(['import', 'dir', dir, '--json'], env());
    const spec = lines(folderImport.stdout).find((e) => e.label === 'api_backend.yaml') as unknown as ItemLine;
    expect(spec).toMatchObject({ status: 'SUCCEEDED' });
    expect(spec.documentIds).toHaveLength(3);
  }, 240_000);

  it('refuses a spec file whose title another spec file holds, and imports it beside it with --spec-id', async () => {
    const specFile = (team: string, host: string, paths: string[], version = '1') => {
      const dir = path.join(path.dirname(folder), team);
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, 'openapi.yaml');
      const ops = paths.map((p) => `  ${p}:\n    get:\n      responses: { "200": { description: ok } }\n`).join('');
      fs.writeFileSync(
        file,
        `openapi: 3.0.0\ninfo: { title: Team API, version: "${version}" }\nservers: [{ url: "https://${host}" }]\npaths:\n${ops}`,
      );
      return file;
    };
    const teamA = specFile('team-a', 'a.example.com', ['/accounts']);
    expect((await runCliInProcess(['import', 'openapi', teamA], env())).code).toBe(0);

    const teamB = specFile('team-b', 'b.example.com', ['/orders']);
    const refused = await runCliInProcess(['import', 'openapi', teamB], env());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `✗ ${teamB}: [CONFLICT] spec id "team-api" already belongs to the spec "Team API" (given inline, source "${teamA}")`,
    );
    expect(refused.stderr).toContain('--spec-id');

    const separate = await runCliInProcess(['import', 'openapi', teamB, '--spec-id', 'team-b-api', '--json'], env());
    expect(separate.code).toBe(0);
    expect((lines(separate.stdout)[0] as unknown as ItemLine).documentIds).toEqual([
      'openapi:team-b-api',
      'openapi:team-b-api:GET%20/orders',
    ]);

    // The same spec, updated, from the same file: replaced as before.
    specFile('team-a', 'a.example.com', ['/accounts', '/accounts/{id}'], '2');
    const updated = await runCliInProcess(['import', 'openapi', teamA, '--json'], env());
    expect(updated.code).toBe(0);
    expect((lines(updated.stdout)[0] as unknown as ItemLine).documentIds).toHaveLength(3);
  });

  it('resumes a job on restart when the server died mid-import', async () => {
    const { child, url } = await startCliServer(env());
    const gql = async <T>(query: string, variables: Record<string, unknown> = {}, base = url): Promise<T> => {
      const res = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      const body = (await res.json()) as { data: T; errors?: unknown[] };
      expect(body.errors).toBeUndefined();
      return body.data;
    };
    // One URL per job item; the job waits on the slow pages, so the kill lands mid-job.
    const started = await gql<{ importUrl: { job: { id: string } } }>(
      `mutation { importUrl(input: {url: "${site.url}/slow-a", async: true}) { job { id } } }`,
    );
    const jobId = started.importUrl.job.id;
    await eventually(() => site.hits.get('/slow-a'), { what: 'the job fetching /slow-a' });
    expect(site.hits.get('/slow-a')).toBe(1);
    const died = new Promise((r) => child.on('exit', r));
    child.kill('SIGKILL');
    await died;

    // The restarted server owns the data folder alone, so the dead run's lease is void: it takes the job over at once.
    const again = await startCliServer(env());
    try {
      type Job = { importJob: { status: string; documents: { id: string }[] } };
      const job = await eventually(
        async () => {
          const found = await gql<Job>(
            `query($id: ID!) { importJob(id: $id) { status documents { id } } }`,
            { id: jobId },
            again.url,
          );
          return found.importJob.status !== 'RUNNING' && found;
        },
        { what: 'the restarted server finishing the job' },
      );
      expect(job.importJob).toEqual({ status: 'SUCCEEDED', documents: [{ id: `${site.url}/slow-a` }] });
      expect(site.hits.get('/slow-a')).toBe(2);
    } finally {
      const exited = new Promise((r) => again.child.on('exit', r));
      again.child.kill('SIGTERM');
      await exited;
    }
  });
});
