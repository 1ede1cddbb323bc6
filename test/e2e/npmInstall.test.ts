import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { projectPath } from '../../src/paths.js';

// Every npm command printed `Unknown project config "onnxruntime-node-install"` (an .npmrc key npm does not know,
// there to keep onnxruntime-node from downloading CUDA libraries). package.json's allowScripts denies that install
// script instead; npm 10 reads no allowScripts, hence ONNXRUNTIME_NODE_INSTALL=skip in the Dockerfile.
describe('npm in this project', () => {
  it('warns about no unknown config', () => {
    const res = spawnSync('npm', ['config', 'list'], {
      cwd: projectPath(),
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    expect(res.status).toBe(0);
    expect(res.stderr).not.toMatch(/Unknown (project|env|user) config/);
  }, 60_000);

  it("never runs onnxruntime-node's install script (a CUDA download) and reviews every other one", () => {
    const pkg = JSON.parse(fs.readFileSync(projectPath('package.json'), 'utf8')) as {
      allowScripts?: Record<string, boolean>;
    };
    expect(pkg.allowScripts?.['onnxruntime-node']).toBe(false);
    const lock = JSON.parse(fs.readFileSync(projectPath('package-lock.json'), 'utf8')) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const withScripts = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript)
      .map(([where]) => where.replace(/^.*node_modules\//, ''));
    expect([...new Set(withScripts)].sort()).toEqual(Object.keys(pkg.allowScripts ?? {}).sort());
    expect(fs.readFileSync(projectPath('Dockerfile'), 'utf8')).toContain('ONNXRUNTIME_NODE_INSTALL=skip npm ci');
  });
});
