import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { codeOf, gqlAs, startServerOn, type ServerOn } from '../helpers/auth.js';
import { eventually } from '../helpers/eventually.js';
import { runCli, runCliInProcess } from '../helpers/cli.js';
import { dbTargets, scratchPglite, type ScratchDatabase } from '../helpers/databases.js';

// Key management through the `cairn` command's entry point (part of the access-control suite, see auth.test.ts), run
// in this process: the commands need no process of their own, and the program itself runs in the last test.
describe.each(dbTargets())('access control through the cairn command ($name)', (target) => {
  let db: ScratchDatabase;
  let env: Record<string, string>;
  // PGlite allows one process per data folder: there the server stops while the CLI runs.
  const concurrent = target.name === 'postgres';
  beforeAll(async () => {
    db = await target.createDatabase();
    env = { ...db.env, CAIRN_EMBEDDING_PROVIDER: 'hashing' };
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('creates (printing the key once), lists and revokes keys that a server honours', async () => {
    let server: ServerOn | undefined = concurrent ? await startServerOn(env) : undefined;
    if (server)
      expect(codeOf(await gqlAs(server.server.url, undefined, '{ documents { totalCount } }'))).toBeUndefined();

    // A first key that is not an admin key would turn authentication on with nobody able to manage keys: refused.
    const refused = await runCliInProcess(['keys', 'create', '--role', 'agent', '--name', 'ci-bot'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the first key must be an admin key');
    expect(refused.stderr).toContain('--force');
    expect(JSON.parse((await runCliInProcess(['keys', 'list', '--json'], env)).stdout)).toEqual([]);
    const created = await runCliInProcess(['keys', 'create', '--role', 'agent', '--name', 'ci-bot', '--force'], env);
    expect(created.code).toBe(0);
    const agentKey = created.stdout.trim();
    expect(agentKey).toMatch(/^cairn_[0-9a-f]{16}_[\w-]{43}$/);
    expect(created.stderr).toContain('shown only now');
    const admin = JSON.parse(
      (await runCliInProcess(['keys', 'create', '--role', 'ADMIN', '--name', 'ops', '--json'], env)).stdout,
    ) as { id: string; role: string; key: string };
    expect(admin).toEqual(expect.objectContaining({ role: 'admin', key: expect.stringMatching(/^cairn_/) }));

    server ??= await startServerOn(env);
    const url = server.server.url;
    // On Postgres the running server notices the CLI's first key within its cache interval.
    await eventually(
      async () => codeOf(await gqlAs(url, undefined, '{ documents { totalCount } }')) === 'UNAUTHENTICATED',
      {
        what: 'the server noticing the first key',
      },
    );
    // The 401 points at an admin key, never at the agent key that locks its creator out.
    const keyless = (await gqlAs(url, undefined, '{ documents { totalCount } }')).body.errors?.[0]?.message ?? '';
    expect(keyless).toContain('keys create --role admin');
    expect(keyless).not.toContain('--role agent');
    expect(codeOf(await gqlAs(url, agentKey, '{ search(input: { query: "x" }) { score } }'))).toBeUndefined();
    expect(
      codeOf(
        await gqlAs(url, agentKey, 'mutation { createDocument(input: { title: "T", content: "c" }) { chunkCount } }'),
      ),
    ).toBe('FORBIDDEN');
    if (!concurrent) await server.close();

    const listed = JSON.parse((await runCliInProcess(['keys', 'list', '--json'], env)).stdout) as {
      id: string;
      name: string;
      role: string;
      lastUsedAt: string | null;
      revokedAt: string | null;
    }[];
    expect(listed.map((k) => [k.name, k.role, k.revokedAt])).toEqual([
      ['ci-bot', 'agent', null],
      ['ops', 'admin', null],
    ]);
    expect(listed[0]?.lastUsedAt).toEqual(expect.any(String));
    expect(JSON.stringify(listed)).not.toContain(agentKey.slice(23));
    const table = (await runCliInProcess(['keys', 'list'], env)).stdout;
    expect(table).toMatch(/ID\s+NAME\s+ROLE\s+CREATED\s+LAST USED\s+REVOKED/);
    expect(table).toContain('ci-bot');

    const revoked = await runCliInProcess(['keys', 'revoke', listed[0]?.id ?? ''], env);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain('Revoked key');
    if (!concurrent) server = await startServerOn(env);
    try {
      expect(codeOf(await gqlAs(server.server.url, agentKey, '{ documents { totalCount } }'))).toBe('UNAUTHENTICATED');
      expect(codeOf(await gqlAs(server.server.url, admin.key, '{ apiKeys { id } }'))).toBeUndefined();
    } finally {
      await server.close();
    }
  }, 180_000);

  it('fails clearly on an unknown id or role', async () => {
    const unknown = await runCliInProcess(['keys', 'revoke', 'ffffffffffffffff'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('NOT_FOUND');
    const role = await runCliInProcess(['keys', 'create', '--role', 'boss', '--name', 'x'], env);
    expect(role.code).toBe(1);
    expect(role.stderr).toContain('admin, editor, agent, reader');
  });
});

describe('cairn serve beyond loopback', () => {
  it('refuses to start without a key, saying how to create one', async () => {
    const database = await scratchPglite();
    const res = await runCli(['serve'], {
      CAIRN_HOST: '0.0.0.0',
      CAIRN_PORT: '0',
      ...database.env,
      CAIRN_EMBEDDING_PROVIDER: 'hashing',
    });
    await database.drop();
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('Refusing to listen on 0.0.0.0 (CAIRN_HOST): no API key exists');
    expect(res.stderr).toContain('npm run cairn -- keys create --role admin --name');
  });
});
