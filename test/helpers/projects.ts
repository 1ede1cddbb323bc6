/**
 * Suites that run against several stores, Neo4j among them, are split between Jest projects (see jest.config.js):
 * the `parallel` project runs their runs without Neo4j, the `neo4j` project only their Neo4j runs, since Neo4j
 * Community has one database that those runs wipe. Each project names itself in a Jest global.
 */
type JestProject = 'parallel' | 'neo4j' | 'browser' | 'timed';

function currentProject(): JestProject | undefined {
  const project = (globalThis as { CAIRN_TEST_PROJECT?: unknown }).CAIRN_TEST_PROJECT;
  return project === 'parallel' || project === 'neo4j' || project === 'browser' || project === 'timed'
    ? project
    : undefined;
}

/** This Jest project's share of a suite's runs (all of them outside a project): a run on Neo4j has "neo4j" in its name. */
export function projectShare<T extends { name: string }>(runs: T[]): T[] {
  const project = currentProject();
  if (!project) return runs;
  return runs.filter((run) => /neo4j/i.test(run.name) === (project === 'neo4j'));
}
