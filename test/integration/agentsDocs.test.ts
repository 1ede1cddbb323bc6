import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { functionDefinitions } from '../../src/mcp/functionCalling.js';
import { projectPath } from '../../src/paths.js';
import { childEnv, runCli, runCliInProcess } from '../helpers/cli.js';
import { edgeTarget, scratchPglite } from '../helpers/databases.js';
import { connectHttp, connectStdio, ok } from '../helpers/mcp.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

// Every example of docs/agents.md, run or sent as written against a real server. The examples name
// http://127.0.0.1:4000 and $CAIRN_AGENT_KEY; the tests put in the test server's URL and a real agent key.

const run = promisify(execFile);
const DOC = fs.readFileSync(projectPath('docs/agents.md'), 'utf8');
const DOC_URL = 'http://127.0.0.1:4000';

/** The code block the page marks `<!-- example: name -->`. */
function example(name: string): string {
  const match = new RegExp(`<!-- example: ${name} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\\n\`\`\``).exec(DOC);
  if (!match?.[1]) throw new Error(`docs/agents.md has no example "${name}"`);
  return match[1];
}

const httpxImportable = spawnSync('python3', ['-c', 'import httpx'], { stdio: 'ignore' }).status === 0;

describe('docs/agents.md examples (pglite)', () => {
  let t: TestServer;
  let key: string;
  let scratch: string;
  const local = (code: string) => code.split(DOC_URL).join(t.server.url);

  beforeAll(async () => {
    t = await startTestServer(edgeTarget());
    await t.services.documents.create({
      id: 'rb:ach',
      title: 'ACH failures runbook',
      content:
        'ACH transfers fail when the receiving bank returns them: return code R01 means insufficient funds, R02 a closed account.',
      documentType: 'manual',
      source: 'wiki',
      tags: [],
      metadata: { url: 'https://wiki.example.com/ach' },
      expiresAt: null,
      entityIds: [],
    });
    key = (await t.services.apiKeys.create('docs-agent', 'agent')).key;
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-agents-doc-'));
  });
  afterAll(async () => {
    await t?.close();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('curl', async () => {
    const { stdout } = await run('bash', ['-c', local(example('curl'))], {
      env: { PATH: process.env.PATH, CAIRN_AGENT_KEY: key },
    });
    const { result } = JSON.parse(stdout) as {
      result: { content: { text: string }[]; structuredContent: { citations: { documentId: string }[] } };
    };
    expect(result.content[0]?.text).toContain('[1] ACH failures runbook');
    expect(result.structuredContent.citations[0]?.documentId).toBe('rb:ach');
  });

  it('TypeScript with fetch', async () => {
    const file = path.join(scratch, 'fetch.mts');
    fs.writeFileSync(file, local(example('typescript')));
    const { stdout } = await run(process.execPath, ['--import', 'tsx', file], {
      cwd: projectPath(),
      env: childEnv({ CAIRN_AGENT_KEY: key }),
    });
    expect(stdout).toContain('[1] ACH failures runbook');
    expect(stdout).toContain("documentId: 'rb:ach'");
  });

  it(`Python with httpx (${httpxImportable ? 'run with python3' : 'httpx is not importable: its exact request is sent'})`, async () => {
    const code = local(example('python'));
    if (httpxImportable) {
      const { stdout } = await run('python3', ['-c', code], { env: { PATH: process.env.PATH, CAIRN_AGENT_KEY: key } });
      expect(stdout).toMatch(/^\d\.\d\d ACH failures runbook \(rb:ach\): ACH transfers fail/);
      return;
    }
    // The request httpx would send: the URL, the two headers and `payload` (written as JSON-compatible Python).
    const url = /httpx\.post\(\s*"([^"]+)"/.exec(code)?.[1];
    const payload = JSON.parse(/payload = (\{[\s\S]*?\n\})/.exec(code)?.[1] ?? 'null') as unknown;
    expect(code).toContain(`"Authorization": f"Bearer {os.environ['CAIRN_AGENT_KEY']}"`);
    expect(code).toContain('"Accept": "application/json, text/event-stream"');
    const res = await fetch(url!, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
      },
      body: JSON.stringify(payload),
    });
    const { result } = (await res.json()) as {
      result: { isError?: boolean; structuredContent: { hits: Record<string, unknown>[] } };
    };
    expect(result.isError).toBeUndefined();
    // The fields the example prints.
    expect(result.structuredContent.hits[0]).toMatchObject({
      score: expect.any(Number),
      title: 'ACH failures runbook',
      documentId: 'rb:ach',
      content: expect.any(String),
    });
  });

  it('Cursor, Claude Code and the OpenAI Agents SDK: their URL and header reach the tools', async () => {
    const cursor = JSON.parse(local(example('cursor'))) as {
      mcpServers: { cairn: { url: string; headers: { Authorization: string } } };
    };
    const claudeCode = /--transport http cairn (\S+) --header "Authorization: (Bearer \$CAIRN_AGENT_KEY)"/.exec(
      local(example('claude-code')),
    );
    const agents = local(example('openai-agents'));
    const agentsUrl = /"url": "([^"]+)"/.exec(agents)?.[1];
    expect(agents).toContain(`"headers": {"Authorization": f"Bearer {os.environ['CAIRN_AGENT_KEY']}"}`);
    const endpoints = [
      {
        url: cursor.mcpServers.cairn.url,
        auth: cursor.mcpServers.cairn.headers.Authorization.replace('${env:CAIRN_AGENT_KEY}', key),
      },
      { url: claudeCode?.[1], auth: claudeCode?.[2]?.replace('$CAIRN_AGENT_KEY', key) },
      { url: agentsUrl, auth: `Bearer ${key}` },
    ];
    for (const { url, auth } of endpoints) {
      expect(url).toBe(`${t.server.url}/mcp`);
      const client = await connectHttp(t.server.url, undefined, { authorization: auth! });
      const enriched = await ok(client, 'enrich_context', { query: 'Why do ACH transfers fail?' });
      expect(enriched.citations[0].documentId).toBe('rb:ach');
      await client.close();
    }
  });

  it('Claude Desktop: the configured command serves MCP over stdio on the configured data folder', async () => {
    const config = JSON.parse(example('claude-desktop')) as {
      mcpServers: { cairn: { command: string; args: string[]; env: Record<string, string> } };
    };
    const { command, args, env } = config.mcpServers.cairn;
    expect([command, path.basename(args[0]!), args[1]]).toEqual(['node', 'cairn.js', 'mcp']);
    // bin/cairn.js runs the build of src/cli/main.ts (`npm run build`); the test runs the same sources compiled for tests.
    expect(fs.readFileSync(projectPath('bin/cairn.js'), 'utf8')).toContain("import '../dist/src/cli/main.js'");
    expect(Object.keys(env)).toEqual(['CAIRN_DATA_DIR']);
    // A migrated copy: a fresh folder's first start (initdb and every migration) costs ~7 s of CPU, which a busy
    // machine stretched past the test's time. What is under test is that the command serves the configured folder.
    const data = await scratchPglite();
    try {
      const dataDir = data.env.CAIRN_DATA_DIR!;
      const { client } = await connectStdio({ CAIRN_DATA_DIR: dataDir, CAIRN_EMBEDDING_PROVIDER: 'hashing' });
      try {
        await ok(client, 'create_document', { title: 'Desktop note', content: 'Written through cairn mcp.' });
        const hits = (await ok(client, 'search', { query: 'cairn mcp', mode: 'KEYWORD' })).hits;
        expect(hits[0].title).toBe('Desktop note');
      } finally {
        await client.close();
      }
      // The note is in the configured folder, read back by another process once cairn mcp has exited.
      const stats = await runCliInProcess(['stats', '--json'], {
        CAIRN_DATA_DIR: dataDir,
        CAIRN_EMBEDDING_PROVIDER: 'hashing',
      });
      expect(JSON.parse(stats.stdout)).toMatchObject({ documentCount: 1 });
    } finally {
      await data.drop();
    }
  }, 180_000);

  it('cairn tools prints the function definitions for both formats', async () => {
    const commands = example('tools').split('\n');
    for (const format of ['openai', 'anthropic'] as const) {
      expect(
        commands.some((c) => c.startsWith(`npm run --silent cairn -- tools --format ${format} > cairn-tools.json`)),
      ).toBe(true);
    }
    // `npm run cairn` compiles first; the same command from source (the anthropic format is what MCP lists, see mcp.test.ts):
    const { code, stdout } = await runCli(['tools', '--format', 'openai'], {});
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual(functionDefinitions('openai'));
    const openai = functionDefinitions('openai') as {
      type: string;
      function: { name: string; parameters: { type: string } };
    }[];
    expect(openai[0]).toMatchObject({
      type: 'function',
      function: { name: 'enrich_context', parameters: { type: 'object' } },
    });
    expect((await runCli(['tools', '--format', 'yaml'], {})).code).toBe(2);
  });
});
