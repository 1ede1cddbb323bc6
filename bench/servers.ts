// The real servers a benchmark runs against, read in one place: the CAIRN_BENCH_* settings first, else the ones the
// test suites use (CAIRN_TEST_*, which scripts/postgres-server.sh and scripts/neo4j-server.sh print).

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
