// The real servers a benchmark runs against, read in one place: the CAIRN_BENCH_* settings first, else the ones the
// test suites use (CAIRN_TEST_*, which scripts/postgres-server.sh and scripts/neo4j-server.sh print).
import fs from 'node:fs';
import { projectPath } from '../src/paths.js';

// scripts/neo4j-server.sh starts the JVM for test suites by default: C1 only, which halves a fresh server's start-up
// CPU and makes a warm one several times slower. A benchmark on it would measure that setting, not Neo4j.
const TEST_JIT = '-XX:TieredStopAtLevel=1';

/** Exits with status 2 when the Neo4j that scripts/neo4j-server.sh started runs with the test suites' JIT setting. */
function refuseTestJvm(command: string): void {
  let cmdline: string;
  try {
    const pid = fs
      .readFileSync(projectPath('.cairn', 'neo4j', 'neo4j.pid'), 'utf8')
      .split('\n')[0]
      ?.trim();
    cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return; // not the script's server (or not Linux): nothing to check
  }
  if (!cmdline.split('\0').includes(TEST_JIT)) return;
  console.error(
    `${command}: Neo4j runs with the test suites' JVM options (${TEST_JIT}), which make it several times slower. Restart it for benchmarks: bash scripts/neo4j-server.sh stop; CAIRN_TEST_NEO4J_JVM_OPTS=-XX:+UseG1GC CAIRN_TEST_NEO4J_HEAP=2g CAIRN_TEST_NEO4J_PAGECACHE=1g bash scripts/neo4j-server.sh start`,
  );
  process.exit(2);
}

/** Bolt URI and credentials of a Neo4j server. */
export interface BenchNeo4j {
  uri: string;
  user: string;
  password: string;
}

/** The Postgres server's URL, or undefined when none is set. */
export function benchDatabaseUrl(): string | undefined {
  return process.env.CAIRN_BENCH_DATABASE_URL ?? process.env.CAIRN_TEST_DATABASE_URL;
}

/** The Neo4j server, or undefined when none is set. */
export function benchNeo4j(): BenchNeo4j | undefined {
  const uri = process.env.CAIRN_BENCH_NEO4J_URI ?? process.env.CAIRN_TEST_NEO4J_URI;
  if (!uri) return undefined;
  refuseTestJvm(process.env.npm_lifecycle_event ?? 'the benchmark');
  return {
    uri,
    user: process.env.CAIRN_TEST_NEO4J_USER ?? 'neo4j',
    password: process.env.CAIRN_TEST_NEO4J_PASSWORD ?? 'cairn-test-password',
  };
}

/** Both servers, or exits with status 2 saying how to start them (`command` names the benchmark). */
export function requireBenchServers(command: string): { databaseUrl: string; neo4j: BenchNeo4j } {
  const databaseUrl = benchDatabaseUrl();
  const neo4j = benchNeo4j();
  if (!databaseUrl || !neo4j) {
    console.error(
      `${command} needs the real servers: set CAIRN_TEST_DATABASE_URL (\`bash scripts/postgres-server.sh start\`) and CAIRN_TEST_NEO4J_URI (\`bash scripts/neo4j-server.sh start\`).`,
    );
    process.exit(2);
  }
  return { databaseUrl, neo4j };
}
