import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { projectPath } from '../../src/paths.js';

// `npm start` compiled and bundled everything on every run (about a minute) and `npm run cairn` ran tsc before each
// command. Both now run scripts/buildIfStale.mjs, which builds only when a source is newer than the build's output.
// Here it checks a scratch tree: a build it starts fails there (no compiler), which shows that it tried.

const run = (root: string, ...steps: string[]) =>
  spawnSync(process.execPath, [projectPath('scripts/buildIfStale.mjs'), '--root', root, ...steps], {
    encoding: 'utf8',
  });

function write(root: string, file: string, mtimeSeconds: number): void {
  const p = path.join(root, file);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, file);
  fs.utimesSync(p, mtimeSeconds, mtimeSeconds);
}

describe('buildIfStale (npm start, npm run cairn)', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-stale-'));
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('builds nothing when every output is newer than every input', () => {
    write(root, 'src/cli/main.ts', 1_000);
    write(root, 'web/graphiql/main.tsx', 1_000);
    write(root, 'web/dist/old-output.js', 5_000); // build output inside an input folder is not an input
    for (const out of [
      'dist/.tsbuildinfo',
      'dist/src/cli/main.js',
      'web/dist/explorer/main.js',
      'web/dist/knowledge/main.js',
      'web/dist/graphiql/main.js',
    ])
      write(root, out, 2_000);
    const res = run(root, 'server', 'web');
    expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: '' });
  });

  it('builds when a source changed or an output is missing, and names what it builds', () => {
    write(root, 'dist/.tsbuildinfo', 2_000);
    write(root, 'dist/src/cli/main.js', 2_000);
    write(root, 'importers/url/page.ts', 3_000);
    const changed = run(root, 'server');
    expect(changed.status).not.toBe(0);
    expect(changed.stderr).toContain('compiling the server (tsc): sources changed since the last build');

    const missing = run(root, 'web');
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('bundling the admin pages (esbuild)');
  });

  it('is what npm start and npm run cairn run before the server or the command', () => {
    const { scripts } = JSON.parse(fs.readFileSync(projectPath('package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.prestart).toBeUndefined();
    expect(scripts.start).toBe('node scripts/buildIfStale.mjs server web && node dist/src/cli/main.js serve');
    expect(scripts.cairn).toBe('node scripts/buildIfStale.mjs server && node dist/src/cli/main.js');
  });
});
