import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { projectPath } from '../../src/paths.js';
// @ts-expect-error -- the Jest configuration is plain JavaScript without types
import { splitSuites } from '../../jest.config.js';

// A suite that splits its runs between the Jest projects (projectShare) but is missing from jest.config.js's list runs
// its Neo4j runs nowhere: the `parallel` project drops them and the `neo4j` project never loads the file.
// Built from parts, so that this file does not match itself.
const SPLITS = new RegExp(`${'projectShare'}\\((serverRuns|graphStoreTargets)\\(`);

function suitesUsingLaneShare(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return suitesUsingLaneShare(full);
    if (!entry.name.endsWith('.test.ts') || /\/neo4j[A-Za-z]*\.test\.ts$|faults\.neo4j/.test(full)) return [];
    return SPLITS.test(fs.readFileSync(full, 'utf8')) ? [full] : [];
  });
}

describe('suites split between the Jest projects', () => {
  it('are all listed in jest.config.js, so their Neo4j runs run in the neo4j project', () => {
    const listed = (splitSuites as string[]).map((pattern) => new RegExp(pattern));
    const unlisted = suitesUsingLaneShare(projectPath('test')).filter((file) => !listed.some((re) => re.test(file)));
    expect(unlisted.map((file) => path.relative(projectPath(), file))).toEqual([]);
  });
});
