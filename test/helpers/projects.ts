/**
 * Suites that run against several stores, Neo4j among them, are split between Jest projects (see jest.config.js):
 * the `parallel` project runs their runs without Neo4j, the `neo4j` project only their Neo4j runs, since Neo4j
 * Community has one database that those runs wipe. Each project names its lane in a Jest global.
 */
type Lane = 'parallel' | 'neo4j' | 'browser' | 'timed';

function currentLane(): Lane | undefined {
  const lane = (globalThis as { CAIRN_TEST_LANE?: unknown }).CAIRN_TEST_LANE;
  return lane === 'parallel' || lane === 'neo4j' || lane === 'browser' || lane === 'timed' ? lane : undefined;
}

/** This lane's share of a suite's runs (all of them outside a project): a run on Neo4j has "neo4j" in its name. */
export function laneShare<T extends { name: string }>(runs: T[]): T[] {
  const lane = currentLane();
  if (!lane) return runs;
  return runs.filter((run) => /neo4j/i.test(run.name) === (lane === 'neo4j'));
}
