import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { envSchema } from '../../../src/configSchema.js';

// What a newcomer reads first: the README's quick start holds both commands (run and test), what `npm test` needs on
// a fresh machine, the port setting, and that the first start's embedder stays.

const root = path.resolve(import.meta.dirname, '../../..');
const README = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
const quickStart = README.slice(
  README.indexOf('## Quick start'),
  README.indexOf('\n## ', README.indexOf('## Quick start') + 1),
);

describe('the README quick start', () => {
  it('gives the command that runs Cairn and the one that tests it, in one block', () => {
    expect(quickStart).toContain('```sh\nnpm install && npm start\nnpm test\n```');
  });

  it('says what npm test needs on a fresh machine and how .ci/run starts the real servers', () => {
    expect(quickStart).toMatch(/`npm test` on a fresh machine\*\* needs only `npm install`/);
    expect(quickStart).toContain('embedded database');
    expect(quickStart).toContain('`bash .ci/run`');
    expect(fs.existsSync(path.join(root, '.ci/run'))).toBe(true);
    for (const script of ['postgres-server.sh', 'neo4j-server.sh', 'sshd-server.sh'])
      expect(fs.readFileSync(path.join(root, '.ci/run'), 'utf8')).toContain(`scripts/${script} start`);
  });

  it('names CAIRN_PORT, and says the first start keeps its embedder (hashing without network)', () => {
    expect(quickStart).toContain('`CAIRN_PORT`');
    expect(quickStart).toMatch(/first start chooses the embedder for good/);
    expect(quickStart).toMatch(/hashing embedder/);
    expect(quickStart).toContain('npm run cairn -- reindex');
  });

  it('names only settings that exist', () => {
    const named = new Set([...README.matchAll(/\bCAIRN_[A-Z0-9_]+/g)].map((m) => m[0]));
    expect(named.size).toBeGreaterThan(2);
    const known = new Set(Object.keys(envSchema.shape));
    expect([...named].filter((n) => !known.has(n))).toEqual([]);
  });
});
