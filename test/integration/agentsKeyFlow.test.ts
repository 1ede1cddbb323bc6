import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projectPath } from '../../src/paths.js';
import { codeOf, gqlAs } from '../helpers/auth.js';
import { CLI_ARGS, childEnv, startCliServer } from '../helpers/cli.js';

// docs/agents.md section 1, run in order on a fresh data folder as a newcomer would: the server started (`npm start`),
// then the page's key commands exactly as written (`npm run --silent cairn --` is the compiled CLI here), then its
// curl example with the agent's key they exported.

const run = promisify(execFile);
const DOC = fs.readFileSync(projectPath('docs/agents.md'), 'utf8');
const DOC_URL = 'http://127.0.0.1:4000';
const NPM_CAIRN = 'npm run --silent cairn --';

/** The code block the page marks `<!-- example: name -->`. */
function example(name: string): string {
  const match = new RegExp(`<!-- example: ${name} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\\n\`\`\``).exec(DOC);
  if (!match?.[1]) throw new Error(`docs/agents.md has no example "${name}"`);
  return match[1];
}

describe('docs/agents.md: start Cairn and get a key, in order, on a fresh data folder', () => {
  let dataDir: string;
  let server: Awaited<ReturnType<typeof startCliServer>> | undefined;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-agent-keys-'));
  });
  afterAll(async () => {
    if (server) {
      const exited = new Promise((resolve) => server!.child.once('close', resolve));
      server.child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('the page starts the server first, then creates the admin key, then the agent key', () => {
    const section = DOC.slice(DOC.indexOf('## 1. Start Cairn'), DOC.indexOf('## 2.'));
    const keys = example('keys').split('\n');
    expect(section.indexOf('npm install && npm start')).toBeLessThan(section.indexOf('<!-- example: keys -->'));
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(`export CAIRN_API_KEY=$(${NPM_CAIRN} keys create --role admin --name me)`);
    expect(keys[1]).toMatch(/^export CAIRN_AGENT_KEY=\$\(npm run --silent cairn -- keys create --role agent /);
    // Every example an agent runs sends the agent's key, never the admin key the cairn command uses.
    const agentPart = DOC.slice(DOC.indexOf('## 2.'));
    expect(agentPart).not.toContain('CAIRN_API_KEY');
    expect(agentPart).toContain('$CAIRN_AGENT_KEY');
  });

  it('works as written: an admin key in CAIRN_API_KEY, an agent key in CAIRN_AGENT_KEY that the curl example uses', async () => {
    const env = { CAIRN_DATA_DIR: dataDir, CAIRN_EMBEDDING_PROVIDER: 'hashing' };
    server = await startCliServer(env); // npm start
    const keys = example('keys')
      .split(NPM_CAIRN)
      .join(`"${process.execPath}" ${CLI_ARGS.map((a) => `"${a}"`).join(' ')}`);
    const curl = example('curl').split(DOC_URL).join(server.url);
    const script = `${keys}\necho "admin=$CAIRN_API_KEY"\necho "agent=$CAIRN_AGENT_KEY"\n${curl}\n`;
    const { stdout } = await run('bash', ['-c', script], { env: childEnv(env), cwd: projectPath() });
    const [adminLine, agentLine, answer] = stdout.split('\n');
    const admin = adminLine?.replace('admin=', '') ?? '';
    const agent = agentLine?.replace('agent=', '') ?? '';
    expect(admin).toMatch(/^cairn_[0-9a-f]{16}_[\w-]{43}$/);
    expect(agent).toMatch(/^cairn_[0-9a-f]{16}_[\w-]{43}$/);

    // The agent's key reached the MCP tools through the curl example.
    const { result } = JSON.parse(answer ?? '') as { result: { isError?: boolean; structuredContent: unknown } };
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual(expect.objectContaining({ citations: expect.any(Array) }));

    // Authentication is on; the admin key manages keys, the agent key may not.
    expect(codeOf(await gqlAs(server.url, undefined, '{ documents { totalCount } }'))).toBe('UNAUTHENTICATED');
    const listed = await gqlAs<{ apiKeys: { name: string; role: string }[] }>(
      server.url,
      admin,
      '{ apiKeys { name role } }',
    );
    expect(listed.body.data?.apiKeys).toEqual([
      { name: 'me', role: 'ADMIN' },
      { name: 'my-agent', role: 'AGENT' },
    ]);
    expect(codeOf(await gqlAs(server.url, agent, '{ apiKeys { name } }'))).toBe('FORBIDDEN');
  }, 300_000);
});
