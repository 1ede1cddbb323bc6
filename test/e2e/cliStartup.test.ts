import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { projectPath } from '../../src/paths.js';
import { CLI_ARGS, childEnv } from '../helpers/cli.js';
import { scratchPglite } from '../helpers/databases.js';

// `cairn --version` and `--help` must answer at once: the CLI loads a command's modules only when that command runs.
// Measured by what loads (a module hook records every module), not by time.

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-cli-startup-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** Runs the CLI with `args` and returns its output and the modules it loaded. */
function modulesLoadedBy(args: string[], env: Record<string, string> = {}) {
  const log = path.join(scratch, `${args.join('_').replace(/\W/g, '')}.log`);
  const res = spawnSync(
    process.execPath,
    ['--import', projectPath('test/helpers/recordModules.mjs'), ...CLI_ARGS, ...args],
    {
      env: childEnv({ ...env, CAIRN_TEST_MODULE_LOG: log }),
      encoding: 'utf8',
    },
  );
  const modules = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : [];
  return { code: res.status, stdout: res.stdout, stderr: res.stderr, modules };
}

const packagesIn = (modules: string[]) => modules.filter((m) => m.includes('/node_modules/'));
/** What only a command on the store or the server needs: database drivers, the GraphQL server, the logger. */
const STORE_AND_SERVER = ['@electric-sql/pglite', '/pg/', 'neo4j-driver', '@apollo/', '/express/', '/pino/'];
/** What only some configurations or requests need: loaded when first used, never by a command that does not. */
const ON_DEMAND = [
  '/openai/',
  '/neo4j-driver/',
  '/@modelcontextprotocol/',
  '/linkedom/',
  '/@mozilla/readability/',
  '/turndown/',
  '/@apidevtools/',
  '/mammoth/',
];

describe('the cairn command starts without loading what it does not run', () => {
  it('--version loads no package and none of the commands', () => {
    const run = modulesLoadedBy(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    // The hook saw the program itself: the check below can fail.
    expect(run.modules.some((m) => m.endsWith('/src/cli/main.js'))).toBe(true);
    expect(packagesIn(run.modules)).toEqual([]);
    expect(run.modules.filter((m) => /\/(dispatch|services|serve|config)\.js$/.test(m))).toEqual([]);
  });

  it('--help, help and a mistyped command load no package either', () => {
    for (const args of [['--help'], ['help'], ['statz']]) {
      const run = modulesLoadedBy(args);
      expect(run.code).toBe(args[0] === 'statz' ? 2 : 0);
      expect(run.stdout + run.stderr).toMatch(args[0] === 'statz' ? /unknown command "statz"/ : /^Usage: cairn/);
      expect(packagesIn(run.modules)).toEqual([]);
    }
  });

  it('tools loads no database driver, server or logger', () => {
    const run = modulesLoadedBy(['tools', '--format', 'openai']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(expect.any(Array));
    expect(run.modules.filter((m) => STORE_AND_SERVER.some((p) => m.includes(p)))).toEqual([]);
  });

  it('stats on the embedded store loads no optional backend, MCP or importer library', async () => {
    const data = await scratchPglite();
    try {
      const run = modulesLoadedBy(['stats', '--json'], { ...data.env, CAIRN_EMBEDDING_PROVIDER: 'hashing' });
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual(expect.objectContaining({ documentCount: 0 }));
      // The hook saw the store being opened: the check below can fail.
      expect(run.modules.some((m) => m.includes('@electric-sql/pglite'))).toBe(true);
      expect(run.modules.filter((m) => ON_DEMAND.some((p) => m.includes(p)))).toEqual([]);
    } finally {
      await data.drop();
    }
  });
});
