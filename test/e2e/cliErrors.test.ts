import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projectPath } from '../../src/paths.js';
import { runCli, runCliInProcess } from '../helpers/cli.js';
import { scratchPglite, type ScratchDatabase } from '../helpers/databases.js';

// A user's mistake gets one line saying what is wrong and how to fix it, never a Node stack trace:
// exit 2 for a wrong command line (with a pointer to --help), exit 1 for anything else. Most commands run in this
// process (runCliInProcess); a few run as a child, to check what the program itself prints and exits with.

const STACK_LINE = /^\s+at /m;
const HANDBOOK = projectPath('test', 'fixtures', 'imports', 'handbook');
// A migrated data folder (a template's copy): an in-memory database would run initdb and every migration per command.
const env: Record<string, string> = { CAIRN_EMBEDDING_PROVIDER: 'hashing' };
let data: ScratchDatabase | undefined;
beforeAll(async () => {
  data = await scratchPglite();
  Object.assign(env, data.env);
});
afterAll(() => data?.drop());

/** stderr's lines, without blanks. */
const linesOf = (stderr: string) => stderr.split('\n').filter((l) => l.trim() !== '');

describe('cairn command errors', () => {
  it('prints the version with --version and -v', async () => {
    const { version } = JSON.parse(fs.readFileSync(projectPath('package.json'), 'utf8')) as { version: string };
    expect(await runCli(['--version'], env)).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    expect(await runCliInProcess(['-v'], env)).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('a usage error from the program itself: one line plus --help on stderr, exit 2', async () => {
    const res = await runCli(['--bogus'], env);
    expect(res).toEqual({
      code: 2,
      stdout: '',
      stderr: "cairn: Unknown option '--bogus'\nRun `cairn --help` for usage.\n",
    });
  });

  it.each([
    [['--bogus'], /^cairn: Unknown option '--bogus'$/],
    [['keys', 'create', '--role', 'admin', '--name'], /^cairn: Option '--name <value>' argument missing$/],
    [['reindex', '--batch-size', '0'], /^cairn: --batch-size must be a positive integer, got "0"$/],
    [['reindex', '--batch-size', 'abc'], /^cairn: --batch-size must be a positive integer, got "abc"$/],
    [['reindex', '--batch-size', '12abc'], /^cairn: --batch-size must be a positive integer/],
    [['frobnicate'], /^cairn: unknown command "frobnicate"/],
    [['keys', 'create', '--role', 'admin'], /^cairn: keys create needs --name <name>/],
    [['keys', 'rotate'], /^cairn: unknown keys action "rotate"/],
    [['import', 'dir'], /^cairn: import dir needs a folder/],
    [['import', 'ftp', 'x'], /^cairn: unknown import kind "ftp"/],
    // A bad option value names the option, not the field it is validated as ("import dir.documentType").
    [['import', 'dir', HANDBOOK, '--type', 'BOGUS'], /^cairn: --type: must be one of MANUAL, TUTORIAL, .*, OTHER$/],
    [['import', 'dir', HANDBOOK, '--tag', 'Not Valid'], /^cairn: --tag: invalid tag "Not Valid": tags are lower-case/],
    [['import', 'url', 'https://example.com/a', '--title', ' '], /^cairn: --title: must not be empty$/],
    [['import', 'url', 'https://example.com/a', 'not a url'], /^cairn: import url: "not a url" is not an absolute URL/],
    [
      ['import', 'openapi', 'https://example.com/spec.yaml', '--spec-id', 'bad id'],
      /^cairn: --spec-id: "bad id" is not a valid spec id: use 1-100 letters, digits/,
    ],
    [['import', 'openapi', 'https://example.com/spec.yaml', '--spec-id', ''], /^cairn: --spec-id: must not be empty/],
    [
      ['import', 'dir', HANDBOOK, '--spec-id', 'handbook'],
      /^cairn: --spec-id applies to import openapi only: import dir may bring in many specs/,
    ],
  ])('usage error %j: one line plus --help, exit 2', async (args, message) => {
    const res = await runCliInProcess(args, env);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).not.toMatch(STACK_LINE);
    expect(linesOf(res.stderr)).toEqual([expect.stringMatching(message), 'Run `cairn --help` for usage.']);
  });

  describe('user errors outside the command line: one line, exit 1', () => {
    let dir: string;
    beforeAll(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-clierr-'));
    });
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    it.each([
      [
        ['import', 'dir', '/nonexistent-cairn-folder'],
        'cairn: [BAD_USER_INPUT] import dir: /nonexistent-cairn-folder does not exist; check the path',
      ],
      [
        ['import', 'openapi', '/nonexistent-cairn.yaml'],
        'cairn: [BAD_USER_INPUT] import openapi: /nonexistent-cairn.yaml does not exist; check the path',
      ],
    ])('%j', async (args, line) => {
      const res = await runCliInProcess(args, env);
      expect(res.code).toBe(1);
      expect(res.stdout).toBe('');
      expect(linesOf(res.stderr)).toEqual([line]);
    });

    it('a folder given to import openapi, or a file to import dir', async () => {
      const file = path.join(dir, 'spec.yaml');
      fs.writeFileSync(file, 'openapi: 3.0.0\n');
      const spec = await runCliInProcess(['import', 'openapi', dir], env);
      expect(spec.code).toBe(1);
      expect(linesOf(spec.stderr)).toEqual([`cairn: [BAD_USER_INPUT] import openapi: ${dir} is not a file`]);
      const folder = await runCliInProcess(['import', 'dir', file], env);
      expect(folder.code).toBe(1);
      expect(linesOf(folder.stderr)).toEqual([`cairn: [BAD_USER_INPUT] import dir: ${file} is not a folder`]);
    });

    it('serve on a port already in use names the port and CAIRN_PORT', async () => {
      const blocker = net.createServer();
      await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
      const port = (blocker.address() as net.AddressInfo).port;
      try {
        const res = await runCli(['serve'], {
          ...env,
          CAIRN_HOST: '127.0.0.1',
          CAIRN_PORT: String(port),
          CAIRN_LOG_LEVEL: 'error',
        });
        expect(res.code).toBe(1);
        expect(res.stderr).not.toMatch(STACK_LINE);
        expect(linesOf(res.stderr)).toEqual([
          `cairn: port ${port} on 127.0.0.1 is already in use (CAIRN_PORT): stop the process that uses it, or set CAIRN_PORT to a free port`,
        ]);
      } finally {
        await new Promise((r) => blocker.close(r));
      }
    });

    it('serve on a data folder another server holds exits 1 with the lock message', async () => {
      const dataDir = path.join(dir, 'data');
      const pglite = path.join(dataDir, 'pglite');
      fs.mkdirSync(dataDir);
      // A lock as a live process (this test runner) would hold it, from another module instance's point of view.
      fs.writeFileSync(
        `${pglite}.lock`,
        JSON.stringify({ pid: process.pid, hostname: os.hostname(), startedAt: new Date().toISOString(), token: 't' }),
      );
      const res = await runCli(['serve'], {
        ...env,
        CAIRN_DATA_DIR: dataDir,
        CAIRN_PORT: '0',
        CAIRN_LOG_LEVEL: 'error',
      });
      expect(res.code).toBe(1);
      expect(res.stderr).not.toMatch(STACK_LINE);
      expect(linesOf(res.stderr)).toEqual([
        expect.stringContaining(
          `cairn: [DATABASE_UNAVAILABLE] The data folder ${pglite} is in use by another Cairn process: pid ${process.pid}`,
        ),
      ]);
    });
  });
});
